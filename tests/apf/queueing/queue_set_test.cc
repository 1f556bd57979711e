// The behaviours of doc/model.md#queue-set, one small scenario each. Every expected time and
// R value is worked out by hand in the comments from the rules of queueset.go:
//   work(request)   = InitialSeats * G + FinalSeats * AdditionalLatency, G = 3 ms, in
//                     units of 1e-8 seat-seconds: one seat for 3 ms is 300 000 units;
//   R advances by   round(min(seats requested, CL) / active queues * dt_ns / 10);
//   dispatch picks  the least nextDispatchR + head work, from the queue after the last
//                   one dispatched from.
// With hand size 1 a request's queue is its hash modulo the number of queues.
#include "apf/queueing/queue_set.h"

#include <catch2/catch.hpp>

#include "tests/support/queue_set_test_harness.h"

using apf::kMillisecond;
using apf::kSecond;
using apf::QueueSet;
using apf_test::Limit;
using apf_test::QueueSetHarness;
using apf_test::Queuing;
using apf_test::Seats;

TEST_CASE("a wide head that does not fit blocks the whole level", "[queueset]") {
  QueueSetHarness h(Queuing(2, 10, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(3));  // A: q0, dispatched; q0.nextDispatchR = 900 000
  h.Arrive(0, 2, 1, Seats(2));  // B: q1, finish 0 + 600 000; 3 + 2 > 4, waits
  h.Arrive(0, 3, 0, Seats(1));  // C: q0, finish 900 000 + 300 000
  // B has the least finish and does not fit, so C waits although a seat is free.
  CHECK(h.DispatchOrder() == std::vector<std::uint64_t>{1});
  CHECK(h.qs->seats_in_use() == 3);
  CHECK(h.qs->waiting_requests() == 2);
  CHECK(h.qs->counters().dispatch_no_accommodation == 2);  // once for B, once for C's turn

  // A finishes at 10 ms. R: 2 active queues, seats requested 3+1+2 = 6, min(6, 4)/2 = 2,
  // so R = 2 * 10 000 000 / 10 = 2 000 000. The finish correction on q0 is
  // -SeatsTimesDuration(3, 3 ms - 10 ms) = +2 100 000: 900 000 -> 3 000 000.
  CHECK(h.Finish(10 * kMillisecond, 1) == 10 * kMillisecond);
  CHECK(h.qs->current_r() == 2000000);
  // Then B (finish 600 000) before C (3 000 000 + 300 000), both at 10 ms.
  CHECK(h.DispatchOrder() == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(h.DispatchedAt(2) == 10 * kMillisecond);
  CHECK(h.DispatchedAt(3) == 10 * kMillisecond);
  CHECK(h.qs->queue(0).next_dispatch_r == 3300000);
  CHECK(h.qs->queue(1).next_dispatch_r == 600000);
}

TEST_CASE("a queue grows past its length limit while seats are free", "[queueset]") {
  // The queue-full rule is a conjunction: all seats taken AND the queue at its limit.
  QueueSetHarness h(Queuing(1, 1, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(3));  // dispatched
  h.Arrive(0, 2, 0, Seats(2));  // waits: 2 seats do not fit in the 1 free
  for (std::uint64_t id = 3; id <= 5; ++id) {
    // 3 seats in use < 4, so the queue takes them beyond its limit of 1.
    CHECK(h.Arrive(0, id, 0).outcome == QueueSet::StartOutcome::kQueued);
  }
  CHECK(h.qs->queue(0).waiting_requests == 4);
  CHECK(h.qs->counters().rejected == 0);

  QueueSetHarness full(Queuing(1, 1, 1), Limit(1));
  full.Arrive(0, 1, 0);  // dispatched: 1 seat in use = CL
  CHECK(full.Arrive(0, 2, 0).outcome == QueueSet::StartOutcome::kQueued);  // length 0 < 1
  QueueSet::StartResult third = full.Arrive(0, 3, 0);
  CHECK(third.outcome == QueueSet::StartOutcome::kRejectedQueueFull);
  CHECK_FALSE(third.handle.valid());
  CHECK(full.qs->counters().rejected == 1);
  CHECK(full.qs->counters().rejected_queue_full == 1);
}

TEST_CASE("timing out a blocking head dispatches nothing", "[queueset]") {
  QueueSetHarness h(Queuing(2, 10, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(3));  // A: q0, dispatched
  h.Arrive(0, 2, 1, Seats(2));  // B: q1, blocks the level
  h.Arrive(0, 3, 0, Seats(1));  // C: q0, waits behind B's block
  // B's wait ends at 5 ms. R(5 ms) = min(3+1+2, 4)/2 * 5 000 000 / 10 = 1 000 000.
  CHECK(h.TimeOut(5 * kMillisecond, 2));
  CHECK(h.qs->current_r() == 1000000);
  CHECK(h.DispatchedAt(3) == -1);  // C still waits with a seat free
  CHECK(h.qs->waiting_requests() == 1);
  // The time-out counts as rejected and cancelled, never as timed out
  // (doc/model.md#counters-and-oddities).
  CHECK(h.qs->counters().rejected == 1);
  CHECK(h.qs->counters().cancelled == 1);
  CHECK(h.qs->counters().rejected_time_out == 1);
  CHECK(h.qs->counters().timedout == 0);
  CHECK_FALSE(h.TimeOut(5 * kMillisecond, 2));  // already gone: no effect

  // The next event dispatches. D arrives at 6 ms into q1. From 5 to 6 ms only q0 was
  // active with 3 + 1 seats: R += min(4, 4)/1 * 1 000 000 / 10 = 400 000 -> 1 400 000.
  // q1 was idle, so it starts at R: D's finish is 1 700 000; C's is 900 000 + 300 000.
  h.Arrive(6 * kMillisecond, 4, 1, Seats(1));
  CHECK(h.qs->current_r() == 1400000);
  CHECK(h.DispatchedAt(3) == 6 * kMillisecond);
  CHECK(h.DispatchedAt(4) == -1);               // 4 seats in use
  CHECK_FALSE(h.TimeOut(7 * kMillisecond, 3));  // executing: a time-out does nothing
  h.Finish(10 * kMillisecond, 1);
  CHECK(h.DispatchedAt(4) == 10 * kMillisecond);
}

TEST_CASE("a request wider than the limit waits for an empty level and then runs alone",
          "[queueset]") {
  QueueSetHarness h(Queuing(2, 10, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(1));  // A: q0, dispatched at R 0; q0.nextDispatchR = 300 000
  // W: 6 seats > CL 4, runs only when nothing executes. R(1 ms) = 1/1 * 1e6 / 10 = 100 000.
  h.Arrive(1 * kMillisecond, 2, 1, Seats(6));
  CHECK(h.DispatchedAt(2) == -1);
  // B at 2 ms: R += min(1 + 6, 4)/2 * 1e6 / 10 = 200 000 -> 300 000. B's finish is
  // 300 000 + 300 000, W's 100 000 + 1 800 000: B goes first and fits.
  h.Arrive(2 * kMillisecond, 3, 0, Seats(1));
  CHECK(h.qs->current_r() == 300000);
  CHECK(h.DispatchedAt(3) == 2 * kMillisecond);
  h.Finish(10 * kMillisecond, 1);
  CHECK(h.DispatchedAt(2) == -1);  // B still executes
  h.Finish(12 * kMillisecond, 3);
  CHECK(h.DispatchedAt(2) == 12 * kMillisecond);
  CHECK(h.qs->seats_in_use() == 6);  // above the limit while it runs alone
  // Nothing else is dispatched while seats in use >= CL.
  h.Arrive(13 * kMillisecond, 4, 0, Seats(1));
  CHECK(h.DispatchedAt(4) == -1);
  h.Finish(20 * kMillisecond, 2);
  CHECK(h.DispatchedAt(4) == 20 * kMillisecond);
}

TEST_CASE("final seats and additional latency hold max(initial, final) seats until the end",
          "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(1, 3, 50 * kMillisecond));  // holds max(1, 3) = 3 seats
  CHECK(h.qs->seats_in_use() == 3);
  h.Arrive(1 * kMillisecond, 2, 0, Seats(2));  // 3 + 2 > 4: waits
  // A's handler returns at 10 ms; it stops executing but keeps 3 seats until 60 ms.
  CHECK(h.Finish(10 * kMillisecond, 1) == 60 * kMillisecond);
  CHECK(h.qs->executing_requests() == 0);
  CHECK(h.qs->seats_in_use() == 3);
  CHECK(h.DispatchedAt(2) == -1);
  h.Release(60 * kMillisecond, 1);
  CHECK(h.DispatchedAt(2) == 60 * kMillisecond);
  CHECK(h.qs->seats_in_use() == 2);
}

TEST_CASE("lingering seats do not stop a too-wide request, and the R correction uses S and G",
          "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(4));
  // A's work: 1 * 300 000 + SeatsTimesDuration(3, 50 ms) = 300 000 + 15 000 000.
  h.Arrive(0, 1, 0, Seats(1, 3, 50 * kMillisecond));
  CHECK(h.qs->queue(0).next_dispatch_r == 15300000);
  // W: 5 seats > 4. R(1 ms) = min(3, 4)/1 * 1e6 / 10 = 300 000.
  h.Arrive(1 * kMillisecond, 2, 0, Seats(5));
  CHECK(h.DispatchedAt(2) == -1);
  // At 10 ms: R += min(3 + 5, 4)/1 * 9e6 / 10 = 3 600 000 -> 3 900 000. The correction
  // is on the initial seat and the measured 10 ms only: 15 300 000 - (1 * (3 - 10) ms)
  // = 16 000 000. A no longer executes, so W runs though A's 3 seats linger, adding its
  // work 1 500 000.
  CHECK(h.Finish(10 * kMillisecond, 1) == 60 * kMillisecond);
  CHECK(h.qs->current_r() == 3900000);
  CHECK(h.DispatchedAt(2) == 10 * kMillisecond);
  CHECK(h.qs->queue(0).next_dispatch_r == 17500000);
  CHECK(h.qs->seats_in_use() == 8);
}

TEST_CASE("final seats above the limit are reshaped at dispatch, keeping the final work",
          "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(4));
  // Max seats 10 > 4: too wide, and the level is empty, so it runs at once. Final work
  // = SeatsTimesDuration(10, 20 ms) = 20 000 000 units; reshaped to 4 seats it lasts
  // DurationPerSeat(20 000 000, 4) = 20 000 000 / 4 * 10 ns = 50 ms.
  h.Arrive(0, 1, 0, Seats(1, 10, 20 * kMillisecond));
  CHECK(h.DispatchedAt(1) == 0);
  const apf::QueueSetRequestView view = h.qs->request(h.handles.at(1));
  CHECK(view.seats.final_seats == 4);
  CHECK(view.seats.additional_latency == 50 * kMillisecond);
  CHECK(h.qs->seats_in_use() == 4);  // max(1, 4)
  // The queue's R still grows by the untrimmed work 300 000 + 20 000 000.
  CHECK(h.qs->queue(0).next_dispatch_r == 20300000);
  // The waiting seats were raised by 10 at enqueue and lowered by the trimmed 4: a drift
  // of 6 stays in the level's seat demand, while the queue's own sum is right.
  CHECK(h.qs->seats_waiting() == 6);
  CHECK(h.qs->queue(0).max_seats_sum == 0);
  CHECK(h.demand.current() == 10);
  CHECK(h.Finish(5 * kMillisecond, 1) == 55 * kMillisecond);
}

TEST_CASE("R advances at min(seats requested, CL) per active queue, rounded like Go",
          "[queueset]") {
  QueueSetHarness h(Queuing(2, 10, 1), Limit(10));
  h.Arrive(0, 1, 0, Seats(2, 4, 100 * kMillisecond));  // A: 4 seats, q0
  h.Arrive(0, 2, 1, Seats(1));                         // B: q1
  // 0..10 ms: 2 active queues, 4 + 1 seats: 5/2 * 10 000 000 / 10 = 2 500 000.
  h.Finish(10 * kMillisecond, 1);
  CHECK(h.qs->current_r() == 2500000);
  // 10..30 ms: q0 is no longer active, but A's lingering 4 seats still count as
  // requested: min(4 + 1, 10)/1 * 20 000 000 / 10 = 10 000 000.
  h.Arrive(30 * kMillisecond, 3, 1, Seats(1));
  CHECK(h.qs->current_r() == 12500000);

  // A fractional rate: 3 active queues with 2 seats each and CL 5 run at 5/3; over 1 ms
  // R grows by round(1.6667 * 1 000 000 / 10) = round(166 666.67) = 166 667.
  QueueSetHarness f(Queuing(3, 10, 1), Limit(5));
  f.Arrive(0, 1, 0, Seats(2));
  f.Arrive(0, 2, 1, Seats(2));
  f.Arrive(0, 3, 2, Seats(2));  // waits: 4 + 2 > 5
  f.Finish(1 * kMillisecond, 1);
  CHECK(f.qs->current_r() == 166667);
}

TEST_CASE("anti-windup: a queue's next dispatch never precedes its head's arrival R",
          "[queueset]") {
  QueueSetHarness h(Queuing(2, 10, 1), Limit(1));
  h.Arrive(0, 1, 0);  // dispatched at R 0: q0.nextDispatchR = 300 000
  // At 1 s, R = 1/1 * 1e9 / 10 = 100 000 000. B joins the still-active q0 (no reset to
  // R), and the bound lifts q0's 300 000 to B's arrival R.
  h.Arrive(1 * kSecond, 2, 0);
  CHECK(h.qs->current_r() == 100000000);
  CHECK(h.qs->queue(0).next_dispatch_r == 100000000);
}

TEST_CASE("the queue is the hand's least waiting work, visited from a rotating offset",
          "[queueset]") {
  // Deck 2, hand 2, hash 0: digits 0 % 2 = 0 and 0 % 1 = 0, so the hand is {0, 1}.
  // CL 0 dispatches nothing (the loop needs seats in use < CL), so the queues only fill.
  QueueSetHarness h(Queuing(2, 100, 2), Limit(0));
  std::vector<int> queues;
  auto arrive = [&](std::uint64_t id, std::uint64_t seats) {
    queues.push_back(h.Arrive(0, id, 0, Seats(seats)).queue_index);
  };
  arrive(1, 1);   // offset 0: q0 0, q1 0 -> q0 (first visited); q0 = 300k
  arrive(2, 2);   // offset 1: q1 0 < q0 300k -> q1; q1 = 600k
  arrive(3, 1);   // offset 0: q0 300k < 600k -> q0; q0 = 600k
  arrive(4, 1);   // offset 1: tie 600k, q1 is visited first -> q1; q1 = 900k
  arrive(5, 10);  // offset 0: q0 600k -> q0; q0 = 3.6M (3 requests)
  arrive(6, 1);   // offset 1: q1 900k -> q1; q1 = 1.2M (3 requests)
  arrive(7, 1);   // offset 0: q0 3.6M, q1 1.2M -> q1 (4 requests)
  arrive(8, 1);   // offset 1: q1 1.5M with 4 requests beats q0 3.6M with 3
  CHECK(queues == std::vector<int>{0, 1, 0, 1, 0, 1, 1, 1});
  CHECK(h.qs->queue(0).total_work_sum == 3600000);
  CHECK(h.qs->queue(1).total_work_sum == 1800000);
  CHECK(h.qs->queue(1).waiting_requests == 5);
  CHECK(h.dispatches.empty());
}

TEST_CASE("equal virtual finishes go to the first queue after the last dispatched from",
          "[queueset]") {
  // Everything happens at t = 0, so R stays 0 and every finish can be read off.
  QueueSetHarness h(Queuing(3, 10, 1), Limit(1));
  h.Arrive(0, 1, 0);  // A: q0, dispatched; robin at q0
  h.Arrive(0, 2, 1);  // B: q1, finish 300 000
  h.Arrive(0, 3, 2);  // C: q2, finish 300 000
  h.Arrive(0, 4, 0);  // D: q0, finish 300 000 + 300 000
  // A finishes at once: q0 -= SeatsTimesDuration(1, 3 ms - 0) = 300 000 -> 0, and the
  // bound lifts it to D's arrival R 0: D's finish is 300 000 too. The scan starts after
  // q0: B wins the three-way tie.
  h.Finish(0, 1);
  // B finishes; the scan starts after q1: C (q2) beats D (q0), which a scan from queue 0
  // would have picked.
  h.Finish(0, 2);
  h.Finish(0, 3);
  CHECK(h.DispatchOrder() == std::vector<std::uint64_t>{1, 2, 3, 4});
}

TEST_CASE("a Reject-type level runs what fits and rejects the rest", "[queueset]") {
  QueueSetHarness h(Queuing(0, 0, 0), Limit(2));
  CHECK(h.Arrive(0, 1, 0).outcome == QueueSet::StartOutcome::kDispatchedWithoutQueue);
  CHECK(h.Arrive(0, 2, 0).outcome == QueueSet::StartOutcome::kDispatchedWithoutQueue);
  CHECK(h.Arrive(0, 3, 0).outcome == QueueSet::StartOutcome::kRejectedConcurrencyLimit);
  CHECK(h.qs->counters().rejected_concurrency_limit == 1);
  h.Finish(1 * kMillisecond, 1);
  CHECK(h.Arrive(2 * kMillisecond, 4, 0).outcome ==
        QueueSet::StartOutcome::kDispatchedWithoutQueue);
  CHECK(h.qs->current_r() == 0);  // no queues, no R
  CHECK(h.qs->counters().dispatched == 3);

  // With CL 0 every request is too wide, so one runs at a time.
  QueueSetHarness zero(Queuing(0, 0, 0), Limit(0));
  CHECK(zero.Arrive(0, 1, 0).outcome == QueueSet::StartOutcome::kDispatchedWithoutQueue);
  CHECK(zero.Arrive(0, 2, 0).outcome == QueueSet::StartOutcome::kRejectedConcurrencyLimit);
  zero.Finish(1, 1);
  CHECK(zero.Arrive(2, 3, 0).outcome == QueueSet::StartOutcome::kDispatchedWithoutQueue);
}

TEST_CASE("an Exempt level runs everything at once and counts its seats", "[queueset]") {
  QueueSetHarness h(Queuing(-1, 0, 0), Limit(0));
  for (std::uint64_t id = 0; id < 100; ++id) h.Arrive(0, id, 0, Seats(1, 2, kSecond));
  CHECK(h.dispatches.size() == 100);
  CHECK(h.qs->seats_in_use() == 200);
  CHECK(h.demand.current() == 200);
  CHECK(h.Finish(kSecond, 0) == 2 * kSecond);
  CHECK(h.qs->executing_requests() == 99);
  CHECK(h.qs->seats_in_use() == 200);  // still held through the latency
}

TEST_CASE("R wraps back by an epoch when it passes 3/4 of the range", "[queueset]") {
  // CL 1e9 makes R fast: one active queue using 1e9 seats adds 1e9 * dt_ns / 10. (Each
  // step stays below 2^63 units: Go's int64() of a larger float is platform-dependent.)
  const std::uint64_t kHuge = 1000000000;
  QueueSetHarness h(Queuing(2, 10, 1), Limit(static_cast<int>(kHuge)));
  h.Arrive(0, 1, 0, Seats(kHuge));  // A: q0, nextDispatchR 1e9 * 300 000 = 3e14
  // A finishes at 90 s: R = 1e9 * 9e10 / 10 = 9e18 (below highR = 13835058055282163710).
  // q0 -= 1e9 * (3 ms - 90 s) / 10, i.e. += 8.9997e18: 3e14 + 8.9997e18 = 9e18.
  h.Finish(90 * kSecond, 1);
  CHECK(h.qs->current_r() == 9000000000000000000ULL);
  // B: q1 (idle, starts at R = 9e18), dispatched; nextDispatchR 9e18 + 3e14.
  h.Arrive(90 * kSecond, 2, 1, Seats(kHuge));
  CHECK(h.qs->queue(1).next_dispatch_r == 9000300000000000000ULL);
  // C at 120 s: R = 9e18 + 1e9 * 3e10 / 10 = 1.2e19. It waits (all seats taken) and the
  // bound lifts q1 to its arrival R 1.2e19.
  h.Arrive(120 * kSecond, 3, 1, Seats(1));
  CHECK(h.qs->queue(1).next_dispatch_r == 12000000000000000000ULL);
  // B finishes at 150 s: R = 1.2e19 + 3e18 = 1.5e19 >= highR, so the epoch advances by
  // rDecrement = 2^63 - 1 = 9223372036854775807: R = 5776627963145224193. q0 is idle and
  // resets to 0; q1 and C's arrival R drop to 1.2e19 - rDecrement = 2776627963145224193.
  // Then B's correction adds 1e9 * (60 s - 3 ms) / 10 = 5 999 700 000 000 000 000:
  // 8776327963145224193; and C's dispatch adds 300 000.
  h.Finish(150 * kSecond, 2);
  CHECK(h.qs->counters().epoch_advances == 1);
  CHECK(h.qs->counters().epoch_advance_failures == 0);
  CHECK(h.qs->current_r() == 5776627963145224193ULL);
  CHECK(h.qs->queue(0).next_dispatch_r == 0);
  CHECK(h.qs->request(h.handles.at(3)).arrival_r == 2776627963145224193ULL);
  CHECK(h.DispatchedAt(3) == 150 * kSecond);
  CHECK(h.qs->queue(1).next_dispatch_r == 8776327963145524193ULL);
}

TEST_CASE("reconfiguration adds queues at once and removes surplus ones as they empty",
          "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(1));
  REQUIRE(h.qs->Reconfigure(0, Queuing(4, 10, 1), Limit(1)).ok());
  CHECK(h.qs->num_queues() == 4);
  CHECK(h.Arrive(0, 1, 3).queue_index == 3);  // A: dispatched from q3
  CHECK(h.Arrive(0, 2, 2).queue_index == 2);  // B: waits in q2
  // Fewer queues: nothing happens until a surplus queue empties at a seat release.
  REQUIRE(h.qs->Reconfigure(1 * kMillisecond, Queuing(2, 10, 1), Limit(1)).ok());
  CHECK(h.qs->num_queues() == 4);
  h.Finish(2 * kMillisecond, 1);  // q3 empties: 4 > 2, dropped; then B runs from q2
  CHECK(h.qs->num_queues() == 3);
  CHECK(h.DispatchedAt(2) == 2 * kMillisecond);
  h.Finish(3 * kMillisecond, 2);  // q2 empties: 3 > 2, dropped
  CHECK(h.qs->num_queues() == 2);
}

TEST_CASE("a new concurrency limit dispatches at once", "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(1));
  h.Arrive(0, 1, 0);
  h.Arrive(0, 2, 0);
  h.Arrive(0, 3, 0);
  CHECK(h.dispatches.size() == 1);
  REQUIRE(h.qs->Reconfigure(5 * kMillisecond, Queuing(1, 10, 1), Limit(3)).ok());
  CHECK(h.DispatchedAt(2) == 5 * kMillisecond);
  CHECK(h.DispatchedAt(3) == 5 * kMillisecond);
}

TEST_CASE("switching from Queue to Reject drains the old queues under the old limits",
          "[queueset]") {
  QueueSetHarness h(Queuing(2, 5, 1), Limit(1));
  h.Arrive(0, 1, 0);  // A: q0, executing
  h.Arrive(0, 2, 1);  // B: q1, waiting
  REQUIRE(h.qs->Reconfigure(1, Queuing(0, 0, 0), Limit(1)).ok());
  CHECK(h.qs->queuing_config().desired_num_queues == 0);
  CHECK(h.qs->queuing_config().queue_length_limit == 5);  // kept for the draining queues
  CHECK(h.qs->queuing_config().hand_size == 1);
  // New arrivals take the queueless path: the seat is taken, so concurrency-limit.
  CHECK(h.Arrive(2, 3, 0).outcome == QueueSet::StartOutcome::kRejectedConcurrencyLimit);
  h.Finish(3, 1);  // q0 empties and goes (2 > 0); B is dispatched from q1, now index 0
  CHECK(h.DispatchedAt(2) == 3);
  CHECK(h.qs->num_queues() == 1);
  h.Finish(4, 2);
  CHECK(h.qs->num_queues() == 0);
  CHECK(h.Arrive(5, 4, 0).outcome == QueueSet::StartOutcome::kDispatchedWithoutQueue);
}

TEST_CASE("an invalid queuing config is refused with the wrapped dealer error", "[queueset]") {
  QueueSetHarness h(Queuing(4, 10, 2), Limit(1));
  apf::Status s = h.qs->Reconfigure(0, Queuing(4, 10, 5), Limit(7));
  CHECK(s.message() ==
        "the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is "
        "deckSize): handSize 5 is greater than deckSize 4");
  CHECK(h.qs->queuing_config().hand_size == 2);  // unchanged
  CHECK(h.qs->dispatching_config().concurrency_limit == 1);
}

TEST_CASE("a surplus queue is removed by the stale index of an already dropped queue",
          "[queueset]") {
  // queueset.go removes qs.queues[r.queue.index]. When two lingering requests share a
  // surplus queue, the first release drops it and the second uses its stale index,
  // dropping whichever queue now sits there, even one with a request executing.
  QueueSetHarness h(Queuing(3, 10, 1), Limit(10));
  h.Arrive(0, 1, 1, Seats(1, 1, 100 * kMillisecond));  // X: q1
  h.Arrive(0, 2, 1, Seats(1, 1, 100 * kMillisecond));  // Y: q1
  h.Arrive(0, 3, 2, Seats(1));                         // Z: q2
  REQUIRE(h.qs->Reconfigure(1 * kMillisecond, Queuing(1, 10, 1), Limit(10)).ok());
  CHECK(h.Finish(10 * kMillisecond, 1) == 110 * kMillisecond);
  CHECK(h.Finish(20 * kMillisecond, 2) == 120 * kMillisecond);
  h.Release(110 * kMillisecond, 1);  // q1 empty, 3 > 1: dropped; q2 becomes index 1
  CHECK(h.qs->num_queues() == 2);
  CHECK(h.qs->queue(1).executing_requests == 1);  // Z's queue
  h.Release(120 * kMillisecond, 2);               // q1 again, stale index 1: drops Z's queue
  CHECK(h.qs->num_queues() == 1);
  CHECK(h.qs->queue(0).executing_requests == 0);  // the idle q0 survived
  CHECK(h.qs->executing_requests() == 1);
  h.Finish(1 * kSecond, 3);
  CHECK(h.qs->num_queues() == 1);
  CHECK(h.qs->counters().impossible_states == 0);

  // A stale index past the end is a slice-bounds panic in Go; the model counts it.
  QueueSetHarness p(Queuing(3, 10, 1), Limit(10));
  p.Arrive(0, 1, 2, Seats(1, 1, 100 * kMillisecond));
  p.Arrive(0, 2, 2, Seats(1, 1, 100 * kMillisecond));
  REQUIRE(p.qs->Reconfigure(0, Queuing(1, 10, 1), Limit(10)).ok());
  p.Finish(10 * kMillisecond, 1);
  p.Finish(10 * kMillisecond, 2);
  p.Release(110 * kMillisecond, 1);  // drops q2 (index 2)
  p.Release(110 * kMillisecond, 2);  // index 2 of 2 queues
  CHECK(p.qs->num_queues() == 2);
  CHECK(p.qs->counters().impossible_states == 1);
}

TEST_CASE("the level's seat demand integrator sees seats in use plus seats waiting", "[queueset]") {
  QueueSetHarness h(Queuing(1, 10, 1), Limit(4));
  h.Arrive(0, 1, 0, Seats(2));
  h.Arrive(0, 2, 0, Seats(3));  // waits: demand 2 + 3 = 5
  CHECK(h.demand.current() == 5);
  h.Finish(1 * kSecond, 1);  // B runs: demand 3
  CHECK(h.demand.current() == 3);
  h.Finish(3 * kSecond, 2);
  CHECK(h.demand.current() == 0);
  // Time-weighted over [0, 3 s]: (5 * 1 + 3 * 2) / 3 = 11/3; the maximum is 5.
  apf::SeatDemandResults r = h.demand.GetResults(3 * kSecond);
  CHECK(r.average == Approx(11.0 / 3.0).epsilon(1e-12));
  CHECK(r.max == 5);
}
