// The traffic patterns' arrival times (sim/world/traffic.h), worked out by hand from the
// pattern's parameters; where a pattern draws, from the bounds of the draw or from the
// same stream drawn alongside.
#include "sim/world/traffic.h"

#include <catch2/catch.hpp>

#include "sim/io/yaml_input.h"

using apf::kMillisecond;
using apf::kSecond;
using sim::Random;
using sim::Traffic;
using sim::TrafficSpec;
using sim::TrafficStep;

namespace {

TrafficSpec Pattern(TrafficSpec::Kind kind, int calls = 1) {
  TrafficSpec t;
  t.kind = kind;
  t.calls.resize(static_cast<size_t>(calls));
  return t;
}

sim::DurationDistribution Constant(apf::Nanos ns) {
  return {sim::DurationDistribution::Kind::kConstant, ns, 0};
}

}  // namespace

TEST_CASE("constant: a random phase within one period, then one period apart", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kConstant);
  t.start = 10 * kSecond;
  t.rate = 4;  // a period of 1e9 / 4 = 250 ms, exact in double
  Random rng(5, "constant"), twin(5, "constant");
  Traffic traffic(t);
  const apf::Nanos first = traffic.FirstAt(rng);
  // The phase is the stream's first U[0, 1) times the period.
  CHECK(first == 10 * kSecond + static_cast<apf::Nanos>(twin.Uniform01() * 1e9 / 4));
  CHECK(first >= 10 * kSecond);
  CHECK(first < 10 * kSecond + 250 * kMillisecond);
  apf::Nanos now = first;
  for (int i = 0; i < 4; ++i) {
    const TrafficStep s = traffic.Generate(now, rng);
    CHECK(s.call == 0);
    CHECK(s.next == now + 250 * kMillisecond);
    now = s.next;
  }
}

TEST_CASE("poisson: exponential gaps of mean 1/rate", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kPoisson);
  t.start = 2 * kSecond;
  t.rate = 10;  // mean gap 100 ms
  Random rng(11, "poisson"), twin(11, "poisson");
  Traffic traffic(t);
  const apf::Nanos first = traffic.FirstAt(rng);
  CHECK(first == 2 * kSecond + static_cast<apf::Nanos>(twin.Exponential(10) * 1e9));
  // Each run draws the call's namespace first, then the gap.
  const TrafficStep s = traffic.Generate(first, rng);
  CHECK(s.namespace_draw == twin.NextU64());
  CHECK(s.next == first + static_cast<apf::Nanos>(twin.Exponential(10) * 1e9));
  // Over 10,000 gaps the mean is 100 ms with a standard error of 1 ms: 95 to 105 ms is
  // five standard errors either way.
  apf::Nanos now = s.next;
  const int n = 10000;
  for (int i = 0; i < n; ++i) now = traffic.Generate(now, rng).next;
  const double mean_ms = static_cast<double>(now - s.next) / n / 1e6;
  CHECK(mean_ms > 95);
  CHECK(mean_ms < 105);
}

TEST_CASE("sweep: the period's calls spread evenly over its window", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kSweep);
  t.start = 5 * kSecond;
  t.every = 60 * kSecond;
  t.within = 10 * kSecond;
  t.count = 4;
  Random rng(1);
  Traffic traffic(t, sim::SweepCallsPerPeriod(t, 0));
  // Four calls within 10 s: at 0, 2.5, 5 and 7.5 s into each period; the periods start at
  // 5 s and 65 s. The draws are the calls' positions 0..3.
  const apf::Nanos expected[] = {5 * kSecond,          7500 * kMillisecond, 10 * kSecond,
                                 12500 * kMillisecond, 65 * kSecond,        67500 * kMillisecond};
  CHECK(traffic.FirstAt(rng) == expected[0]);
  for (int i = 0; i < 5; ++i) {
    const TrafficStep s = traffic.Generate(expected[i], rng);
    CHECK(s.namespace_draw == static_cast<std::uint64_t>(i % 4));
    CHECK(s.next == expected[i + 1]);
  }
}

TEST_CASE("sweep: a window of years and a million calls do not overflow", "[traffic]") {
  // The largest a scenario may give: within 100000h (sim/io/yaml_input.h kMaxInputDuration)
  // and count 1,000,000 (sim/scenario/loader.cc). within * item is 3.6e23, past int64:
  // before the split product the call times came out negative.
  TrafficSpec t = Pattern(TrafficSpec::Kind::kSweep);
  t.every = sim::kMaxInputDuration;
  t.within = sim::kMaxInputDuration;
  t.count = 1'000'000;
  Random rng(1);
  Traffic traffic(t, sim::SweepCallsPerPeriod(t, 0));
  apf::Nanos now = traffic.FirstAt(rng);
  for (int i = 0; i < 999'999; ++i) {
    const TrafficStep s = traffic.Generate(now, rng);
    REQUIRE(s.next >= now);
    now = s.next;
  }
  // The last call of the period, 999,999 of 1,000,000 through the window: by hand,
  // 360000000000000000 * 999999 / 1000000 = 359999640000000000 ns.
  CHECK(now == 359999640000000000);
}

