// The event queue: against a deliberately simple reference (a map keyed by (time,
// sequence), tests/reference/map_event_queue.h) on long random schedules with
// cancellations and posted events, both firing the same events in the same order; ties,
// stale handles, peeking, popping before a bound and negative times; and the engine's three ways of
// stopping.
#include "sim/engine/event_queue.h"

#include <catch2/catch.hpp>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/random.h"
#include "tests/reference/map_event_queue.h"

namespace {

struct Pending {
  apf::Nanos time;
  std::uint64_t ref_seq;
  sim::EventHandle handle;
};

// Requires `fired` (its id in arg64) to be the reference's next event; returns the id.
std::uint64_t RequireReferenceNext(const sim::FiredEvent& fired,
                                   reference::MapEventQueue& expected) {
  apf::Nanos t = 0;
  std::uint64_t id = 0;
  REQUIRE(expected.Pop(&t, &id));
  REQUIRE(fired.time == t);
  REQUIRE(fired.event.arg64 == id);
  return id;
}

}  // namespace

TEST_CASE("event queue fires in the same order as a map reference, with cancellations",
          "[engine][property]") {
  // Scheduled and posted events mixed. A posted event has no slot: its entry carries the
  // arg, and it stays live through cascades, Compact() and rebuilds after a peek. Args of
  // 2^24 and more do not fit in the entry and go to a slot; both must fire as
  // Event{posted kind, arg, 0}.
  constexpr std::uint32_t kPostedKind = 7;
  constexpr std::uint32_t kWide = 1u << 24;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    sim::Random rng(seed);
    sim::EventQueue queue(kPostedKind);
    reference::MapEventQueue reference;
    // Scheduled events (posted ones cannot be cancelled); may hold fired events, and a
    // cancel of one must fail in both.
    std::vector<Pending> pending;
    apf::Nanos now = 0;
    std::uint64_t next_id = 0;
    auto id_of = [&](const sim::FiredEvent& fired) -> std::uint64_t {
      if (fired.event.kind != kPostedKind) return fired.event.arg64;
      REQUIRE(fired.event.arg64 == 0);
      return fired.event.arg32 >= kWide ? fired.event.arg32 - kWide : fired.event.arg32;
    };
    for (int step = 0; step < 20000; ++step) {
      const std::uint64_t action = rng.UniformInt(12);
      // Small time ranges make many ties, which must break by insertion order. The third
      // kind of seed draws delays log-uniformly up to 2^50 ns, so that entries start on
      // every level of six-bit digits and cascade through several. The fourth keeps most
      // within a few 2^18 ns buckets of level 3, which go to the due list whole and sorted
      // when they hold few entries, while new events land in their range.
      apf::Nanos delay = 0;
      switch (seed % 4) {
        case 3:
          delay = static_cast<apf::Nanos>(rng.UniformInt(std::uint64_t{1} << 20));
          break;
        case 0:
          delay = static_cast<apf::Nanos>(rng.UniformInt(5));
          break;
        case 1:
          delay = static_cast<apf::Nanos>(rng.UniformInt(1000));
          break;
        default:
          delay = static_cast<apf::Nanos>(rng.UniformInt(std::uint64_t{1} << rng.UniformInt(51)));
          break;
      }
      const apf::Nanos t = now + delay;
      if (action < 4) {
        const std::uint64_t id = next_id++;
        const sim::EventHandle h = queue.Schedule(t, sim::Event{1, 0, id});
        pending.push_back({t, reference.Schedule(t, id), h});
      } else if (action < 6) {
        const std::uint64_t id = next_id++;
        reference.Schedule(t, id);
        queue.Post(t, static_cast<std::uint32_t>(action == 5 ? id + kWide : id));
      } else if (action < 8 && !pending.empty()) {
        const size_t i = rng.UniformInt(pending.size());
        REQUIRE(queue.Cancel(pending[i].handle) ==
                reference.Cancel(pending[i].time, pending[i].ref_seq));
        pending[i] = pending.back();
        pending.pop_back();
      } else {
        apf::Nanos rt;
        std::uint64_t rid;
        const bool has = reference.Pop(&rt, &rid);
        // PopBefore(t) takes the same event when it is due before t, and else nothing: a
        // Pop() after it must then find that event.
        std::optional<sim::FiredEvent> fired;
        if (action == 11) {
          fired = queue.PopBefore(t);
          REQUIRE(fired.has_value() == (has && rt < t));
        }
        if (!fired) fired = queue.Pop();
        REQUIRE(fired.has_value() == has);
        if (has) {
          REQUIRE(fired->time == rt);
          REQUIRE(id_of(*fired) == rid);
          now = rt;
        }
      }
      if (step % 997 == 0) queue.Compact();
      // Peeking settles the radix base on the minimum; later schedules may go below it
      // (still at or after `now`), which must rebuild the buckets correctly.
      if (step % 13 == 0) queue.PeekTime();
    }
    // Drain both.
    apf::Nanos rt;
    std::uint64_t rid;
    while (reference.Pop(&rt, &rid)) {
      const auto fired = queue.Pop();
      REQUIRE(fired.has_value());
      REQUIRE(fired->time == rt);
      REQUIRE(id_of(*fired) == rid);
    }
    REQUIRE_FALSE(queue.Pop().has_value());
    REQUIRE(queue.empty());
  }
}

TEST_CASE("events at the same instant fire in scheduling order", "[engine]") {
  sim::EventQueue queue;
  for (std::uint64_t i = 0; i < 100; ++i) queue.Schedule(7, sim::Event{0, 0, i});
  for (std::uint64_t i = 0; i < 100; ++i) REQUIRE(queue.Pop()->event.arg64 == i);
}

