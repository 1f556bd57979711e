// How big `apfsim run --trace` will make trace.jsonl, told before the run starts, and the
// limit above which the run is refused (`--trace-max-bytes`): a trace of a whole busy level
// over a long run is gigabytes that nobody reads, written at the speed of the disk.
//
// The estimate is the calls of the traced client or level that arrive in the window
// (sim/scenario/run_budget.h, from the traffic's rates, sweeps and closed loops), times the
// sampled fraction, times the share of them in the flows named, times the bytes a call
// takes in trace.jsonl. A call's landing (its priority level and flow) is taken from the
// classification of each request the scenario can send (sim/world/scenario_calls.h) under
// the configuration the run starts with. Replayed traffic (trace files, spec.auditLog) and
// informers are not counted: the files and the watch periods, not the rates, say how many
// calls they make.
//
// Tested by tests/sim/scenario/trace_narrowing_test.cc (the estimate against the size
// written, the refusal) and tests/sim/workflows/trace_size_test.cc.
#ifndef SIM_WORKFLOWS_TRACE_SIZE_H_
#define SIM_WORKFLOWS_TRACE_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "apf/config/flow_control_config.h"
#include "sim/scenario/scenario.h"
#include "sim/world/trace_filter.h"

namespace sim {

// The default of --trace-max-bytes: 1 GiB. The README's whole-run trace of a client (the
// drift sweep's argocd, 27 MB) passes, and so does a window of minutes of its busiest
// level; the whole run of that level (workload-low, 1.5 GB, which jq alone takes half a
// minute to read) is refused until it is narrowed or the limit raised.
inline constexpr std::uint64_t kDefaultTraceMaxBytes = std::uint64_t{1} << 30;

// The bytes trace.jsonl holds per call traced, measured on the drift sweep's workload-low
// (see the derivation in trace_size.cc).
inline constexpr double kTraceBytesPerCall = 668;

struct TraceSizeEstimate {
  double calls = 0;  // calls expected to be written (after the window, sample and flows)
  double bytes = 0;
  std::string what;  // what is traced: "priority level workload-low from 6m to 6m2s"
};

// The estimate for `--trace name` narrowed by `filter` on a run of `scenario` that starts
// with `config`; nullopt when no client or priority level is named `name` (the world
// refuses it as it is built, with the names there are).
std::optional<TraceSizeEstimate> EstimateTraceSize(const Scenario& scenario,
                                                   const apf::FlowControlConfig& config,
                                                   const std::string& name,
                                                   const TraceFilter& filter);

// "trace.jsonl: about 12 MB for about 11,500 calls of priority level workload-low from 6m to
// 6m2s", for standard error before the run.
std::string DescribeTraceSize(const TraceSizeEstimate& estimate);

// Throws InputError naming --trace-max-bytes when the estimate is above `max_bytes` (0: no
// limit), saying how to narrow the trace or raise the limit.
void RefuseTraceAbove(const TraceSizeEstimate& estimate, std::uint64_t max_bytes);

}  // namespace sim

#endif  // SIM_WORKFLOWS_TRACE_SIZE_H_
