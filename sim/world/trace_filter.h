// Which of the traced client's or level's attempts `apfsim run --trace` writes to
// trace.jsonl (`--trace-window`, `--trace-sample`, `--trace-flow`): a predicate on each line's
// own fields, so that a narrowed trace is exactly the full trace with the other lines left
// out, each kept line byte for byte as it was.
//
// - The window [from, to) holds an attempt by its `arrival` (the instant it reached the
//   filter): FROM inclusive, TO exclusive. An attempt that arrives inside and ends after TO
//   is kept whole; a retry is an attempt of its own and is held by its own arrival.
// - Sampling keeps a call, with all its attempts, when UniformAt(seed, "trace-sample",
//   call) is below the fraction: `call` is the call's number in the run, so the decision
//   depends on the run's seed and the call alone and draws nothing from the simulation's
//   streams; every output but trace.jsonl is the same as without it.
// - Flows keep an attempt whose `distinguisher` (the flow distinguisher its FlowSchema's
//   method gave: a user or a namespace) is one of those named; an attempt that no
//   FlowSchema classified (APF off, refused before APF) has no flow and is left out.
//
// Tested by tests/sim/world/trace_filter_test.cc, and in whole runs by
// tests/sim/scenario/trace_narrowing_test.cc.
#ifndef SIM_WORLD_TRACE_FILTER_H_
#define SIM_WORLD_TRACE_FILTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

struct TraceFilter {
  apf::Nanos from = 0;
  apf::Nanos to = apf::kNever;
  double fraction = 1;             // of calls, in (0, 1]
  std::uint64_t seed = 0;          // the run's seed (Scenario::seed), read only when fraction < 1
  std::vector<std::string> flows;  // distinguishers; empty: every flow

  bool ArrivalInWindow(apf::Nanos arrived) const { return arrived >= from && arrived < to; }
  // Whether call number `call` of the run is in the sample (always, at fraction 1).
  bool SampledCall(std::uint64_t call) const;
  // Both of the above: the decisions known when an attempt arrives.
  bool AtArrival(apf::Nanos arrived, std::uint64_t call) const {
    return ArrivalInWindow(arrived) && SampledCall(call);
  }
  bool narrows_flows() const { return !flows.empty(); }
  bool WantsFlow(std::string_view distinguisher) const;
};

}  // namespace sim

#endif  // SIM_WORLD_TRACE_FILTER_H_
