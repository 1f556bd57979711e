// The debug dumps (sim/report/debug_dumps.h) against doc/model.md#debug-dumps: Go's tabwriter
// layout, RFC3339Nano times, and the three dumps of tests/fixtures/report/tiny.yaml at 1.5 s, a run
// small enough that every cell is worked out by hand below (the fixture's opening comment
// tells the story of its four requests).
#include "sim/report/debug_dumps.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

// Runs tests/fixtures/report/tiny.yaml with its outputs in `scratch`.
void RunTiny(const test_support::ScratchDir& scratch) {
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  request.out_dir = scratch.path().string();
  request.quiet = true;
  sim::RunScenario(request);
}

// One dump of the fixture's only instant, 1.5 s, on its only apiserver.
std::string Dump(const test_support::ScratchDir& scratch, const std::string& name) {
  return test_support::ReadFile(scratch.path() / "dumps" /
                                ("1.5s-apiserver-0-dump_" + name + ".txt"));
}

}  // namespace

TEST_CASE("TabWriterRows lays cells out as Go's tabwriter with minwidth 8 and padding 1",
          "[dumps]") {
  // doc/model.md#debug-dumps: each cell but a row's last is followed by ",\t"; the tabwriter makes
  // a column as wide as its widest "cell," plus 1 of padding, and at least 8.
  CHECK(sim::TabWriterRows({{"a", "b"}}) == "a,      b\n");
  CHECK(sim::TabWriterRows({{"abcdefgh", "x", "last"}, {"a", "yz", ""}}) ==
        "abcdefgh, x,      last\n"
        "a,        yz,     \n");
  // A cell of exactly 6 characters needs 6 + 1 + 1 = 8: no wider than the minimum.
  CHECK(sim::TabWriterRows({{"sixsix", "b"}, {"s", "c"}}) ==
        "sixsix, b\n"
        "s,      c\n");
}

TEST_CASE("Rfc3339Nano prints UTC from the virtual epoch with trailing zeros trimmed", "[dumps]") {
  // scenarios/README.md: instant 0 is 2026-01-01T00:00:00Z. Go's RFC3339Nano drops the
  // fraction when it is zero and trailing zeros otherwise.
  CHECK(sim::Rfc3339Nano(0) == "2026-01-01T00:00:00Z");
  CHECK(sim::Rfc3339Nano(1200 * apf::kMillisecond) == "2026-01-01T00:00:01.2Z");
  CHECK(sim::Rfc3339Nano(1) == "2026-01-01T00:00:00.000000001Z");
  CHECK(sim::Rfc3339Nano(86400 * apf::kSecond + 123456 * apf::kMillisecond) ==
        "2026-01-02T00:02:03.456Z");
}

// The fixture at 1.5 s: the GET of 1 s executes in lab's only seat; those of 1.2 s and
// 1.4 s wait in queue 1 (the flow (global-default, alice) is dealt queue 1, doc/model.md// appendix
// A: its hash is odd); the one of 1.6 s has not arrived.
// clang-format off
TEST_CASE("dump_priority_levels of the tiny fixture at 1.5 s", "[dumps]") {
  const test_support::ScratchDir scratch("apfsim-dumps");
  RunTiny(scratch);
  // Rows sorted by name; exempt and catch-all are the mandatory levels (doc/model.md#mandatory-objects).
  // lab: one queue with a waiting request (ActiveQueues counts waiting, 7.1), so not idle;
  // 2 waiting, 1 executing, 1 dispatched (the 1 s GET), nothing rejected yet (the queue-full
  // rejection comes at 1.6 s), TimedoutRequests always 0 (5.10), nothing cancelled.
  CHECK(Dump(scratch, "priority_levels") ==
      "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests\n"
      "catch-all,         0,            true,   false,       0,               0,                 0,                  0,                0,                0\n"
      "exempt,            0,            true,   false,       0,               0,                 0,                  0,                0,                0\n"
      "lab,               1,            false,  false,       2,               1,                 1,                  0,                0,                0\n");
}

