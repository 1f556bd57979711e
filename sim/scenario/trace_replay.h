// The `trace` traffic pattern: a CSV file of recorded calls that one scenario client
// replays (scenarios/README.md, "trace"). The file is read as the virtual clock reaches
// its rows, one row at a time, so a trace of any length replays in constant memory: in
// large blocks (sim/io/line_reader.h), its SHA-256 taken on the way, each row split in place
// and its request written only when the world has not compiled its shape before.
//
// The header is exactly
//   time,client,verb,apiGroup,resource,namespace,name,query,serviceTime
// `time` is seconds from the traffic item's start (decimal, up to nanoseconds, never
// decreasing); `client` is empty or the name of the client the item belongs to;
// `serviceTime` is seconds or empty (then the apiserver's service-time rules apply).
// A field may be double-quoted ("a,b"; "" inside quotes is one quote). Empty lines and
// lines starting with '#' are skipped. Every bad row is an InputError at file:line.
#ifndef SIM_SCENARIO_TRACE_REPLAY_H_
#define SIM_SCENARIO_TRACE_REPLAY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/line_reader.h"
#include "sim/scenario/replay_source.h"

namespace sim {

// "1.25" seconds to nanoseconds exactly (no binary floating point); nullopt when the text
// is not a non-negative decimal number.
std::optional<apf::Nanos> ParseDecimalSeconds(std::string_view text);

class CsvTraceReader : public ReplaySource {
 public:
  // Opens `path` and checks its header; throws InputError when it cannot. Rows are offset
  // by `start`; `client_name` is the client the rows must name (or leave empty). With
  // LineReader::Digest::kSha256 the file's SHA-256 is taken as it is read (FinishSha256).
  CsvTraceReader(std::string path, std::string client_name, apf::Nanos start,
                 LineReader::Digest digest = LineReader::Digest::kNone);
  CsvTraceReader(const CsvTraceReader&) = delete;
  CsvTraceReader& operator=(const CsvTraceReader&) = delete;

  // The row's request is deferred (FillRequest); its shape is its columns from the verb on
  // without the namespace and name (empty for a row with quotes or "{process}").
  bool Next(ReplayRow* row) override;
  void FillRequest(ReplayRow* row) override;
  std::string FinishSha256() override { return lines_.FinishSha256(); }
  std::string file() const override { return lines_.path(); }
  std::int64_t rows_read() const { return rows_read_; }

 private:
  // The next record's fields into fields_, as views; false at the end of the file.
  bool ReadRecord();
  [[noreturn]] void Fail(int column, std::string_view field, const std::string& message) const;

  LineReader lines_;
  std::string client_name_;
  apf::Nanos start_;
  int line_ = 0;  // the line the current record starts on
  apf::Nanos last_time_ = 0;
  std::int64_t rows_read_ = 0;
  std::vector<std::string_view> fields_;  // the current record's fields
  bool quoted_ = false;                   // it holds quotes: fields_ views quoted_fields_
  std::string shape_;                     // its ReplayRow::shape
  // A record with quotes: its text (lines joined) and its unquoted fields, which fields_
  // then views.
  std::string quoted_text_;
  std::vector<std::string> quoted_fields_;
};

}  // namespace sim

#endif  // SIM_SCENARIO_TRACE_REPLAY_H_
