#include "sim/report/metrics_text.h"

#include <fmt/format.h>

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
  header("apiserver_flowcontrol_current_executing_seats", "gauge",
         "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage "
         "for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem");
  for (int r = 0; r < world.replica_count(); ++r) {
    apf::FlowControl& fc = world.flow_control(r);
    for (int l = 0; l < fc.level_count(); ++l) {
      const apf::LevelState s = fc.level(l);
      out +=
          fmt::format("apiserver_flowcontrol_current_executing_seats{{{}}} {}\n",
                      Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), s.executing_seats);
    }
  }
  header("apiserver_flowcontrol_current_inqueue_requests", "gauge",
         "[BETA] Number of requests currently pending in queues of the API Priority and Fairness "
         "subsystem");
  for (int r = 0; r < world.replica_count(); ++r) {
    apf::FlowControl& fc = world.flow_control(r);
    for (int l = 0; l < fc.level_count(); ++l) {
      const apf::LevelState s = fc.level(l);
      out +=
          fmt::format("apiserver_flowcontrol_current_inqueue_requests{{{}}} {}\n",
                      Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), s.waiting_requests);
    }
  }
  const FlowMetrics& m = world.flow_metrics();
  auto names = [&](const FlowMetrics::Key& k, std::string* inst, std::string* pl, std::string* fs) {
    apf::FlowControl& fc = world.flow_control(std::get<0>(k));
    *inst = fmt::format("apiserver-{}", std::get<0>(k));
    *pl = *fc.level(std::get<1>(k)).name;
    *fs = std::get<2>(k) >= 0 ? fc.config().flow_schemas[std::get<2>(k)].metadata.name : "";
  };
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
  header("apiserver_flowcontrol_request_wait_duration_seconds", "histogram",
         "[BETA] Length of time a request spent waiting in its queue");
  for (const auto& [k, series] : m.series()) {
    const FlowMetrics::Series& s = *series;
    std::string inst, pl, fs;
    names(k, &inst, &pl, &fs);
    for (int executed = 1; executed >= 0; --executed) {
      const FlowMetrics::WaitHistogram& h = executed ? s.wait_executed : s.wait_rejected;
      if (h.count == 0) continue;
      const std::string exec = fmt::format("execute=\"{}\"", executed ? "true" : "false");
      std::uint64_t cumulative = 0;
      for (size_t i = 0; i < FlowMetrics::kWaitBuckets.size(); ++i) {
        cumulative += h.buckets[i];
        out += fmt::format(
            "apiserver_flowcontrol_request_wait_duration_seconds_bucket{{{},le=\"{}\"}} {}\n",
            Labels(inst, pl, &fs, exec), Number(FlowMetrics::kWaitBuckets[i]), cumulative);
      }
      out += fmt::format(
          "apiserver_flowcontrol_request_wait_duration_seconds_bucket{{{},le=\"+Inf\"}} {}\n",
          Labels(inst, pl, &fs, exec), h.count);
      out += fmt::format("apiserver_flowcontrol_request_wait_duration_seconds_sum{{{}}} {}\n",
                         Labels(inst, pl, &fs, exec), Number(h.sum));
      out += fmt::format("apiserver_flowcontrol_request_wait_duration_seconds_count{{{}}} {}\n",
                         Labels(inst, pl, &fs, exec), h.count);
    }
  }
  return out;
}

}  // namespace sim
