// `apfsim run --openmetrics`: metrics.om, the run's metrics as a time series in the
// OpenMetrics 1.0 text format, so that `promtool tsdb create-blocks-from openmetrics` can
// backfill them into Prometheus. At the end of every report interval the writer takes the
// Prometheus text of that instant (metrics.prom's families, sim/report/metrics_text.h, and
// the per-client ones, sim/report/client_metrics_text.h) and re-spells it as OpenMetrics:
// counter families lose their `_total` in `# TYPE` and `# HELP`, every sample gets a
// timestamp in seconds and the extra `--label`s, and the file ends with `# EOF`. The series
// are defined once, in those two files; this one only changes their spelling.
//
// OpenMetrics wants each family's samples together and each series' points together in
// time order, while the run produces them interval by interval. So that memory stays flat
// in the run's length, the points are appended to a spool file (a small buffer per series,
// flushed in chunks) and gathered series by series into metrics.om at Commit(); only the
// chunks' places (16 bytes each per few kilobytes of output) stay in memory.
//
// Tested by tests/sim/report/openmetrics_test.cc, and against Prometheus itself by
// tests/ci/prometheus_backfill_test.sh.
#ifndef SIM_REPORT_OPENMETRICS_H_
#define SIM_REPORT_OPENMETRICS_H_

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apf/base/virtual_time.h"
#include "sim/io/output_file.h"

namespace sim {

struct OpenMetricsOptions {
  // The wall-clock instant of virtual time 0, in nanoseconds since the Unix epoch.
  apf::Nanos start_unix_ns = apf::kVirtualEpochUnixNanos;
  // --label NAME=VALUE, in the order given; written before each sample's own labels.
  std::vector<std::pair<std::string, std::string>> labels;
};

// --start-time: an RFC 3339 instant ("2026-01-01T00:00:00Z", "2026-03-01T12:00:00.5+01:00")
// or "now". Throws InputError naming the flag when it is neither.
apf::Nanos ParseStartTime(const std::string& text);
// --label NAME=VALUE: NAME a Prometheus label name, not reserved (`__` prefix) and not one
// the series already carry. Throws InputError naming the flag otherwise.
std::pair<std::string, std::string> ParseExtraLabel(const std::string& text);

class OpenMetricsWriter {
 public:
  // Opens `path` as an OutputFile (nothing replaced until Commit()).
  OpenMetricsWriter(const std::string& path, OpenMetricsOptions options);
  ~OpenMetricsWriter();
  OpenMetricsWriter(const OpenMetricsWriter&) = delete;
  OpenMetricsWriter& operator=(const OpenMetricsWriter&) = delete;

  // The metrics at virtual instant `at`, in the Prometheus text format (# HELP, # TYPE,
  // then the samples of that family). Instants must increase from call to call.
  void AddSnapshot(apf::Nanos at, std::string_view prometheus_text);
  // Writes every family and series, `# EOF`, and renames the file into place.
  void Commit();

 private:
  struct Chunk {
    long offset;
    std::size_t bytes;
  };
  struct Series {
    std::vector<Chunk> chunks;  // in the spool, in time order
    std::string pending;        // after the chunks
  };
  struct Family {
    std::string name, type, help;
    std::vector<int> series;  // indices into series_, in order of first appearance
  };
  Family& FamilyNamed(const std::string& prometheus_name);
  void AddSample(Family& family, std::string_view line, const std::string& timestamp);
  void Flush(Series& series);
  void FlushAll();

  OutputFile file_;
  OpenMetricsOptions options_;
  std::string extra_labels_;  // NAME="VALUE",... escaped
  std::FILE* spool_ = nullptr;
  long spool_bytes_ = 0;
  std::size_t pending_bytes_ = 0;
  std::vector<Family> families_;
  std::map<std::string, int, std::less<>> family_index_;  // by Prometheus text name
  std::vector<Series> series_;
  std::map<std::string, int, std::less<>> series_index_;  // by family and label set
};

}  // namespace sim

#endif  // SIM_REPORT_OPENMETRICS_H_
