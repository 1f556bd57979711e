#include "sim/report/metrics_text.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <vector>

#include "apf/config/bootstrap.h"
#include "sim/world/world.h"

namespace sim {

namespace {

std::string Labels(const std::string& instance, const std::string& pl, const std::string* fs,
                   const std::string& extra = "") {
  std::string out = fmt::format("instance=\"{}\",priority_level=\"{}\"", instance, pl);
  if (fs) out += fmt::format(",flow_schema=\"{}\"", *fs);
  if (!extra.empty()) out += "," + extra;
  return out;
}

std::string Number(double v) { return fmt::format("{}", v); }

}  // namespace

std::string MetricsText(World& world) {
  std::string out;
  auto header = [&](const char* name, const char* type, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  const bool apf = world.flow_control(0).apf_enabled();
  if (!apf) {
    header("apiserver_current_inflight_requests", "gauge",
           "[STABLE] Maximal number of currently used inflight request limit of this apiserver per "
           "request kind in last second.");
    for (int r = 0; r < world.replica_count(); ++r) {
      apf::FlowControl& fc = world.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        out += fmt::format(
            "apiserver_current_inflight_requests{{instance=\"apiserver-{}\",request_kind=\"{}\"}} "
            "{}\n",
            r, *s.name == "readonly" ? "readOnly" : "mutating",
            // An unlimited pool (limit 0) has no channel whose length Go could record.
            s.nominal_cl == 0 ? 0 : s.executing_requests);
      }
    }
    return out;
  }
  struct Gauge {
    const char* name;
    const char* help;
    int (*get)(const apf::LevelState&);
  };
  const Gauge gauges[] = {
      {"apiserver_flowcontrol_nominal_limit_seats",
       "[BETA] Nominal number of execution seats configured for each priority level",
       [](const apf::LevelState& s) { return s.nominal_cl; }},
      {"apiserver_flowcontrol_current_limit_seats",
       "[ALPHA] current derived number of execution seats available to each priority level",
       [](const apf::LevelState& s) { return s.current_cl; }},
  };
  for (const Gauge& g : gauges) {
    header(g.name, "gauge", g.help);
    for (int r = 0; r < world.replica_count(); ++r) {
      apf::FlowControl& fc = world.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        out += fmt::format("{}{{{}}} {}\n", g.name,
                           Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), g.get(s));
      }
    }
  }
  for (const char* which : {"lower", "upper"}) {
    const std::string name = fmt::format("apiserver_flowcontrol_{}_limit_seats", which);
    header(name.c_str(), "gauge",
           which[0] == 'l' ? "[ALPHA] Configured lower bound on number of execution seats "
                             "available to each priority level"
                           : "[ALPHA] Configured upper bound on number of execution seats "
                             "available to each priority level");
    for (int r = 0; r < world.replica_count(); ++r) {
      apf::FlowControl& fc = world.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        const apf::PriorityLevelAllocation* a = fc.allocator()->Find(*s.name);
        out += fmt::format("{}{{{}}} {}\n", name,
                           Labels(fmt::format("apiserver-{}", r), *s.name, nullptr),
                           which[0] == 'l' ? a->limits.min_cl : a->limits.max_cl);
      }
    }
  }
  const FlowMetrics& m = world.flow_metrics();
  auto names = [&](const FlowMetrics::Key& k, std::string* inst, std::string* pl, std::string* fs) {
    apf::FlowControl& fc = world.flow_control(std::get<0>(k));
    *inst = fmt::format("apiserver-{}", std::get<0>(k));
    *pl = *fc.level(std::get<1>(k)).name;
    *fs = std::get<2>(k) >= 0 ? fc.config().flow_schemas[std::get<2>(k)].metadata.name : "";
  };
  // metrics.go's deprecated level gauges, shown in their deprecation release and hidden
  // from the next one on (component-base's deprecated metrics), as a cluster of the
  // scenario's version writes them.
  const std::optional<apf::KubernetesVersion> version =
      apf::ParseKubernetesVersion(world.scenario().apiservers.kubernetes_version);
  auto shown = [&](int deprecated_minor) { return version && version->minor <= deprecated_minor; };
  auto deprecation = [&](int deprecated_minor) {
    return version->minor >= deprecated_minor
               ? fmt::format("(Deprecated since 1.{}.0) ", deprecated_minor)
               : std::string();
  };
  if (shown(30)) {
    header("apiserver_flowcontrol_request_concurrency_limit", "gauge",
           ("[ALPHA] " + deprecation(30) +
            "Nominal number of execution seats configured for each priority level")
               .c_str());
    for (int r = 0; r < world.replica_count(); ++r) {
      apf::FlowControl& fc = world.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        out += fmt::format("apiserver_flowcontrol_request_concurrency_limit{{{}}} {}\n",
                           Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), s.nominal_cl);
      }
    }
  }
  // The per-flow-schema gauges: a series exists once a request of its (level, flow
  // schema) has been dispatched or queued, as a GaugeVec's does once set, and holds what
  // the filter holds when the metrics are written.
  const std::map<FlowMetrics::Key, FlowMetrics::Gauges> now = world.CurrentFlowGauges();
  struct FlowGauge {
    const char* name;
    std::string help;
    std::int64_t FlowMetrics::Gauges::*value;
  };
  const std::string executing_seats_help =
      "Concurrency (number of seats) occupied by the currently executing (initial stage for a "
      "WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem";
  std::vector<FlowGauge> flow_gauges = {
      {"apiserver_flowcontrol_current_executing_requests",
       "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution "
       "stage in the API Priority and Fairness subsystem",
       &FlowMetrics::Gauges::executing_requests},
      {"apiserver_flowcontrol_current_executing_seats", "[BETA] " + executing_seats_help,
       &FlowMetrics::Gauges::executing_seats},
  };
  if (shown(31)) {
    flow_gauges.push_back({"apiserver_flowcontrol_request_concurrency_in_use",
                           "[ALPHA] " + deprecation(31) + executing_seats_help,
                           &FlowMetrics::Gauges::executing_seats});
  }
  flow_gauges.push_back({"apiserver_flowcontrol_current_inqueue_requests",
                         "[BETA] Number of requests currently pending in queues of the API "
                         "Priority and Fairness subsystem",
                         &FlowMetrics::Gauges::inqueue_requests});
  for (const FlowGauge& g : flow_gauges) {
    header(g.name, "gauge", g.help.c_str());
    for (const auto& [k, series] : m.series()) {
      const auto it = now.find(k);
      if (series->dispatched == 0 && series->wait_executed.count == 0 && it == now.end()) continue;
      std::string inst, pl, fs;
      names(k, &inst, &pl, &fs);
      out += fmt::format("{}{{{}}} {}\n", g.name, Labels(inst, pl, &fs),
                         it == now.end() ? 0 : it->second.*g.value);
    }
  }
  header("apiserver_flowcontrol_dispatched_requests_total", "counter",
         "[BETA] Number of requests executed by API Priority and Fairness subsystem");
  for (const auto& [k, series] : m.series()) {
    const FlowMetrics::Series& s = *series;
    std::string inst, pl, fs;
    names(k, &inst, &pl, &fs);
    if (s.dispatched)
      out += fmt::format("apiserver_flowcontrol_dispatched_requests_total{{{}}} {}\n",
                         Labels(inst, pl, &fs), s.dispatched);
  }
  header("apiserver_flowcontrol_rejected_requests_total", "counter",
         "[BETA] Number of requests rejected by API Priority and Fairness subsystem");
  for (const auto& [k, series] : m.series()) {
    const FlowMetrics::Series& s = *series;
    std::string inst, pl, fs;
    names(k, &inst, &pl, &fs);
    for (int i = 0; i < 3; ++i) {
      if (s.rejected[i]) {
        out += fmt::format(
            "apiserver_flowcontrol_rejected_requests_total{{{}}} {}\n",
            Labels(inst, pl, &fs,
                   fmt::format("reason=\"{}\"",
                               apf::RejectReasonName(static_cast<apf::RejectReason>(i)))),
            s.rejected[i]);
      }
    }
  }
  auto histogram = [&](const char* name, const std::string& labels,
                       const FlowMetrics::WaitHistogram& h) {
    std::uint64_t cumulative = 0;
    for (size_t i = 0; i < FlowMetrics::kWaitBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels,
                         Number(FlowMetrics::kWaitBuckets[i]), cumulative);
    }
    out += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels, h.count);
    out += fmt::format("{}_sum{{{}}} {}\n", name, labels, Number(h.sum));
    out += fmt::format("{}_count{{{}}} {}\n", name, labels, h.count);
  };
  header("apiserver_flowcontrol_request_wait_duration_seconds", "histogram",
         "[BETA] Length of time a request spent waiting in its queue");
  for (const auto& [k, series] : m.series()) {
    const FlowMetrics::Series& s = *series;
    std::string inst, pl, fs;
    names(k, &inst, &pl, &fs);
    for (int executed = 1; executed >= 0; --executed) {
      const FlowMetrics::WaitHistogram& h = executed ? s.wait_executed : s.wait_rejected;
      if (h.count == 0) continue;
      histogram("apiserver_flowcontrol_request_wait_duration_seconds",
                Labels(inst, pl, &fs, fmt::format("execute=\"{}\"", executed ? "true" : "false")),
                h);
    }
  }
  // ObserveExecutionDuration: type "watch" for a WATCH, "regular" otherwise.
  header("apiserver_flowcontrol_request_execution_seconds", "histogram",
         "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of "
         "request execution in the API Priority and Fairness subsystem");
  for (const auto& [k, series] : m.series()) {
    const FlowMetrics::Series& s = *series;
    std::string inst, pl, fs;
    names(k, &inst, &pl, &fs);
    if (s.execution_regular.count > 0) {
      histogram("apiserver_flowcontrol_request_execution_seconds",
                Labels(inst, pl, &fs, "type=\"regular\""), s.execution_regular);
    }
    if (s.execution_watch.count > 0) {
      histogram("apiserver_flowcontrol_request_execution_seconds",
                Labels(inst, pl, &fs, "type=\"watch\""), s.execution_watch);
    }
  }
  return out;
}

}  // namespace sim
