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

// Writes the text exposition one family group at a time, in the order a kube-apiserver's
// /metrics lists them (doc/model.md#metrics).
class MetricsWriter {
 public:
  explicit MetricsWriter(const World& world)
      : world_(world),
        version_(apf::ParseKubernetesVersion(world.scenario().apiservers.kubernetes_version)) {}

  std::string Write() {
    if (!world_.flow_control(0).apf_enabled()) {
      MaxInFlightGauges();
    } else {
      LevelLimitGauges();
      if (Shown(30)) DeprecatedConcurrencyLimit();
      FlowGauges();
      FlowCounters();
      WaitHistograms();
      ExecutionHistograms();
    }
    if (world_.scenario().gateway.enabled) GatewayFamilies();
    return out_;
  }

 private:
  void Header(const char* name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }

  // metrics.go's deprecated level gauges, shown in their deprecation release and hidden
  // from the next one on (component-base's deprecated metrics), as a cluster of the
  // scenario's version writes them.
  bool Shown(int deprecated_minor) const { return version_ && version_->minor <= deprecated_minor; }
  std::string Deprecation(int deprecated_minor) const {
    return version_->minor >= deprecated_minor
               ? fmt::format("(Deprecated since 1.{}.0) ", deprecated_minor)
               : std::string();
  }

  void NamesOf(const FlowMetrics::Key& k, std::string* inst, std::string* pl,
               std::string* fs) const {
    const apf::FlowControl& fc = world_.flow_control(std::get<0>(k));
    *inst = fmt::format("apiserver-{}", std::get<0>(k));
    *pl = *fc.level(std::get<1>(k)).name;
    *fs = std::get<2>(k) >= 0 ? fc.flow_schema_name(std::get<2>(k)) : "";
  }