TEST_CASE("sweep: one call per namespace when the count is left out", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kSweep);
  CHECK(sim::SweepCallsPerPeriod(t, 7) == 1);  // a fixed namespace: one call
  t.calls[0].namespace_choice = sim::RequestTemplate::NamespaceChoice::kEach;
  CHECK(sim::SweepCallsPerPeriod(t, 7) == 7);
  CHECK(sim::SweepCallsPerPeriod(t, 0) == 1);  // no namespaces known: still one
  t.count = 3;
  CHECK(sim::SweepCallsPerPeriod(t, 7) == 3);
}

TEST_CASE("closedLoop: the sequence back to back, then a think time", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kClosedLoop, 3);
  t.start = 1 * kSecond;
  t.think = Constant(2 * kSecond);
  Random rng(3);
  Traffic traffic(t);
  // The first run waits half a think time: 1 s + 1 s.
  CHECK(traffic.FirstAt(rng) == 2 * kSecond);
  TrafficStep s = traffic.Generate(2 * kSecond, rng);
  CHECK(s.call == 0);
  CHECK(s.next == apf::kNever);  // nothing until the call ends
  // Each call's end issues the next at once, whatever its outcome.
  s = traffic.CallDone(2100 * kMillisecond, true, false, rng);
  CHECK(s.call == 1);
  CHECK(s.next == apf::kNever);
  s = traffic.CallDone(2300 * kMillisecond, false, false, rng);
  CHECK(s.call == 2);
  // After the last the worker thinks 2 s: it runs again at 2.4 + 2 = 4.4 s.
  s = traffic.CallDone(2400 * kMillisecond, true, false, rng);
  CHECK(s.call == -1);
  CHECK(s.next == 4400 * kMillisecond);
  // And starts the sequence over.
  CHECK(traffic.Generate(4400 * kMillisecond, rng).call == 0);
}

TEST_CASE("watch: re-opened by the world, backing off after failures", "[traffic]") {
  TrafficSpec t = Pattern(TrafficSpec::Kind::kWatch);
  Random rng(8);
  Traffic traffic(t);
  CHECK(traffic.FirstAt(rng) == 0);
  TrafficStep s = traffic.Generate(0, rng);
  CHECK(s.call == 0);
  CHECK(s.next == apf::kNever);
  // A watch that opened and ended well: the world re-issues it when it ends.
  CHECK(traffic.CallDone(5 * kSecond, true, true, rng).next == apf::kNever);
  // Failures back off 0.8 s x 2^k x U[1, 2): [0.8, 1.6) s, then [1.6, 3.2) s, ...
  const double low_s[] = {0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30};
  apf::Nanos now = 10 * kSecond;
  for (double low : low_s) {
    s = traffic.CallDone(now, false, true, rng);
    const double wait_s = static_cast<double>(s.next - now) / 1e9;
    CHECK(wait_s >= low);
    CHECK(wait_s < 2 * low);  // the cap is 30 s times U[1, 2)
    now = s.next;
  }
  // A success resets the backoff.
  CHECK(traffic.CallDone(now, true, true, rng).next == apf::kNever);
  s = traffic.CallDone(now, false, true, rng);
  CHECK(static_cast<double>(s.next - now) / 1e9 < 1.6);
}

TEST_CASE("replayed rows take turns over the client's processes", "[traffic]") {
  class Rows : public sim::ReplaySource {
   public:
    bool Next(sim::ReplayRow* row) override {
      if (n_ == 3) return false;
      row->at = ++n_ * kSecond;
      return true;
    }

   private:
    int n_ = 0;
  };
  sim::Replay replay(std::make_unique<Rows>(), 2);
  CHECK(replay.client() == 2);
  int processes[3];
  for (int& p : processes) {
    REQUIRE(replay.Next());
    p = replay.TakeProcess(10, 2);  // processes 10 and 11
  }
  CHECK(replay.pending().at == 3 * kSecond);
  CHECK(processes[0] == 10);
  CHECK(processes[1] == 11);
  CHECK(processes[2] == 10);
  CHECK_FALSE(replay.Next());
}
