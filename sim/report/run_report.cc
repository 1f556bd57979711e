#include "sim/report/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "apf/queueing/seat_seconds.h"
#include "sim/io/csv.h"
#include "sim/io/duration.h"
#include "sim/io/text.h"
#include "sim/report/client_metrics_text.h"
#include "sim/report/debug_dumps.h"
#include "sim/report/metrics_text.h"
#include "sim/report/reference_figures.h"

namespace sim {
namespace {

// Seconds with microsecond resolution, trailing zeros dropped: stable across machines.
std::string Seconds(apf::Nanos ns) { return FormatSeconds(ns / 1000 * 1000); }

// A level's rejections by reason, in the order of LevelCounters::rejected.
nlohmann::json RejectedJson(const std::uint64_t (&rejected)[kRejectionKinds]) {
  nlohmann::json j;
  for (int k = 0; k < kRejectionKinds; ++k)
    j[apf::RejectReasonName(static_cast<apf::RejectReason>(k))] = rejected[k];
  return j;
}

nlohmann::json Percentiles(const LatencyHistogram& h) { return QuantilesJson(h); }

bool HasClosedLoop(const ClientSpec& spec) {
  for (const TrafficSpec& t : spec.traffic) {
    if (t.kind == TrafficSpec::Kind::kClosedLoop) return true;
  }
  return false;
}

// A MaxInFlight pool whose limit is 0 gets no channel in WithMaxInFlightLimit
// (k8s.io/apiserver/pkg/server/filters/maxinflight.go): it is unlimited, not limited to 0
// seats. summary.json keeps its nominalCL 0 and says "unlimited": true beside it.
bool UnlimitedPool(const apf::FlowControl& fc, const LevelTimeline& tl) {
  return !fc.apf_enabled() && tl.nominal_cl() == 0;
}

// The run's recovery (sim/report/recovery.h), one line per level.
std::string RecoveryTable(const nlohmann::json& r, bool colour) {
  const std::string from =
      r["event"].is_null()
          ? fmt::format("the other run's event at {} s", r["atSeconds"].dump())
          : fmt::format("spec.events[{}] at {} s", r["event"].dump(), r["atSeconds"].dump());
  std::string out = "\n";
  const std::string title =
      fmt::format("recovery from {}\n{:<24} {:>12} {:>15}  {}", from, "priority level",
                  "recovered at", "time to recover", "bounds");
  out += (colour ? "\033[1m" + title + "\033[0m" : title) + "\n";
  for (auto& [name, l] : r["levels"].items()) {
    const bool never = l["recoveredAtSeconds"].is_null();
    std::string line = fmt::format(
        "{:<24} {:>12} {:>15}  {} ({})", name,
        never ? std::string("never") : fmt::format("{} s", l["recoveredAtSeconds"].dump()),
        never ? std::string("-") : fmt::format("{} s", l["timeToRecoverSeconds"].dump()),
        l["bounds"].get<std::string>(), l["boundsFrom"].get<std::string>());
    if (never && colour) line = "\033[31m" + line + "\033[0m";
    out += line + "\n";
  }
  return out;
}

}  // namespace

RunReport::RunReport(const Scenario& scenario, std::string out_dir, bool timelines)
    : scenario_(scenario),
      out_dir_(std::move(out_dir)),
      set_(out_dir_, {"summary.json", "timeline.csv", "clients.csv", "metrics.prom", "metrics.om",
                      "trace.jsonl", "dumps"}),
      dir_(set_.staging_dir()) {
  if (!timelines) return;
  timeline_ = std::make_unique<OutputFile>(dir_ + "/timeline.csv", out_dir_ + "/timeline.csv");
  timeline_->Write(
      "time_s,replica,priority_level,executing_requests,executing_seats,peak_executing_seats,"
      "waiting_requests,waiting_seats,current_cl,nominal_cl,dispatched,rejected_queue_full,"
      "rejected_time_out,rejected_concurrency_limit,wait_p50_s,wait_p99_s,retry_after_s\n");
  clients_ = std::make_unique<OutputFile>(dir_ + "/clients.csv", out_dir_ + "/clients.csv");
  // Behind a gateway: its answers by reason and its cuts by cause (doc/gateway.md), in the
  // order of GatewayRefusal and GatewayCut.
  clients_->Write(
      scenario_.gateway.enabled
          ? "time_s,client,calls,attempts,succeeded,failed,http429,latency_p50_s,latency_p99_s,"
            "gateway_request_rate_exceeded,gateway_too_many_concurrent_requests,"
            "gateway_too_many_streams,gateway_response_too_large,gateway_session_ended_401,"
            "gateway_cut_response_duration,gateway_cut_session_ended,"
            "gateway_ended_stream_write_timeout,gateway_cut_response_bytes\n"
          : "time_s,client,calls,attempts,succeeded,failed,http429,latency_p50_s,latency_p99_s\n");
}

void RunReport::OnLevelRow(apf::Nanos start, int replica, const std::string& level,
                           const LevelRow& row) {
  if (forward_) forward_->OnLevelRow(start, replica, level, row);
  figures_.OnLevelRow(start, level, row);
  if (recovery_) recovery_->OnLevelRow(start, level, row);
  if (!timeline_) return;
  std::string wait_p50, wait_p99;
  if (row.waits_dispatched > 0) {
    wait_p50 = Seconds(row.wait_p50);
    wait_p99 = Seconds(row.wait_p99);
  }
  timeline_->Write(fmt::format(
      "{},apiserver-{},{},{:.3f},{:.3f},{},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{}\n",
      Seconds(start), replica, CsvField(level), row.executing_requests, row.executing_seats,
      row.peak_executing_seats, row.waiting_requests, row.waiting_seats, row.current_cl,
      row.nominal_cl, row.counters.dispatched, row.counters.rejected[0], row.counters.rejected[1],
      row.counters.rejected[2], wait_p50, wait_p99, row.retry_after));
}

void RunReport::OnClientRow(apf::Nanos start, const std::string& client, const ClientRow& row) {
  if (forward_) forward_->OnClientRow(start, client, row);
  figures_.OnClientRow(start, client, row);
  if (!clients_) return;
  std::string p50, p99;
  if (row.succeeded + row.failed > 0) {
    p50 = Seconds(row.latency_p50);
    p99 = Seconds(row.latency_p99);
  }
  std::string line =
      fmt::format("{},{},{},{},{},{},{},{},{}", Seconds(start), CsvField(client), row.calls,
                  row.attempts, row.succeeded, row.failed, row.http429, p50, p99);
  if (scenario_.gateway.enabled) {
    for (std::uint64_t n : row.gateway_refused) line += fmt::format(",{}", n);
    for (std::uint64_t n : row.gateway_cut) line += fmt::format(",{}", n);
  }
  line += "\n";
  clients_->Write(line);
}

void RunReport::EnableTrace() {
  if (!trace_)
    trace_ = std::make_unique<OutputFile>(dir_ + "/trace.jsonl", out_dir_ + "/trace.jsonl");
}

void RunReport::OnTrace(const std::string& json_line) {
  if (!trace_) return;
  trace_->Write(json_line);
  trace_->Write("\n");
}

void RunReport::EnableOpenMetrics(const OpenMetricsOptions& options) {
  if (!openmetrics_) {
    openmetrics_ = std::make_unique<OpenMetricsWriter>(dir_ + "/metrics.om", options);
  }
}

void RunReport::OnIntervalEnd(apf::Nanos end) {
  if (openmetrics_)
    openmetrics_->AddSnapshot(end, MetricsText(*world_) + ClientMetricsText(*world_));
}

void RunReport::OnDump(apf::Nanos now, int dump_index) {
  (void)dump_index;
  for (int r = 0; r < world_->replica_count(); ++r) {
    const std::string prefix = fmt::format("dumps/{}s-apiserver-{}-", Seconds(now), r);
    DebugDumps dumps = MakeDebugDumps(*world_, r, now);
    dumps_.emplace_back(prefix + "dump_priority_levels.txt", dumps.priority_levels);
    dumps_.emplace_back(prefix + "dump_queues.txt", dumps.queues);
    dumps_.emplace_back(prefix + "dump_requests.txt", dumps.requests);
  }
}

// Each replica's levels on their own (the limits are per replica).
nlohmann::json RunReport::ReplicasJson(apf::Nanos end) const {
  nlohmann::json replicas = nlohmann::json::array();
  for (int r = 0; r < world_->replica_count(); ++r) {
    nlohmann::json replica_levels = nlohmann::json::object();
    const apf::FlowControl& fc = world_->flow_control(r);
    for (int l = 0; l < fc.level_count(); ++l) {
      const std::string& name = *fc.level(l).name;
      const LevelTimeline& tl = world_->level_timeline(r, l);
      const LevelCounters& c = tl.totals();
      nlohmann::json lj;
      lj["nominalCL"] = tl.nominal_cl();
      lj["meanCurrentCL"] = Round6(tl.mean_current_cl(end));
      lj["maxSeats"] =
          tl.max_seats() > 0 ? nlohmann::json(tl.max_seats()) : nlohmann::json(nullptr);
      lj["peakRequestSeats"] = tl.peak_request_seats();
      lj["dispatched"] = c.dispatched;
      lj["rejected"] = RejectedJson(c.rejected);
      lj["waitSeconds"] = Percentiles(tl.total_waits());
      lj["peakExecutingSeats"] = tl.peak_executing_seats();
      if (UnlimitedPool(fc, tl)) lj["unlimited"] = true;
      replica_levels[name] = lj;
    }
    replicas.push_back(
        {{"name", fmt::format("apiserver-{}", r)}, {"priorityLevels", replica_levels}});
  }
  return replicas;
}

// Per level, summed over replicas (limits per replica: they are the same on each).
nlohmann::json RunReport::PriorityLevelsJson(apf::Nanos end) const {
  nlohmann::json levels = nlohmann::json::object();
  // The cluster-wide view: counts summed, limits and peaks per replica (the largest),
  // waits merged.
  const apf::FlowControl& fc0 = world_->flow_control(0);
  for (int l = 0; l < fc0.level_count(); ++l) {
    const std::string& name = *fc0.level(l).name;
    LatencyHistogram waits;
    std::uint64_t dispatched = 0, rejected[3] = {0, 0, 0};
    int peak_exec = 0, peak_req = 0;
    double mean_cl = 0;
    for (int r = 0; r < world_->replica_count(); ++r) {
      const LevelTimeline& tl = world_->level_timeline(r, l);
      waits.Merge(tl.total_waits());
      dispatched += tl.totals().dispatched;
      for (int k = 0; k < 3; ++k) rejected[k] += tl.totals().rejected[k];
      peak_exec = std::max(peak_exec, tl.peak_executing_seats());
      peak_req = std::max(peak_req, tl.peak_request_seats());
      mean_cl += tl.mean_current_cl(end) / world_->replica_count();
    }
    const LevelTimeline& tl0 = world_->level_timeline(0, l);
    nlohmann::json lj;
    lj["nominalCL"] = tl0.nominal_cl();
    lj["meanCurrentCL"] = Round6(mean_cl);
    lj["maxSeats"] =
        tl0.max_seats() > 0 ? nlohmann::json(tl0.max_seats()) : nlohmann::json(nullptr);
    lj["peakRequestSeats"] = peak_req;
    lj["dispatched"] = dispatched;
    lj["rejected"] = RejectedJson(rejected);
    lj["waitSeconds"] = Percentiles(waits);
    lj["peakExecutingSeats"] = peak_exec;
    lj["worstInterval"] = figures_.LevelWorst(name);
    if (UnlimitedPool(fc0, tl0)) lj["unlimited"] = true;
    levels[name] = lj;
  }
  return levels;
}

nlohmann::json RunReport::ClientsJson() const {
  nlohmann::json clients = nlohmann::json::object();
  for (int c = 0; c < world_->client_count(); ++c) {
    const ClientTimeline& tl = world_->client_timeline(c);
    const ClientRow& t = tl.totals();
    nlohmann::json cj;
    cj["calls"] = t.calls;
    cj["attempts"] = t.attempts;
    cj["succeeded"] = t.succeeded;
    cj["failed"] = t.failed;
    cj["http429"] = t.http429;
    cj["latencySeconds"] = Percentiles(tl.total_latencies());
    nlohmann::json errors = nlohmann::json::object();
    for (const auto& [message, count] : world_->client_errors(c)) errors[message] = count;
    cj["errors"] = errors;
    // The client's story (scenarios/README.md, "summary.json").
    const ClientDistributions& d = tl.total_distributions();
    cj["callsRejected"] = t.calls_rejected;
    // Only where some event stops a replica, so that other runs' summaries keep their bytes.
    if (scenario_.has_replica_events) cj["brokenConnections"] = t.broken_connections;
    cj["pendingAtEnd"] = tl.pending();
    nlohmann::json client_levels = nlohmann::json::object();
    for (const World::LevelAttempts& row : world_->client_levels(c)) {
      nlohmann::json& lj = client_levels[std::string(row.level)];
      if (!lj.contains("attempts"))
        lj = {{"attempts", 0}, {"flowSchemas", nlohmann::json::object()}};
      lj["attempts"] = lj["attempts"].get<std::uint64_t>() + row.attempts;
      if (!row.flow_schema.empty()) lj["flowSchemas"][std::string(row.flow_schema)] = row.attempts;
    }
    cj["levels"] = client_levels;
    cj["queueWaitSeconds"] = Percentiles(d.queue_wait);
    cj["throttleWaitSeconds"] = Percentiles(d.throttle_wait);
    const ClientSpec& spec = world_->client_spec(c);
    if (HasClosedLoop(spec)) cj["iterationSeconds"] = Percentiles(d.iteration);
    cj["worstInterval"] = figures_.ClientWorst(spec.name);
    clients[spec.name] = cj;
  }
  return clients;
}

nlohmann::json RunReport::GatewayJson() const {
  // Refusals by the bound's field name and cuts by cause, as seed 003's metrics label
  // them (doc/gateway.md#what-the-results-show); the two camelCase totals come first.
  const GatewayCounts& g = world_->gateway();
  return {{"requestRateExceeded", g.session_request_burst},
          {"tooManyConcurrentRequests", g.session_concurrent_requests + g.concurrent_requests},
          {"tooManyStreams", g.session_streams + g.streams_refused},
          {"sessionEnded401", g.session_ended_refused},
          {"responseTooLarge", g.response_too_large},
          {"refused",
           {{"session_request_burst", g.session_request_burst},
            {"session_concurrent_requests", g.session_concurrent_requests},
            {"concurrent_requests", g.concurrent_requests},
            {"session_streams", g.session_streams},
            {"streams", g.streams_refused},
            {"response_bytes", g.response_too_large}}},
          {"cutShort",
           {{"response_duration", g.cut_response_duration},
            {"session_ended", g.cut_session_ended},
            {"stream_write_timeout", g.ended_stream_write_timeout},
            {"response_bytes", g.cut_response_bytes}}},
          {"peak",
           {{"session_concurrent_requests", g.peak_session_in_flight},
            {"concurrent_requests", g.peak_in_flight},
            {"session_streams", g.peak_session_streams},
            {"streams", g.peak_streams}}},
          {"limits",
           {{"session_request_rate", scenario_.gateway.session_request_rate},
            {"session_request_burst", scenario_.gateway.session_request_burst},
            {"session_concurrent_requests", scenario_.gateway.max_session_concurrent_requests},
            {"concurrent_requests", scenario_.gateway.max_concurrent_requests},
            {"session_streams", scenario_.gateway.max_session_streams},
            {"streams", scenario_.gateway.max_streams},
            {"response_duration", apf::ToSeconds(scenario_.gateway.max_response_duration)},
            {"response_bytes", scenario_.gateway.max_response_bytes},
            {"session_check_interval", apf::ToSeconds(scenario_.gateway.session_check_interval)},
            {"stream_write_timeout", apf::ToSeconds(scenario_.gateway.stream_write_timeout)}}}};
}

nlohmann::json RunReport::ReplayJson() const {
  // What was replayed, and (spec.auditLog) what of the log was left out and why.
  nlohmann::json replay;
  replay["replayedCalls"] = world_->replayed_calls();
  if (scenario_.audit_log.enabled) {
    const ReplayStats& scan = scenario_.audit_log.scan;
    std::int64_t skipped = 0;
    nlohmann::json reasons = nlohmann::json::object();
    for (const auto& [reason, count] : scan.skipped) {
      reasons[reason] = count;
      skipped += count;
    }
    nlohmann::json codes = nlohmann::json::object();
    for (const auto& [code, count] : scan.recorded_codes) codes[std::to_string(code)] = count;
    replay["auditLog"] = {
        {"lines", scan.lines}, {"events", scan.events}, {"identities", scan.identities},
        {"skipped", skipped},  {"reasons", reasons},    {"recordedCodes", codes}};
  }
  return replay;
}

nlohmann::json RunReport::EventRateLimitJson() const {
  // Which bucket is too small: the refusals by the type of each limit configured.
  const Apiserver::EventRefusals refusals = world_->event_refusals();
  nlohmann::json by_type = nlohmann::json::object();
  for (const EventRateLimitSpec& l : scenario_.apiservers.event_rate_limits) {
    for (size_t t = 0; t < refusals.by_type.size(); ++t) {
      const std::string_view name = apf::EventLimitTypeName(static_cast<apf::EventLimitType>(t));
      if (name == l.type) by_type[l.type] = refusals.by_type[t];
    }
  }
  return {{"refusedEvents", refusals.events}, {"refusalsByLimitType", by_type}};
}

nlohmann::json RunReport::Summary() const {
  const apf::Nanos end = world_->now();
  nlohmann::json j;
  j["scenario"] = scenario_.name;
  j["seed"] = scenario_.seed;
  j["durationSeconds"] = apf::ToSeconds(end);
  j["intervalSeconds"] = apf::ToSeconds(scenario_.interval);
  j["marks"] = nlohmann::json::array();
  for (const Mark& m : scenario_.marks) {
    j["marks"].push_back({{"atSeconds", apf::ToSeconds(m.at)}, {"label", m.label}});
  }
  // spec.events in the order they ran; absent without events (the numeric "events" below is
  // the engine's event count).
  if (!scenario_.events.empty()) {
    nlohmann::json events = nlohmann::json::array();
    for (const ScenarioEvent& e : scenario_.events) {
      nlohmann::json resources = nlohmann::json::array();
      for (const ResourceSpec& r : e.resources) {
        resources.push_back({{"resource", r.resource},
                             {"apiGroup", r.api_group},
                             {"objects", r.objects},
                             {"averageBytes", r.average_bytes}});
      }
      nlohmann::json entry = {{"atSeconds", apf::ToSeconds(e.at)}, {"action", e.action}};
      if (e.action == "resources") entry["resources"] = resources;
      if (e.changes_replicas()) {
        entry["replica"] = fmt::format("apiserver-{}", e.replica);
        // A restart's start, when the run reaches it.
        if (e.action == "restart" && e.at + scenario_.restart_delay < scenario_.duration)
          entry["startsAtSeconds"] = apf::ToSeconds(e.at + scenario_.restart_delay);
      }
      if (e.action == "apply") {
        nlohmann::json objects = nlohmann::json::array();
        for (const LoadedPriorityLevel& pl : e.apply.priority_levels) {
          objects.push_back(
              {{"kind", "PriorityLevelConfiguration"}, {"name", pl.object.metadata.name}});
        }
        for (const LoadedFlowSchema& fs : e.apply.flow_schemas) {
          objects.push_back({{"kind", "FlowSchema"}, {"name", fs.object.metadata.name}});
        }
        entry["apply"] = objects;
      }
      if (e.action == "delete") {
        nlohmann::json objects = nlohmann::json::array();
        for (const DeletedObject& d : e.deletes) {
          objects.push_back({{"kind", d.kind}, {"name", d.name}});
        }
        entry["delete"] = objects;
      }
      events.push_back(entry);
    }
    j["scenarioEvents"] = events;
  }
  j["priorityLevels"] = PriorityLevelsJson(end);
  j["clients"] = ClientsJson();
  j["replicas"] = ReplicasJson(end);
  if (scenario_.gateway.enabled) j["gateway"] = GatewayJson();
  if (!scenario_.apiservers.event_rate_limits.empty()) j["eventRateLimit"] = EventRateLimitJson();
  if (scenario_.audit_log.enabled || world_->replayed_calls() > 0) j["replay"] = ReplayJson();
  if (!scenario_.resources_skipped_from_metrics.empty()) {
    // Counted -1 in the scrape (not fetched): no `resources` entry was made for them.
    j["resourcesFromMetrics"] = {{"skipped", scenario_.resources_skipped_from_metrics}};
  }
  j["events"] = world_->events_handled();
  j["attempts"] = world_->attempts_total();
  if (const auto& w = figures_.window()) {
    j["window"] = {{"fromSeconds", apf::ToSeconds(w->from)},
                   {"toSeconds", apf::ToSeconds(w->to)},
                   {"priorityLevels", figures_.WindowLevels()},
                   {"clients", figures_.WindowClients()}};
  }
  if (recovery_) j["recovery"] = recovery_->Json();
  if (!provenance_.is_null()) j["provenance"] = provenance_;
  // Last: it reads the figures above.
  if (!scenario_.reference.figures.empty())
    j["reference"] =
        ReferenceJson(scenario_.reference, j, reference_windows_, reference_first_probe_);
  return j;
}

void RunReport::Commit() {
  const nlohmann::json summary = Summary();
  OutputFile summary_file(dir_ + "/summary.json", out_dir_ + "/summary.json");
  summary_file.Write(summary.dump(2) + "\n");
  OutputFile metrics_file(dir_ + "/metrics.prom", out_dir_ + "/metrics.prom");
  metrics_file.Write(MetricsText(*world_));
  std::vector<std::unique_ptr<OutputFile>> dump_files;
  if (!dumps_.empty()) MakeOutputDirectory(dir_ + "/dumps");
  for (const auto& [name, text] : dumps_) {
    dump_files.push_back(std::make_unique<OutputFile>(dir_ + "/" + name, out_dir_ + "/" + name));
    dump_files.back()->Write(text);
  }
  // Gathering metrics.om's series may still fail (a full disk): before any rename.
  if (openmetrics_) openmetrics_->Commit();
  // Everything is written; only renames remain.
  if (trace_) trace_->Commit();
  if (timeline_) timeline_->Commit();
  if (clients_) clients_->Commit();
  summary_file.Commit();
  metrics_file.Commit();
  for (auto& f : dump_files) f->Commit();
  set_.Commit();
}

std::string RunReport::SummaryTable(const nlohmann::json& s, bool colour) {
  auto wrap = [](const char* start, const std::string& t) {
    std::string out(start);
    out.append(t);
    out.append("\033[0m");
    return out;
  };
  auto bold = [&](const std::string& t) { return colour ? wrap("\033[1m", t) : t; };
  auto red = [&](const std::string& t, bool on) { return colour && on ? wrap("\033[31m", t) : t; };
  // With --window the tables are the window's figures.
  const bool windowed = s.contains("window");
  const nlohmann::json& levels = windowed ? s["window"]["priorityLevels"] : s["priorityLevels"];
  const nlohmann::json& clients = windowed ? s["window"]["clients"] : s["clients"];
  std::string out;
  out += bold(fmt::format("{} (seed {}, {} s simulated)", s["scenario"].get<std::string>(),
                          s["seed"].get<std::uint64_t>(), s["durationSeconds"].get<double>()));
  if (windowed) {
    out +=
        bold(fmt::format(", over the window [{} s, {} s)", s["window"]["fromSeconds"].get<double>(),
                         s["window"]["toSeconds"].get<double>()));
  }
  out += "\n";
  if (s.contains("provenance") && !s["provenance"]["sets"].empty()) {
    std::string sets;
    for (const auto& v : s["provenance"]["sets"])
      sets += (sets.empty() ? "" : ", ") + v.get<std::string>();
    out += "overrides: " + sets + "\n";
  }
  // Where the run parts from the incident it replays, before the figures that show it.
  for (const std::string& line : ReferenceDifferences(s.value("reference", nlohmann::json())))
    out += "reference: " + line + "\n";
  out += "\n";
  out += bold(fmt::format("{:<24} {:>7} {:>8} {:>6} {:>9} {:>10} {:>8} {:>8} {:>9} {:>9} {:>9}",
                          "priority level", "nominal", "mean cur", "peak", "dispatch", "queue-full",
                          "time-out", "conc-lim", "wait p50", "wait p99", "wait max")) +
         "\n";
  std::vector<std::pair<int, std::string>> order;
  for (auto& [name, l] : levels.items()) order.emplace_back(-l["nominalCL"].get<int>(), name);
  std::sort(order.begin(), order.end());
  std::string hidden;     // the levels whose p99 hides their maximum
  std::string unlimited;  // the MaxInFlight pools without a limit
  for (auto& [unused, name] : order) {
    const auto& l = levels[name];
    // The window's figures do not repeat the flag: it is the run's.
    const bool no_limit = s["priorityLevels"][name].value("unlimited", false);
    if (no_limit) unlimited += (unlimited.empty() ? "" : ", ") + name;
    const std::uint64_t qf = l["rejected"][apf::RejectReasonName(apf::RejectReason::kQueueFull)],
                        to = l["rejected"][apf::RejectReasonName(apf::RejectReason::kTimeOut)],
                        cl = l["rejected"]
                              [apf::RejectReasonName(apf::RejectReason::kConcurrencyLimit)];
    const double p99 = l["waitSeconds"]["p99"].get<double>(),
                 max = l["waitSeconds"]["max"].get<double>();
    out += fmt::format(
        "{:<24} {:>7} {:>8} {:>6} {:>9} {:>10} {:>8} {:>8} {:>8.3f}s {:>8.3f}s {:>8.3f}s\n", name,
        no_limit ? std::string("-") : std::to_string(l["nominalCL"].get<int>()),
        no_limit ? std::string("-") : fmt::format("{:.1f}", l["meanCurrentCL"].get<double>()),
        l["peakExecutingSeats"].get<int>(), l["dispatched"].get<std::uint64_t>(),
        red(std::to_string(qf), qf > 0), red(std::to_string(to), to > 0),
        red(std::to_string(cl), cl > 0), l["waitSeconds"]["p50"].get<double>(), p99, max);
    // A whole-run p99 over millions of requests can be 0 while an incident of seconds
    // made some wait long: say so, and where to look.
    if (p99 == 0 && max > 0) {
      hidden +=
          fmt::format("{}: wait p99 0 hides a max of {:.3g} s: see the worst interval", name, max);
      const nlohmann::json* worst =
          s["priorityLevels"].contains(name) && s["priorityLevels"][name].contains("worstInterval")
              ? &s["priorityLevels"][name]["worstInterval"]["waitP99"]
              : nullptr;
      if (worst && !(*worst)["startSeconds"].is_null()) {
        hidden +=
            fmt::format(" (p99 {:.3g} s in the interval from {} s)",
                        (*worst)["seconds"].get<double>(), (*worst)["startSeconds"].get<double>());
      }
      hidden += "\n";
    }
  }
  if (!hidden.empty()) out += red(hidden, true);
  if (!unlimited.empty()) {
    out += fmt::format("{}: unlimited (a MaxInFlight limit of 0 sets no limit)\n", unlimited);
  }
  out += '\n';
  out += bold(fmt::format("{:<24} {:>8} {:>9} {:>7} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8}", "client",
                          "calls", "rejected", "429s", "failed", "lat p99", "queue p99",
                          "throt p99", "iter p99", "pending"));
  out += '\n';
  auto seconds = [](const nlohmann::json& c, const char* key) {
    return c.contains(key) ? fmt::format("{:.3f}s", c[key]["p99"].get<double>()) : std::string("-");
  };
  for (auto& [name, c] : clients.items()) {
    const std::uint64_t failed = c["failed"], r429 = c["http429"],
                        rejected = c.value("callsRejected", std::uint64_t{0});
    const nlohmann::json pending = windowed ? nlohmann::json("-") : c["pendingAtEnd"];
    out += fmt::format("{:<24} {:>8} {:>9} {:>7} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8}\n", name,
                       c["calls"].get<std::uint64_t>(), red(std::to_string(rejected), rejected > 0),
                       red(std::to_string(r429), r429 > 0), red(std::to_string(failed), failed > 0),
                       seconds(c, "latencySeconds"), seconds(c, "queueWaitSeconds"),
                       seconds(c, "throttleWaitSeconds"), seconds(c, "iterationSeconds"),
                       pending.is_string() ? pending.get<std::string>() : pending.dump());
  }
  if (s.contains("recovery")) out += RecoveryTable(s["recovery"], colour);
  if (s.contains("eventRateLimit")) {
    const nlohmann::json& erl = s["eventRateLimit"];
    std::string by_type;
    for (auto& [type, count] : erl["refusalsByLimitType"].items()) {
      by_type += fmt::format("{}{} {}", by_type.empty() ? "" : ", ", type, count.dump());
    }
    out += fmt::format("\nEventRateLimit refused {} event writes (by limit type: {})\n",
                       erl["refusedEvents"].dump(), by_type);
  }
  if (s.contains("resourcesFromMetrics")) {
    std::vector<std::string> skipped = s["resourcesFromMetrics"]["skipped"];
    out += fmt::format("\nresourcesFromMetrics: skipped {} (object count -1 in the scrape)\n",
                       fmt::join(skipped, ", "));
  }
  return out;
}

}  // namespace sim
