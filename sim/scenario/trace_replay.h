// The `trace` traffic pattern: a CSV file of recorded calls that one scenario client
// replays (scenarios/README.md, "trace"). The file is read as the virtual clock reaches
// its rows, one row at a time, so a trace of any length replays in constant memory.
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

#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/replay_source.h"

namespace sim {

// "1.25" seconds to nanoseconds exactly (no binary floating point); nullopt when the text
// is not a non-negative decimal number.
std::optional<apf::Nanos> ParseDecimalSeconds(std::string_view text);

class CsvTraceReader : public ReplaySource {
 public:
  // Opens `path` and checks its header; throws InputError when it cannot. Rows are offset
  // by `start`; `client_name` is the client the rows must name (or leave empty).
  CsvTraceReader(std::string path, std::string client_name, apf::Nanos start);
  CsvTraceReader(const CsvTraceReader&) = delete;
  CsvTraceReader& operator=(const CsvTraceReader&) = delete;

  bool Next(ReplayRow* row) override;
  std::int64_t rows_read() const { return rows_read_; }

 private:
  [[noreturn]] void Fail(int column, const std::string& field, const std::string& message) const;

  std::string path_;
  std::string client_name_;
  apf::Nanos start_;
  std::ifstream in_;
  int line_ = 0;        // the line the current record starts on
  int lines_read_ = 0;  // lines read so far
  apf::Nanos last_time_ = 0;
  std::int64_t rows_read_ = 0;
  std::string text_;                 // the current record, reused
  std::vector<std::string> fields_;  // its fields, reused
};

}  // namespace sim

#endif  // SIM_SCENARIO_TRACE_REPLAY_H_
