// The calls EstimateTraceSize (sim/workflows/trace_size.h) counts for a --trace, worked out
// by hand from tests/fixtures/replay/trace-narrowing.yaml: operators, four processes of a
// 50/s poisson for 20 s (4,000 calls, one flow per process); lister, a sweep of its 600
// namespaces within 20 ms at 2, 7, 12 and 17 s (2,400); both in workload-low by the
// service-accounts FlowSchema; person, 5/s for 20 s (100) in global-default.
// Against what a run writes: tests/sim/scenario/trace_narrowing_test.cc.
#include "sim/workflows/trace_size.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/workflows/run.h"

namespace {

sim::ResolvedRun Resolve() {
  sim::RunInputs inputs;
  inputs.scenario_file =
      std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/replay/trace-narrowing.yaml";
  return sim::ResolveRunInputs(inputs);
}

double Calls(const sim::ResolvedRun& run, const std::string& name,
             const sim::TraceFilter& filter = {}) {
  const auto estimate = sim::EstimateTraceSize(run.scenario, run.flow_control.config, name, filter);
  REQUIRE(estimate);
  CHECK(estimate->bytes == Approx(estimate->calls * sim::kTraceBytesPerCall));
  return estimate->calls;
}

sim::TraceFilter Window(apf::Nanos from, apf::Nanos to) {
  sim::TraceFilter filter;
  filter.from = from;
  filter.to = to;
  return filter;
}

constexpr apf::Nanos kMs = apf::kMillisecond;

}  // namespace

TEST_CASE("a trace's calls are those of its client or level in the window", "[trace][trace-size]") {
  const sim::ResolvedRun run = Resolve();
  CHECK(Calls(run, "workload-low") == Approx(6400));
  CHECK(Calls(run, "lister") == Approx(2400));
  CHECK(Calls(run, "person") == Approx(100));
  CHECK(Calls(run, "global-default") == Approx(100));
  CHECK(Calls(run, "exempt") == 0);
  CHECK_FALSE(sim::EstimateTraceSize(run.scenario, run.flow_control.config, "nobody", {}));
  // 2s..7s: 5 s of operators (1,000) and the whole first sweep (600).
  CHECK(Calls(run, "workload-low", Window(2000 * kMs, 7000 * kMs)) == Approx(1600));
  // From 2.01 s the window holds the second half of the first sweep's 20 ms (300) and
  // 4.99 s of operators (998).
  CHECK(Calls(run, "workload-low", Window(2010 * kMs, 7000 * kMs)) == Approx(1298));
  // A sweep that starts at TO is not in the window (7s..12s holds only the sweep at 7 s).
  CHECK(Calls(run, "lister", Window(7000 * kMs, 12000 * kMs)) == Approx(600));
}

TEST_CASE("a trace's calls are scaled by the sample and shared among the flows",
          "[trace][trace-size]") {
  const sim::ResolvedRun run = Resolve();
  sim::TraceFilter half;
  half.fraction = 0.5;
  CHECK(Calls(run, "workload-low", half) == Approx(3200));
  // One of the four operators' flows: a quarter of their 4,000 calls; the lister's flow is
  // another.
  sim::TraceFilter op1;
  op1.flows = {"system:serviceaccount:ops:op-1"};
  CHECK(Calls(run, "workload-low", op1) == Approx(1000));
  op1.flows.push_back("system:serviceaccount:ops:lister");
  CHECK(Calls(run, "workload-low", op1) == Approx(3400));
}

TEST_CASE("the estimate is told, and refused above the limit", "[trace][trace-size]") {
  sim::TraceSizeEstimate estimate;
  estimate.calls = 11500;
  estimate.bytes = 11500 * sim::kTraceBytesPerCall;  // 7,682,000 bytes
  estimate.what = "priority level workload-low from 6m0s to 6m2s";
  CHECK(sim::DescribeTraceSize(estimate) ==
        "trace.jsonl: about 7.7 MB for about 11500 calls of priority level workload-low from "
        "6m0s to 6m2s");
  CHECK_NOTHROW(sim::RefuseTraceAbove(estimate, 7'682'000));
  CHECK_NOTHROW(sim::RefuseTraceAbove(estimate, 0));  // no limit
  CHECK_THROWS_WITH(sim::RefuseTraceAbove(estimate, 7'681'999),
                    Catch::Contains("above the limit of 7681999 bytes"));
  CHECK_THROWS_AS(sim::RefuseTraceAbove(estimate, 1), sim::InputError);
}
