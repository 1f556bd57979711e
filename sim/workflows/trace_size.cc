#include "sim/workflows/trace_size.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "apf/classification/classifier.h"
#include "apf/filter/max_in_flight.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/scenario/run_budget.h"
#include "sim/world/scenario_calls.h"

namespace sim {
namespace {

// kTraceBytesPerCall, derived: `apfsim run scenarios/drift-sweep.yaml --trace workload-low`
// (15 minutes, seed 1) wrote 1,549,435,967 bytes in 2,319,361 lines for 2,318,235 calls
// (distinct `call` numbers): 668.4 bytes a call, 1.0005 lines a call. A line's keys and
// punctuation alone are about 330 bytes; the rest is names and times, so a scenario with
// shorter names writes a little less a line (tests/sim/scenario/trace_narrowing_test.cc
// holds the estimate of a small one within a factor of 1.5 of what it wrote). The calls
// are estimated well for open-loop traffic (other-operators' poisson: 2,268,000 estimated,
// 2,270,569 made) and over-counted for closed loops, whose answers the estimate takes as
// a millisecond (Argo CD's: 80,277 estimated, 40,510 made); the drift sweep's whole
// estimate is 2,355,477 calls, 1.6% above.

// "1.2 GB", "35 MB", "0.04 MB": the size in decimal megabytes, as `ls -lh --si` and
// download pages give it, with two significant figures below 10.
std::string Megabytes(double bytes) {
  const double mb = bytes / 1e6;
  if (mb >= 1000) return fmt::format("{:.1f} GB", mb / 1000);
  if (mb >= 10) return fmt::format("{:.0f} MB", mb);
  if (mb >= 0.01) return fmt::format("{:.2g} MB", mb);
  return "under 0.01 MB";
}

// The share of the requests `template_calls` (one client's requests of one template, as
// ScenarioCalls lists them: per process and per namespace where those vary) that land
// where `lands` says.
template <typename Lands>
double ShareLanding(const std::vector<const ScenarioCall*>& template_calls, Lands lands) {
  if (template_calls.empty()) return 0;
  double landing = 0;
  for (const ScenarioCall* call : template_calls) landing += lands(*call) ? 1 : 0;
  return landing / static_cast<double>(template_calls.size());
}

}  // namespace

std::optional<TraceSizeEstimate> EstimateTraceSize(const Scenario& scenario,
                                                   const apf::FlowControlConfig& config,
                                                   const std::string& name,
                                                   const TraceFilter& filter) {
  // The world's order: a client of that name first, then a priority level (world_build.cc).
  int client = -1, level = -1;
  for (std::size_t c = 0; c < scenario.clients.size(); ++c) {
    if (scenario.clients[c].name == name) client = static_cast<int>(c);
  }
  const bool apf_on = scenario.apiservers.enable_priority_and_fairness;
  if (client < 0 && apf_on) level = config.FindPriorityLevel(name);
  // APF off: the MaxInFlight pools (apf/filter/flow_control.cc).
  if (client < 0 && !apf_on && (name == "readonly" || name == "mutating")) {
    level = name == "readonly" ? 0 : 1;
  }
  if (client < 0 && level < 0) return std::nullopt;

  std::map<const RequestTemplate*, std::vector<const ScenarioCall*>> by_template;
  const std::vector<ScenarioCall> calls = ScenarioCalls(scenario);
  for (const ScenarioCall& call : calls) by_template[call.tmpl].push_back(&call);
  std::optional<apf::Classifier> classifier;
  if (apf_on) classifier.emplace(config);
  // Whether a request of the scenario is traced: of the client, or landing in the level,
  // and of a flow --trace-flow names.
  auto traced = [&](const ScenarioCall& call) {
    if (!apf_on) {
      if (filter.narrows_flows()) return false;  // no FlowSchema, no flow
      if (client >= 0) return true;
      return static_cast<int>(apf::InFlightKindOf(call.request)) == level;
    }
    const apf::Classification c =
        classifier->Classify(apf::MakeRequestDigest(call.user, call.request));
    if (client < 0 && c.priority_level != level) return false;
    return filter.WantsFlow(c.distinguisher);
  };

  TraceSizeEstimate estimate;
  for (std::size_t c = 0; c < scenario.clients.size(); ++c) {
    if (client >= 0 && static_cast<int>(c) != client) continue;
    const ClientSpec& spec = scenario.clients[c];
    for (const TrafficSpec& t : spec.traffic) {
      if (t.calls.empty()) continue;
      const double calls =
          TrafficCallsIn(scenario, t, filter.from, filter.to) * static_cast<double>(spec.processes);
      if (calls <= 0) continue;
      // A pattern's calls are shared evenly among its requests (a closed loop sends each
      // once a pass).
      const double per_template = calls / static_cast<double>(t.calls.size());
      for (const RequestTemplate& tmpl : t.calls) {
        estimate.calls += per_template * ShareLanding(by_template[&tmpl], traced);
      }
    }
  }
  estimate.calls *= filter.fraction;
  estimate.bytes = estimate.calls * kTraceBytesPerCall;

  estimate.what = client >= 0 ? "client " + name : "priority level " + name;
  if (filter.from > 0 || filter.to < scenario.duration) {
    estimate.what += fmt::format(" from {} to {}", FormatDuration(filter.from),
                                 FormatDuration(std::min(filter.to, scenario.duration)));
  }
  if (filter.fraction < 1) {
    estimate.what += fmt::format(", a sample of {:g}% of its calls", 100 * filter.fraction);
  }
  if (filter.narrows_flows()) {
    std::string flows;
    for (const std::string& f : filter.flows) flows += (flows.empty() ? "" : ", ") + f;
    estimate.what += (filter.flows.size() == 1 ? ", flow " : ", flows ") + flows;
  }
  return estimate;
}

std::string DescribeTraceSize(const TraceSizeEstimate& estimate) {
  return fmt::format("trace.jsonl: about {} for about {:.0f} calls of {}",
                     Megabytes(estimate.bytes), estimate.calls, estimate.what);
}

void RefuseTraceAbove(const TraceSizeEstimate& estimate, std::uint64_t max_bytes) {
  if (max_bytes == 0 || estimate.bytes <= static_cast<double>(max_bytes)) return;
  throw InputError(
      {"--trace-max-bytes", 0, 0}, "",
      fmt::format("trace.jsonl would be about {} (about {:.0f} calls of {}), above the limit "
                  "of {} bytes: narrow it with --trace-window FROM..TO, --trace-sample "
                  "FRACTION or --trace-flow NAME, or raise --trace-max-bytes (0: no limit)",
                  Megabytes(estimate.bytes), estimate.calls, estimate.what, max_bytes));
}

}  // namespace sim