  // With APF off: maxinflight.go's watermark gauges.
  void MaxInFlightGauges() {
    Header("apiserver_current_inflight_requests", "gauge",
           "[STABLE] Maximal number of currently used inflight request limit of this apiserver per "
           "request kind in last second.");
    for (int r = 0; r < world_.replica_count(); ++r) {
      const apf::FlowControl& fc = world_.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        out_ += fmt::format(
            "apiserver_current_inflight_requests{{instance=\"apiserver-{}\",request_kind=\"{}\"}} "
            "{}\n",
            r, *s.name == "readonly" ? "readOnly" : "mutating",
            // An unlimited pool (limit 0) has no channel whose length Go could record.
            s.nominal_cl == 0 ? 0 : s.executing_requests);
      }
    }
  }

  // The level gauges: nominal, current, lower and upper limits.
  void LevelLimitGauges() {
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
      Header(g.name, "gauge", g.help);
      for (int r = 0; r < world_.replica_count(); ++r) {
        const apf::FlowControl& fc = world_.flow_control(r);
        for (int l = 0; l < fc.level_count(); ++l) {
          const apf::LevelState s = fc.level(l);
          out_ += fmt::format("{}{{{}}} {}\n", g.name,
                              Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), g.get(s));
        }
      }
    }
    for (const char* which : {"lower", "upper"}) {
      const std::string name = fmt::format("apiserver_flowcontrol_{}_limit_seats", which);
      Header(name.c_str(), "gauge",
             which[0] == 'l' ? "[ALPHA] Configured lower bound on number of execution seats "
                               "available to each priority level"
                             : "[ALPHA] Configured upper bound on number of execution seats "
                               "available to each priority level");
      for (int r = 0; r < world_.replica_count(); ++r) {
        const apf::FlowControl& fc = world_.flow_control(r);
        for (int l = 0; l < fc.level_count(); ++l) {
          const apf::LevelState s = fc.level(l);
          const apf::PriorityLevelAllocation* a = fc.allocator()->Find(*s.name);
          if (!a) continue;  // not configured at this instant (spec.events)
          out_ += fmt::format("{}{{{}}} {}\n", name,
                              Labels(fmt::format("apiserver-{}", r), *s.name, nullptr),
                              which[0] == 'l' ? a->limits.min_cl : a->limits.max_cl);
        }
      }
    }
  }

  void DeprecatedConcurrencyLimit() {
    Header("apiserver_flowcontrol_request_concurrency_limit", "gauge",
           ("[ALPHA] " + Deprecation(30) +
            "Nominal number of execution seats configured for each priority level")
               .c_str());
    for (int r = 0; r < world_.replica_count(); ++r) {
      const apf::FlowControl& fc = world_.flow_control(r);
      for (int l = 0; l < fc.level_count(); ++l) {
        const apf::LevelState s = fc.level(l);
        out_ += fmt::format("apiserver_flowcontrol_request_concurrency_limit{{{}}} {}\n",
                            Labels(fmt::format("apiserver-{}", r), *s.name, nullptr), s.nominal_cl);
      }
    }
  }

  void FlowGauges() {
    // The per-flow-schema gauges: a series exists once a request of its (level, flow
    // schema) has been dispatched or queued, as a GaugeVec's does once set, and holds what
    // the filter holds when the metrics are written.
    const std::map<FlowMetrics::Key, FlowMetrics::Gauges> now = world_.CurrentFlowGauges();
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
    if (Shown(31)) {
      flow_gauges.push_back({"apiserver_flowcontrol_request_concurrency_in_use",
                             "[ALPHA] " + Deprecation(31) + executing_seats_help,
                             &FlowMetrics::Gauges::executing_seats});
    }
    flow_gauges.push_back({"apiserver_flowcontrol_current_inqueue_requests",
                           "[BETA] Number of requests currently pending in queues of the API "
                           "Priority and Fairness subsystem",
                           &FlowMetrics::Gauges::inqueue_requests});
    for (const FlowGauge& g : flow_gauges) {
      Header(g.name, "gauge", g.help.c_str());
      for (const auto& [k, series] : world_.flow_metrics().series()) {
        const auto it = now.find(k);
        if (series->dispatched == 0 && series->wait_executed.count == 0 && it == now.end())
          continue;
        std::string inst, pl, fs;
        NamesOf(k, &inst, &pl, &fs);
        out_ += fmt::format("{}{{{}}} {}\n", g.name, Labels(inst, pl, &fs),
                            it == now.end() ? 0 : it->second.*g.value);
      }
    }
  }

  // Dispatched and rejected counters, per flow schema (and reason).
  void FlowCounters() {
    Header("apiserver_flowcontrol_dispatched_requests_total", "counter",
           "[BETA] Number of requests executed by API Priority and Fairness subsystem");
    for (const auto& [k, series] : world_.flow_metrics().series()) {
      const FlowMetrics::Series& s = *series;
      std::string inst, pl, fs;
      NamesOf(k, &inst, &pl, &fs);
      if (s.dispatched)
        out_ += fmt::format("apiserver_flowcontrol_dispatched_requests_total{{{}}} {}\n",
                            Labels(inst, pl, &fs), s.dispatched);
    }
    Header("apiserver_flowcontrol_rejected_requests_total", "counter",
           "[BETA] Number of requests rejected by API Priority and Fairness subsystem");
    for (const auto& [k, series] : world_.flow_metrics().series()) {
      const FlowMetrics::Series& s = *series;
      std::string inst, pl, fs;
      NamesOf(k, &inst, &pl, &fs);
      for (int i = 0; i < 3; ++i) {
        if (s.rejected[i]) {
          out_ += fmt::format(
              "apiserver_flowcontrol_rejected_requests_total{{{}}} {}\n",
              Labels(inst, pl, &fs,
                     fmt::format("reason=\"{}\"",
                                 apf::RejectReasonName(static_cast<apf::RejectReason>(i)))),
              s.rejected[i]);
        }
      }
    }
  }

  void Histogram(const char* name, const std::string& labels, const FlowMetrics::WaitHistogram& h) {
    std::uint64_t cumulative = 0;
    for (size_t i = 0; i < FlowMetrics::kWaitBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out_ += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels,
                          Number(FlowMetrics::kWaitBuckets[i]), cumulative);
    }
    out_ += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels, h.count);
    out_ += fmt::format("{}_sum{{{}}} {}\n", name, labels, Number(h.sum));
    out_ += fmt::format("{}_count{{{}}} {}\n", name, labels, h.count);
  }

  void WaitHistograms() {
    Header("apiserver_flowcontrol_request_wait_duration_seconds", "histogram",
           "[BETA] Length of time a request spent waiting in its queue");
    for (const auto& [k, series] : world_.flow_metrics().series()) {
      const FlowMetrics::Series& s = *series;
      std::string inst, pl, fs;
      NamesOf(k, &inst, &pl, &fs);
      for (int executed = 1; executed >= 0; --executed) {
        const FlowMetrics::WaitHistogram& h = executed ? s.wait_executed : s.wait_rejected;
        if (h.count == 0) continue;
        Histogram("apiserver_flowcontrol_request_wait_duration_seconds",
                  Labels(inst, pl, &fs, fmt::format("execute=\"{}\"", executed ? "true" : "false")),
                  h);
      }
    }
  }

  void ExecutionHistograms() {
    // ObserveExecutionDuration: type "watch" for a WATCH, "regular" otherwise.
    Header("apiserver_flowcontrol_request_execution_seconds", "histogram",
           "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of "
           "request execution in the API Priority and Fairness subsystem");
    for (const auto& [k, series] : world_.flow_metrics().series()) {
      const FlowMetrics::Series& s = *series;
      std::string inst, pl, fs;
      NamesOf(k, &inst, &pl, &fs);
      if (s.execution_regular.count > 0) {
        Histogram("apiserver_flowcontrol_request_execution_seconds",
                  Labels(inst, pl, &fs, "type=\"regular\""), s.execution_regular);
      }
      if (s.execution_watch.count > 0) {
        Histogram("apiserver_flowcontrol_request_execution_seconds",
                  Labels(inst, pl, &fs, "type=\"watch\""), s.execution_watch);
      }
    }
  }

  // Seed 003's krm_foyer_* families ("What is measured"), as the gateway's own /metrics
  // would show them at the run's end: fixed label sets, never a user or a scope.
  void GatewayFamilies() {
    const GatewaySpec& spec = world_.scenario().gateway;
    const GatewayCounts& g = world_.gateway();
    Header("krm_foyer_bound_limit", "gauge", "The configured limit of each bound, in its own unit");
    const std::pair<const char*, double> limits[] = {
        {"session_request_rate", spec.session_request_rate},
        {"session_request_burst", spec.session_request_burst},
        {"session_concurrent_requests", spec.max_session_concurrent_requests},
        {"concurrent_requests", spec.max_concurrent_requests},
        {"session_streams", spec.max_session_streams},
        {"streams", spec.max_streams},
        {"response_duration", apf::ToSeconds(spec.max_response_duration)},
        {"response_bytes", static_cast<double>(spec.max_response_bytes)},
    };
    for (const auto& [bound, limit] : limits) {
      out_ += fmt::format("krm_foyer_bound_limit{{bound=\"{}\"}} {}\n", bound, Number(limit));
    }
    Header("krm_foyer_bound_usage_ratio", "histogram",
           "How much of its bound each request or response let through used, from 0 to 1");
    for (int b = 0; b < kGatewayBounds; ++b) {
      const GatewayUsage& u = g.usage[static_cast<std::size_t>(b)];
      const char* bound = GatewayBoundName(static_cast<GatewayBound>(b));
      for (std::size_t i = 0; i < GatewayUsage::kUsageBuckets.size(); ++i) {
        out_ += fmt::format("krm_foyer_bound_usage_ratio_bucket{{bound=\"{}\",le=\"{}\"}} {}\n",
                            bound, Number(GatewayUsage::kUsageBuckets[i]), u.le[i]);
      }
      out_ += fmt::format("krm_foyer_bound_usage_ratio_bucket{{bound=\"{}\",le=\"+Inf\"}} {}\n",
                          bound, u.count);
      out_ +=
          fmt::format("krm_foyer_bound_usage_ratio_sum{{bound=\"{}\"}} {}\n", bound, Number(u.sum));
      out_ += fmt::format("krm_foyer_bound_usage_ratio_count{{bound=\"{}\"}} {}\n", bound, u.count);
    }
    // A refusal for the request rate counts under session_request_burst; the two
    // per-response bounds count their cuts, and response_bytes its 502s too.
    Header("krm_foyer_bound_reached_total", "counter",
           "Requests refused, and responses cut short, because a bound was reached");
    const std::pair<const char*, std::uint64_t> reached[] = {
        {"session_request_burst", g.session_request_burst},
        {"session_concurrent_requests", g.session_concurrent_requests},
        {"concurrent_requests", g.concurrent_requests},
        {"session_streams", g.session_streams},
        {"streams", g.streams_refused},
        {"response_duration", g.cut_response_duration},
        {"response_bytes", g.response_too_large + g.cut_response_bytes},
    };
    for (const auto& [bound, n] : reached) {
      out_ += fmt::format("krm_foyer_bound_reached_total{{bound=\"{}\"}} {}\n", bound, n);
    }
    Header("krm_foyer_requests_in_flight", "gauge",
           "Requests through /k8s open now, watches included");
    out_ += fmt::format("krm_foyer_requests_in_flight {}\n", g.in_flight);
    Header("krm_foyer_streams_open", "gauge", "Streams through /stream open now");
    out_ += fmt::format("krm_foyer_streams_open {}\n", g.streams);
    // The seed's causes are krm-foyer's own cuts; a stream whose browser stopped reading
    // ends at the write timeout, which the seed does not count here.
    Header("krm_foyer_responses_cut_short_total", "counter",
           "Responses krm-foyer cut short, by why");
    const std::pair<const char*, std::uint64_t> cuts[] = {
        {"response_duration", g.cut_response_duration},
        {"response_bytes", g.cut_response_bytes},
        {"session_ended", g.cut_session_ended},
    };
    for (const auto& [cause, n] : cuts) {
      out_ += fmt::format("krm_foyer_responses_cut_short_total{{cause=\"{}\"}} {}\n", cause, n);
    }
    Header("krm_foyer_interruptions_total", "counter",
           "Answers krm-foyer gave instead of the API server's, by the reason in the "
           "Krm-Foyer-Interruption header");
    const std::pair<GatewayRefusal, std::uint64_t> interruptions[] = {
        {GatewayRefusal::kRequestRateExceeded, g.session_request_burst},
        {GatewayRefusal::kTooManyConcurrentRequests,
         g.session_concurrent_requests + g.concurrent_requests},
        {GatewayRefusal::kTooManyStreams, g.session_streams + g.streams_refused},
        {GatewayRefusal::kResponseTooLarge, g.response_too_large},
        {GatewayRefusal::kSessionEnded, g.session_ended_refused},
    };
    for (const auto& [why, n] : interruptions) {
      out_ += fmt::format("krm_foyer_interruptions_total{{reason=\"{}\"}} {}\n",
                          GatewayRefusalName(why), n);
    }
  }

  const World& world_;
  const std::optional<apf::KubernetesVersion> version_;
  std::string out_;
};

}  // namespace

std::string MetricsText(const World& world) { return MetricsWriter(world).Write(); }

}  // namespace sim