TEST_CASE("a stale handle cannot cancel the event that reuses its slot", "[engine]") {
  sim::EventQueue queue;
  sim::EventHandle first = queue.Schedule(5, sim::Event{0, 0, 1});
  REQUIRE(queue.Pop()->event.arg64 == 1);
  sim::EventHandle second = queue.Schedule(9, sim::Event{0, 0, 2});
  REQUIRE(second.slot == first.slot);  // the slot was reused
  REQUIRE_FALSE(queue.Cancel(first));
  REQUIRE(queue.Pop()->event.arg64 == 2);
}

TEST_CASE("scheduling before an event that was peeked at keeps the order", "[engine]") {
  sim::EventQueue queue;
  queue.Schedule(30, sim::Event{0, 0, 30});
  REQUIRE(queue.PeekTime() == 30);
  queue.Schedule(25, sim::Event{0, 0, 25});
  queue.Schedule(30, sim::Event{0, 0, 31});
  REQUIRE(queue.PeekTime() == 25);
  REQUIRE(queue.Pop()->event.arg64 == 25);
  REQUIRE(queue.Pop()->event.arg64 == 30);
  REQUIRE(queue.Pop()->event.arg64 == 31);
  REQUIRE(queue.PeekTime() == apf::kNever);
}

TEST_CASE("reserved events fire as if they had been scheduled first, each in its turn",
          "[engine]") {
  // Inputs 0..999 known up front (times i / 10, so ten share each instant), fed one at a
  // time when the previous fires, while each fired input schedules two events of its own at
  // the next instant. The order must be the reference queue's with all inputs scheduled
  // first: at each instant the inputs (by input order), then the run's own events.
  sim::EventQueue queue;
  reference::MapEventQueue expected;
  constexpr std::uint64_t kInputs = 1000;
  constexpr std::uint64_t kOwn = 1 << 20;  // ids of the run's own events start here
  queue.ReserveSequences(kInputs);
  for (std::uint64_t i = 0; i < kInputs; ++i) expected.Schedule(static_cast<apf::Nanos>(i / 10), i);
  queue.ScheduleReserved(0, 0, sim::Event{0, 0, 0});
  std::uint64_t next_input = 1, own = kOwn;
  while (std::optional<sim::FiredEvent> fired = queue.Pop()) {
    if (RequireReferenceNext(*fired, expected) >= kOwn) continue;
    if (next_input < kInputs) {
      queue.ScheduleReserved(static_cast<apf::Nanos>(next_input / 10), next_input,
                             sim::Event{0, 0, next_input});
      ++next_input;
    }
    for (int k = 0; k < 2; ++k, ++own) {
      queue.Schedule(fired->time + 1, sim::Event{0, 0, own});
      expected.Schedule(fired->time + 1, own);
    }
  }
  apf::Nanos t = 0;
  std::uint64_t id = 0;
  CHECK_FALSE(expected.Pop(&t, &id));
  CHECK(next_input == kInputs);
}

TEST_CASE("a large population, grown and drained twice, fires in order", "[engine]") {
  // Far more events than a bucket block holds (256), so that buckets span many blocks and
  // hand them from one to another as entries cascade; the order must be the reference's.
  sim::EventQueue queue;
  reference::MapEventQueue expected;
  sim::Random random(7);
  std::uint64_t next_id = 0;
  for (int round = 0; round < 2; ++round) {
    const apf::Nanos start = round * 1'000'000'000;
    for (int i = 0; i < 60000; ++i, ++next_id) {
      const auto t = start + static_cast<apf::Nanos>(random.UniformInt(1'000'000));
      queue.Schedule(t, sim::Event{0, 0, next_id});
      expected.Schedule(t, next_id);
    }
    while (std::optional<sim::FiredEvent> fired = queue.Pop()) {
      RequireReferenceNext(*fired, expected);
    }
  }
}

TEST_CASE("negative times order before positive ones", "[engine]") {
  sim::EventQueue queue;
  queue.Schedule(5, sim::Event{0, 0, 5});
  queue.Schedule(-5, sim::Event{0, 0, 1});
  REQUIRE(queue.Pop()->time == -5);
  REQUIRE(queue.Pop()->time == 5);
}

namespace {
struct Recorder : sim::EventHandler {
  std::vector<std::pair<apf::Nanos, std::uint64_t>> seen;
  sim::Engine* engine = nullptr;
  void HandleEvent(apf::Nanos now, const sim::Event& e) override {
    seen.emplace_back(now, e.arg64);
    if (e.kind == 1) engine->After(10, sim::Event{0, 0, e.arg64 + 100});  // a follow-up
  }
};
}  // namespace

TEST_CASE("engine stops at the end time, the event budget, or an empty queue", "[engine]") {
  Recorder rec;
  sim::Engine engine(&rec);
  rec.engine = &engine;
  engine.At(5, sim::Event{1, 0, 1});
  engine.At(30, sim::Event{0, 0, 2});
  // End time 20: fires 1 at 5 and its follow-up at 15; the clock then reads 20.
  REQUIRE(engine.Run({.end_time = 20}) == sim::StopReason::kEndTime);
  REQUIRE(engine.now() == 20);
  REQUIRE(rec.seen == std::vector<std::pair<apf::Nanos, std::uint64_t>>{{5, 1}, {15, 101}});
  engine.At(40, sim::Event{0, 0, 3});
  REQUIRE(engine.Run({.max_events = 1}) == sim::StopReason::kEventBudget);
  REQUIRE(rec.seen.back() == std::pair<apf::Nanos, std::uint64_t>{30, 2});
  REQUIRE(engine.Run({}) == sim::StopReason::kQueueEmpty);
  REQUIRE(rec.seen.back() == std::pair<apf::Nanos, std::uint64_t>{40, 3});
  REQUIRE(engine.events_handled() == 4);
}
