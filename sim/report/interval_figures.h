// What summary.json says about parts of a run, folded from the world's report rows as the
// run goes: each level's and client's worst interval (the most rejections, the highest
// p99 wait), and with `--window FROM..TO` every figure counted over that window only.
// Percentiles over a window are exact: the rows hand over their intervals' histograms,
// which are merged (sim/world/latency_histogram.h), not their percentiles.
//
// A row belongs to the window when its interval starts within [FROM, TO), as for the
// windows of `spec.expect` (sim/report/expectations.h). A level's rows come per replica;
// the cluster-wide interval merges them before its p99 is taken.
// Tested by tests/sim/report/interval_figures_test.cc.
#ifndef SIM_REPORT_INTERVAL_FIGURES_H_
#define SIM_REPORT_INTERVAL_FIGURES_H_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apf/base/virtual_time.h"
#include "sim/world/level_timeline.h"

namespace sim {

// `--window FROM..TO`: [from, to) of virtual time. With `event` (`--window
// event:N:FROM..TO`), from and to are offsets from spec.events[N].at, either sign, until
// ResolveReportWindow makes them instants of the run.
struct ReportWindow {
  apf::Nanos from = 0, to = 0;
  std::optional<int> event;  // the 0-based index into spec.events; nullopt: absolute
};

// Parses "6m..8m" (durations as a scenario writes them, sim/io/duration.h), or relative to
// an event "event:0..+2m", "event:1:-30s..+2m" ("event:FROM..TO" is event 0; an offset may
// carry a sign); FROM must be before TO. Throws InputError with field `flag` otherwise
// (--trace-window reads the same grammar).
ReportWindow ParseReportWindow(const std::string& text, const std::string& flag = "--window");

// The window as instants of a run whose spec.events are at `event_times` (after --set and
// overlays) and which lasts `duration`: an event window is moved to its event's time. Throws
// InputError with field `flag` when the event does not exist (or there is none), when the
// window starts before the run or ends past its end.
ReportWindow ResolveReportWindow(const ReportWindow& window,
                                 const std::vector<apf::Nanos>& event_times, apf::Nanos duration,
                                 const std::string& flag = "--window");

// The largest value of a per-interval figure and the start of the first interval that had
// it (no start while the value is 0: nothing happened).
struct WorstInterval {
  std::optional<apf::Nanos> start;
  double value = 0;
  void Offer(apf::Nanos interval_start, double v) {
    if (v > value) value = v, start = interval_start;
  }
};

class IntervalFigures {
 public:
  explicit IntervalFigures(std::optional<ReportWindow> window = std::nullopt) : window_(window) {}

  void OnLevelRow(apf::Nanos start, const std::string& level, const LevelRow& row);
  void OnClientRow(apf::Nanos start, const std::string& client, const ClientRow& row);

  // {"rejected": {"startSeconds", "value"}, "waitP99": {"startSeconds", "seconds"}} of a
  // level (cluster-wide) or client (429 attempts; its APF queue wait); a client's also has
  // "latencyP99". startSeconds is null when the value is 0.
  nlohmann::json LevelWorst(const std::string& level);
  nlohmann::json ClientWorst(const std::string& client) const;

  const std::optional<ReportWindow>& window() const { return window_; }
  // Over the window: summary.json's figures of each level and client that had a row in
  // it, in the same shape (levels: nominalCL, meanCurrentCL, peakExecutingSeats,
  // dispatched, rejected, waitSeconds; clients: calls, attempts, succeeded, failed,
  // http429, callsRejected, and the latency, queue wait, throttle wait and iteration
  // quantiles).
  nlohmann::json WindowLevels();
  nlohmann::json WindowClients() const;

 private:
  struct Level {
    // The interval being merged over replicas.
    apf::Nanos open_start = -1;
    std::uint64_t open_rejected = 0;
    LatencyHistogram open_waits;
    WorstInterval rejected, wait_p99;
    // The window.
    LevelCounters counters;
    LatencyHistogram waits;
    int nominal_cl = 0, peak_executing_seats = 0;
    double current_cl_sum = 0;
    int rows = 0;
  };
  struct Client {
    WorstInterval rejected, wait_p99, latency_p99;
    ClientRow counts{};
    // Allocated when the client has a row in the window (histograms are 15 KB each, and an
    // audit log may bring thousands of clients).
    std::unique_ptr<ClientDistributions> distributions;
  };
  bool InWindow(apf::Nanos start) const {
    return window_ && start >= window_->from && start < window_->to;
  }
  static void CloseOpen(Level& l);

  std::optional<ReportWindow> window_;
  std::map<std::string, Level> levels_;
  std::map<std::string, Client> clients_;
};

// The quantile object of summary.json: {"p50", "p99", "p999", "max"} in seconds (p999 is
// p99.9).
nlohmann::json QuantilesJson(const LatencyHistogram& h);

}  // namespace sim

#endif  // SIM_REPORT_INTERVAL_FIGURES_H_
