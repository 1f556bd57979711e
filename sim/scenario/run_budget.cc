#include "sim/scenario/run_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sim {
namespace {

double Seconds(apf::Nanos ns) { return static_cast<double>(ns) / 1e9; }

// The mean of a duration distribution, in seconds (the lognormal's from its median and
// p99: exp(mu + sigma^2/2) with sigma = ln(p99/median)/2.326).
double MeanSeconds(const DurationDistribution& d) {
  switch (d.kind) {
    case DurationDistribution::Kind::kConstant:
    case DurationDistribution::Kind::kExponential:
      return Seconds(d.value);
    case DurationDistribution::Kind::kUniform:
      return (Seconds(d.value) + Seconds(d.value2)) / 2;
    case DurationDistribution::Kind::kLognormal: {
      if (d.value <= 0 || d.value2 <= d.value) return Seconds(d.value);
      const double sigma = std::log(Seconds(d.value2) / Seconds(d.value)) / 2.326;
      return Seconds(d.value) * std::exp(sigma * sigma / 2);
    }
  }
  return 0;
}

// Calls per period of a sweep: its count, or one per namespace of the swept resource.
double SweepCalls(const Scenario& scenario, const TrafficSpec& t) {
  if (t.count > 0) return static_cast<double>(t.count);
  for (const ResourceSpec& r : scenario.resources) {
    if (!t.calls.empty() && r.resource == t.calls[0].resource) {
      return static_cast<double>(std::max<std::size_t>(
          1, r.namespace_names.empty() ? static_cast<std::size_t>(r.namespaces)
                                       : r.namespace_names.size()));
    }
  }
  return 1;
}

// The length of [a0, a1) and [b0, b1) in common, in seconds.
double OverlapSeconds(apf::Nanos a0, apf::Nanos a1, apf::Nanos b0, apf::Nanos b1) {
  return Seconds(std::max<apf::Nanos>(0, std::min(a1, b1) - std::max(a0, b0)));
}

}  // namespace

double TrafficCallsIn(const Scenario& scenario, const TrafficSpec& t, apf::Nanos from,
                      apf::Nanos to) {
  const apf::Nanos stop = std::min(t.stop, scenario.duration);
  if (stop <= t.start) return 0;
  const double active = Seconds(stop - t.start);
  const double in_window = OverlapSeconds(t.start, stop, from, to);
  switch (t.kind) {
    case TrafficSpec::Kind::kPoisson:
    case TrafficSpec::Kind::kConstant:
      return t.rate * in_window;
    case TrafficSpec::Kind::kSweep: {
      if (t.every <= 0) return 0;
      const double periods = std::ceil(active / Seconds(t.every));
      const double calls = SweepCalls(scenario, t);
      // A period's calls are spread evenly over `within` from its start (sim/world/traffic.h),
      // so a window holds the part of each period's spread it overlaps; past a million
      // periods, the share of the run the window covers stands in.
      if (from <= t.start && to >= stop) return calls * periods;
      if (periods > 1e6) return calls * periods * in_window / active;
      double share = 0;
      for (apf::Nanos s = t.start; s < stop; s += t.every) {
        share += t.within > 0 ? OverlapSeconds(s, s + t.within, from, to) / Seconds(t.within)
                              : (s >= from && s < to ? 1.0 : 0.0);
      }
      return calls * share;
    }
    case TrafficSpec::Kind::kClosedLoop: {
      // Each worker runs its sequence, then thinks; a millisecond per call stands in for
      // the answer's latency, which only the run knows.
      const double cycle = MeanSeconds(t.think) + 1e-3 * static_cast<double>(t.calls.size());
      return static_cast<double>(t.workers) * static_cast<double>(t.calls.size()) * in_window /
             cycle;
    }
    case TrafficSpec::Kind::kInformer:
    case TrafficSpec::Kind::kWatch:
    case TrafficSpec::Kind::kTrace:
      return 0;  // a few calls per watch period; a trace's rows are in its file
  }
  return 0;
}

namespace {

double TrafficCalls(const Scenario& scenario, const TrafficSpec& t) {
  return TrafficCallsIn(scenario, t, 0, scenario.duration);
}

}  // namespace

WorkEstimate EstimateWork(const Scenario& scenario) {
  WorkEstimate estimate;
  estimate.client_calls.reserve(scenario.clients.size());
  for (const ClientSpec& client : scenario.clients) {
    double calls = 0;
    for (const TrafficSpec& t : client.traffic) calls += TrafficCalls(scenario, t);
    calls *= static_cast<double>(client.processes);
    estimate.client_calls.push_back(calls);
    estimate.calls += calls;
  }
  return estimate;
}

std::string LargeRunWarning(const Scenario& scenario, const WorkEstimate& estimate) {
  if (estimate.calls <= kLargeRunCalls || estimate.client_calls.empty()) return "";
  const auto biggest =
      std::max_element(estimate.client_calls.begin(), estimate.client_calls.end()) -
      estimate.client_calls.begin();
  const ClientSpec& client = scenario.clients[static_cast<std::size_t>(biggest)];
  return fmt::format(
      "warning: {} will simulate about {:.2g} calls in {:.0f} virtual seconds, most of them "
      "({:.2g}) from client \"{}\" ({}:{}); at about a million calls per second that is "
      "{:.0f} minutes or more. --max-events and --max-wall-time bound the run.",
      scenario.file, estimate.calls, Seconds(scenario.duration),
      estimate.client_calls[static_cast<std::size_t>(biggest)], client.name, client.where.file,
      client.where.line, estimate.calls / 1e6 / 60);
}

}  // namespace sim

namespace sim {

std::vector<std::string> ClientOverloadWarnings(const Scenario& scenario) {
  std::vector<std::string> warnings;
  const double run_seconds = Seconds(scenario.duration);
  if (run_seconds <= 0) return warnings;
  for (const ClientSpec& client : scenario.clients) {
    if (client.client_go.qps <= 0) continue;  // no client-side limiter
    double calls = 0;                         // per process
    for (const TrafficSpec& t : client.traffic) {
      if (t.kind == TrafficSpec::Kind::kPoisson || t.kind == TrafficSpec::Kind::kConstant ||
          t.kind == TrafficSpec::Kind::kSweep) {
        calls += TrafficCalls(scenario, t);
      }
    }
    const double offered = calls / run_seconds;
    if (offered <= client.client_go.qps) continue;
    warnings.push_back(fmt::format(
        "warning: client \"{}\" ({}:{}) offers {:.4g} calls per second per process over the "
        "run, more than its client-side limit of clientGo.qps {:.4g}: its calls wait ever "
        "longer for tokens and its backlog grows to the end of the run "
        "(summary.json: clients.{}.throttleWaitSeconds, pendingAtEnd)",
        client.name, client.where.file, client.where.line, offered, client.client_go.qps,
        client.name));
  }
  return warnings;
}

}  // namespace sim
