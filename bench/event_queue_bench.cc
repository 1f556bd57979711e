// The "hold" benchmark of the event queue, in the manner of ns-3's bench-scheduler: with
// a constant population of pending events, pop the earliest and push one at its time plus
// an exponential gap. Reported as hold operations per second of wall time.
#include <benchmark/benchmark.h>

#include <array>
#include <memory>

#include "sim/engine/event_queue.h"
#include "sim/engine/random.h"

namespace {

// Exponential gaps drawn before timing starts and then cycled, so that the figure is the
// queue's cost and not the logarithm's. The gaps' scale does not matter, their spread does.
class Gaps {
 public:
  explicit Gaps(std::uint64_t seed) {
    sim::Random rng(seed, "hold");
    for (auto& g : gaps_) g = static_cast<apf::Nanos>(rng.Exponential(1e-6));
  }
  apf::Nanos Next() { return gaps_[next_++ & (kSize - 1)]; }

 private:
  static constexpr size_t kSize = 1 << 16;
  std::array<apf::Nanos, kSize> gaps_;
  size_t next_ = 0;
};

}  // namespace

static void BM_EventQueueHold(benchmark::State& state) {
  const auto population = static_cast<size_t>(state.range(0));
  sim::EventQueue queue;
  auto gaps = std::make_unique<Gaps>(1);
  for (size_t i = 0; i < population; ++i) queue.Schedule(gaps->Next(), sim::Event{0, 0, i});
  for (auto _ : state) {
    auto fired = queue.Pop();
    queue.Schedule(fired->time + gaps->Next(), fired->event);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(1000)->Arg(100000)->Arg(1000000);

// The same with one cancellation per hold (an APF queue-wait time-out that the dispatch
// made moot): schedule two, cancel one.
static void BM_EventQueueHoldWithCancel(benchmark::State& state) {
  const auto population = static_cast<size_t>(state.range(0));
  sim::EventQueue queue;
  auto gaps = std::make_unique<Gaps>(2);
  for (size_t i = 0; i < population; ++i) queue.Schedule(gaps->Next(), sim::Event{0, 0, i});
  for (auto _ : state) {
    auto fired = queue.Pop();
    queue.Schedule(fired->time + gaps->Next(), fired->event);
    sim::EventHandle timeout = queue.Schedule(fired->time + 15'000'000'000, sim::Event{1, 0, 0});
    queue.Cancel(timeout);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHoldWithCancel)->Arg(100000);

// The same hold with posted events, as the world wakes a call from a token wait or a
// Retry-After sleep: no slot, only the radix entry.
static void BM_EventQueuePostHold(benchmark::State& state) {
  const auto population = static_cast<size_t>(state.range(0));
  sim::EventQueue queue(/*posted_kind=*/0);
  auto gaps = std::make_unique<Gaps>(1);
  for (size_t i = 0; i < population; ++i) queue.Post(gaps->Next(), static_cast<std::uint32_t>(i));
  for (auto _ : state) {
    auto fired = queue.Pop();
    queue.Post(fired->time + gaps->Next(), fired->event.arg32);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueuePostHold)->Arg(1000)->Arg(100000)->Arg(1000000);

BENCHMARK_MAIN();
