// What --trace-window, --trace-sample and --trace-flow keep (sim/world/trace_filter.h),
// decision by decision; whole runs are in tests/sim/scenario/trace_narrowing_test.cc.
#include "sim/world/trace_filter.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

TEST_CASE("the trace window holds arrivals from FROM inclusive to TO exclusive",
          "[trace][trace-filter]") {
  sim::TraceFilter filter;
  filter.from = 2 * apf::kSecond;
  filter.to = 3 * apf::kSecond;
  CHECK_FALSE(filter.ArrivalInWindow(2 * apf::kSecond - 1));
  CHECK(filter.ArrivalInWindow(2 * apf::kSecond));
  CHECK(filter.ArrivalInWindow(3 * apf::kSecond - 1));
  CHECK_FALSE(filter.ArrivalInWindow(3 * apf::kSecond));
  // The default window is the whole run.
  CHECK(sim::TraceFilter{}.ArrivalInWindow(0));
  CHECK(sim::TraceFilter{}.ArrivalInWindow(apf::kNever - 1));
}

TEST_CASE("a trace sample is fixed by the seed and the call's number", "[trace][trace-filter]") {
  sim::TraceFilter a, b, other_seed;
  a.fraction = b.fraction = other_seed.fraction = 0.3;
  a.seed = b.seed = 1;
  other_seed.seed = 2;
  // Asked in any order, a call gets the same answer: nothing is drawn in sequence.
  std::vector<bool> forward, backward(1001);
  for (std::uint64_t call = 1; call <= 1000; ++call) forward.push_back(a.SampledCall(call));
  for (std::uint64_t call = 1000; call >= 1; --call) backward[call] = b.SampledCall(call);
  int same_as_other_seed = 0;
  for (std::uint64_t call = 1; call <= 1000; ++call) {
    CHECK(forward[call - 1] == backward[call]);
    same_as_other_seed += forward[call - 1] == other_seed.SampledCall(call) ? 1 : 0;
  }
  // Two independent samples of 30% agree on a call with probability 0.3^2 + 0.7^2 = 0.58:
  // 580 of 1000 with a standard deviation of sqrt(1000 * 0.58 * 0.42) = 15.6; another seed
  // is another sample, not the same one (1000 agreements).
  CHECK(same_as_other_seed > 580 - 5 * 16);
  CHECK(same_as_other_seed < 580 + 5 * 16);
}

TEST_CASE("a trace sample of fraction f keeps about f of the calls", "[trace][trace-filter]") {
  constexpr int kCalls = 100000;
  for (const double f : {0.01, 0.1, 0.5, 0.9}) {
    for (const std::uint64_t seed : {1, 7, 1234567}) {
      sim::TraceFilter filter;
      filter.fraction = f;
      filter.seed = seed;
      int kept = 0;
      for (std::uint64_t call = 1; call <= kCalls; ++call) kept += filter.SampledCall(call);
      // Each call is kept with probability f, independently (UniformAt is SplitMix64's
      // output, which passes BigCrush): kept is binomial(n, f). Five standard deviations
      // hold every one of these twelve cases unless the hash is biased (the chance that a
      // fair one falls outside is 6e-7 each); the numbers are fixed, so the test cannot flake.
      const double mean = kCalls * f, sd = std::sqrt(kCalls * f * (1 - f));
      INFO("fraction " << f << ", seed " << seed << ": kept " << kept);
      CHECK(std::abs(kept - mean) < 5 * sd);
    }
  }
  sim::TraceFilter all;  // fraction 1: every call, whatever the seed
  all.seed = 99;
  for (std::uint64_t call = 0; call < 1000; ++call) CHECK(all.SampledCall(call));
}

TEST_CASE("a trace narrowed to flows keeps the distinguishers it names", "[trace][trace-filter]") {
  sim::TraceFilter filter;
  CHECK(filter.WantsFlow("anyone"));  // no --trace-flow: every flow
  filter.flows = {"system:serviceaccount:ops:op-1", "app-7"};
  CHECK(filter.narrows_flows());
  CHECK(filter.WantsFlow("app-7"));
  CHECK(filter.WantsFlow("system:serviceaccount:ops:op-1"));
  CHECK_FALSE(filter.WantsFlow("app-70"));
  CHECK_FALSE(filter.WantsFlow(""));
}