TEST_CASE("dump_queues of the tiny fixture at 1.5 s", "[dumps]") {
  const test_support::ScratchDir scratch("apfsim-dumps");
  RunTiny(scratch);
  // exempt and catch-all (Reject) have no queues (doc/model.md#queueless-levels), so only lab's two rows.
  // Queue 0 never held anything. Queue 1: 2 pending, 1 executing in 1 seat. Its
  // NextDispatchR (5.3-5.5): R stood at 0 until 1 s (no active queue), so the 1 s GET was
  // enqueued and dispatched at R = 0, moving NextDispatchR to 0 + 1 seat x G (3 ms) =
  // 0.003ss; from 1 s on one queue is active with min(seats requested, CL 1) = 1 seat, so R
  // grows 1 ss per second: the 1.2 s GET arrived at R = 0.2 and the anti-windup bound
  // raised NextDispatchR to that head's arrival R, 0.2ss (the 1.4 s GET, at R = 0.4, is not
  // the head). The sums are over the 2 waiting GETs: 1 seat each, total work 2 x 0.003ss.
  CHECK(Dump(scratch, "queues") ==
      "PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum\n"
      "lab,               0,      0,               0,                 0,          0.00000000ss,  0,               0,           0.00000000ss\n"
      "lab,               1,      2,               1,                 1,          0.20000000ss,  2,               2,           0.00600000ss\n");
}

TEST_CASE("dump_requests of the tiny fixture at 1.5 s", "[dumps]") {
  const test_support::ScratchDir scratch("apfsim-dumps");
  RunTiny(scratch);
  // doc/model.md#debug-dumps: queue 1's waiting requests with their index, then its executing one with
  // index -1. The FlowDistingsher (sic) is the user, alice (ByUser, and the level has more
  // than one queue, 2.4). A GET is 1 seat with no final seats and no additional latency
  // (6.1); a waiting request's StartTime is Go's zero time. APIVersion is "v1" for the core
  // group. APIPath is RequestInfo.Path, the URL path requestinfo.go parsed
  // (/api/v1/namespaces/lab/pods/web-1); its column is as wide as that path, its comma
  // and one space of padding (35).
  CHECK(Dump(scratch, "requests") ==
      "PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime,             InitialSeats, FinalSeats, AdditionalLatency, StartTime,            UserName, Verb,   APIPath,                           Namespace, Name,   APIVersion, Resource, SubResource\n"
      "lab,               global-default, 1,          0,                   alice,           2026-01-01T00:00:01.2Z, 1,            0,          0s,                0001-01-01T00:00:00Z, alice,    get,    /api/v1/namespaces/lab/pods/web-1, lab,       web-1,  v1,         pods,     \n"
      "lab,               global-default, 1,          1,                   alice,           2026-01-01T00:00:01.4Z, 1,            0,          0s,                0001-01-01T00:00:00Z, alice,    get,    /api/v1/namespaces/lab/pods/web-2, lab,       web-2,  v1,         pods,     \n"
      "lab,               global-default, 1,          -1,                  alice,           2026-01-01T00:00:01Z,   1,            0,          0s,                2026-01-01T00:00:01Z, alice,    get,    /api/v1/namespaces/lab/pods/web-0, lab,       web-0,  v1,         pods,     \n");
}
// clang-format on

TEST_CASE("dump_requests names a resource request's URL path in APIPath", "[dumps]") {
  // doc/model.md#debug-dumps and apf_controller_debug.go print RequestInfo.Path, which the request
  // info factory sets for every request; the simulator rebuilds it from the request's
  // group, version, namespace, resource and name.
  const test_support::ScratchDir scratch("apfsim-dumps");
  RunTiny(scratch);
  CHECK(Dump(scratch, "requests").find("/api/v1/namespaces/lab/pods/web-0") != std::string::npos);
}
