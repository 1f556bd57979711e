// What `apfsim run` writes to its output folder, each file whole or not at all:
// timeline.csv and clients.csv (streamed while the run goes, committed at the end),
// summary.json, the debug dumps at the scenario's instants, metrics.prom, with
// --trace trace.jsonl (one JSON object per traced attempt), and with --openmetrics
// metrics.om (the metrics at the end of every report interval). The
// summary is also printed as a table. See scenarios/README.md for the columns.
#ifndef SIM_REPORT_RUN_REPORT_H_
#define SIM_REPORT_RUN_REPORT_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/output_file.h"
#include "sim/io/output_set.h"
#include "sim/report/interval_figures.h"
#include "sim/report/openmetrics.h"
#include "sim/report/recovery.h"
#include "sim/scenario/scenario.h"
#include "sim/world/world.h"

namespace sim {

class ExpectationWindows;  // sim/report/expectations.h

class RunReport : public WorldObserver {
 public:
  // The files are written into a staging folder beside `out_dir` and swapped in whole by
  // Commit() (sim/io/output_set.h): until then `out_dir` keeps the previous run's files;
  // after, none of them (an old trace.jsonl, old dumps/). Without `timelines`,
  // timeline.csv and clients.csv are not written.
  RunReport(const Scenario& scenario, std::string out_dir, bool timelines = true);
  void set_world(const World* world) { world_ = world; }
  // Also hands every level and client row to `forward` (the windows of `apfsim check`'s
  // expectations, sim/report/expectations.h); null for none.
  void set_forward(WorldObserver* forward) { forward_ = forward; }
  // `--window`: the summary also holds every figure over this part of the run ("window"),
  // and the table shows those. Set before the run.
  void set_window(const ReportWindow& window) { figures_ = IntervalFigures(window); }
  // summary.json's "recovery" (sim/report/recovery.h), measured from the level rows. Set
  // before the run; without it the summary has no "recovery".
  void set_recovery(const RecoverySpec& spec) {
    recovery_ = std::make_unique<RecoveryTracker>(spec, scenario_.expectations);
  }
  // The windows that fold spec.reference's windowed figures (ReferenceProbes, from index
  // `first_probe` of the expectations `windows` folds); without them those figures have no
  // value in summary.json's "reference".
  void set_reference_windows(const ExpectationWindows* windows, std::size_t first_probe) {
    reference_windows_ = windows;
    reference_first_probe_ = first_probe;
  }
  // summary.json's "provenance" (sim/workflows/provenance.h); null for none.
  void set_provenance(nlohmann::json provenance) { provenance_ = std::move(provenance); }

  void OnLevelRow(apf::Nanos start, int replica, const std::string& level,
                  const LevelRow& row) override;
  void OnClientRow(apf::Nanos start, const std::string& client, const ClientRow& row) override;
  void OnDump(apf::Nanos now, int dump_index) override;
  // `apfsim run --openmetrics`: writes metrics.om (sim/report/openmetrics.h), one snapshot
  // of the metrics at the end of every report interval.
  void EnableOpenMetrics(const OpenMetricsOptions& options);
  void OnIntervalEnd(apf::Nanos end) override;
  // `apfsim run --trace`: writes the world's trace lines to trace.jsonl.
  void EnableTrace();
  void OnTrace(const std::string& json_line) override;

  // The summary of the finished run (summary.json's content).
  nlohmann::json Summary() const;
  // Writes summary.json and metrics.prom and renames every file into place.
  void Commit();
  // The terminal table of the summary.
  static std::string SummaryTable(const nlohmann::json& summary, bool colour);

 private:
  // The parts of Summary(), one per top-level key it fills.
  nlohmann::json PriorityLevelsJson(apf::Nanos end) const;
  nlohmann::json ReplicasJson(apf::Nanos end) const;
  nlohmann::json ClientsJson() const;
  nlohmann::json GatewayJson() const;
  nlohmann::json EventRateLimitJson() const;
  nlohmann::json ReplayJson() const;
  const Scenario& scenario_;
  std::string out_dir_;
  OutputSet set_;
  std::string dir_;  // where the files are written until Commit(): set_'s staging folder
  const World* world_ = nullptr;
  const ExpectationWindows* reference_windows_ = nullptr;
  std::size_t reference_first_probe_ = 0;
  std::unique_ptr<OutputFile> timeline_, clients_, trace_;
  std::unique_ptr<OpenMetricsWriter> openmetrics_;
  WorldObserver* forward_ = nullptr;
  // The worst intervals and the window's figures; Summary() closes its last interval.
  mutable IntervalFigures figures_;
  std::unique_ptr<RecoveryTracker> recovery_;
  nlohmann::json provenance_;
  std::vector<std::pair<std::string, std::string>> dumps_;  // file name, text
};

}  // namespace sim

#endif  // SIM_REPORT_RUN_REPORT_H_
