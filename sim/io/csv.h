// CSV as RFC 4180 writes it, for every CSV apfsim writes (timeline.csv, clients.csv,
// sweep.csv) or reads (trace files, sweep parts): a field holding a comma, a double quote
// or a line break is written between double quotes with each quote doubled, so a client
// named `ops,east "blue"` is one cell. Reading is lenient where the RFC is silent: a quote
// inside an unquoted field is kept as a character, as Python's csv module and Go's
// encoding/csv with LazyQuotes do. Tested by tests/sim/io/csv_test.cc.
#ifndef SIM_IO_CSV_H_
#define SIM_IO_CSV_H_

#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace sim {

// One field as written: quoted when it holds `,`, `"`, CR or LF, else as it is.
std::string CsvField(std::string_view value);

// A record's fields, each through CsvField, joined by commas (no line end).
std::string CsvRecord(const std::vector<std::string>& values);

// Splits one record (without its line end; a CR before it is dropped). False when a
// quoted field is left open: the record goes on past a line break (see ReadCsvRecord).
// `fields` is reused: its strings keep their storage.
bool SplitCsvRecord(std::string_view record, std::vector<std::string>* fields);

// Splits a record none of whose fields is quoted into views of `record` (no copy: a
// trace's rows); false, with `fields` unspecified, when a field starts with a double quote
// (then SplitCsvRecord, which unquotes). A CR at the end is dropped. `fields` is reused.
bool SplitUnquotedCsvRecord(std::string_view record, std::vector<std::string_view>* fields);

// Whether `text` ends inside a quoted field: the record goes on past a line break.
bool EndsInsideQuotes(std::string_view text);

// Reads the next record's text into `record`: one line, or several when a quoted field
// holds a line break (joined with "\n"). Returns false at the end of input; `lines` (if
// given) grows by the number of lines read. A quote left open at the end of input leaves
// the rest of the input in `record`, which SplitCsvRecord then refuses.
// A line (or a record) longer than kMaxInputLineBytes throws an InputError at `source`.
bool ReadCsvRecord(std::istream& in, std::string* record, int* lines = nullptr,
                   const std::string& source = "");

}  // namespace sim

#endif  // SIM_IO_CSV_H_
