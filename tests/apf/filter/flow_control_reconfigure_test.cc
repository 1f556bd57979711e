// FlowControl::Reconfigure (apf/filter/flow_control.h): a configuration change while
// requests execute and wait, against figures worked out by hand from k8s.io/apiserver
// pkg/util/flowcontrol/apf_controller.go (digestConfigObjects and the functions it calls)
// and fairqueuing/queueset/queueset.go (setConfiguration, StartRequest, dispatchLocked).
//
// Every test runs one filter of serverCL = 4 (--max-requests-inflight=4,
// --max-mutating-requests-inflight=0) without the suggested objects: the mandatory exempt
// level (0 shares) and catch-all (5 shares, Reject), and level "a" (30 shares, nothing
// lent or borrowed, 1 queue of hand 1 and length 10) that FlowSchema "to-a" sends alice to.
// finishQueueSetReconfigsLocked: nominalCL = ceil(serverCL * shares / shareSum), so
// a = ceil(4 * 30 / 35) = 4 and catch-all = ceil(4 * 5 / 35) = 1; updateBorrowingLocked
// then finds remainingServerCL = nominalCLSum - exempt's 0 = 5 <= minCLSum = 4 + 1, so
// each level's currentCL is its minCL: a = 4. Every request takes 1 seat.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "apf/classification/user_info.h"
#include "apf/filter/flow_control.h"
#include "sim/flowcontrol/loader.h"
#include "tests/support/request_support.h"

namespace {

const char* const kFlowSchema = R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: to-a}
spec:
  priorityLevelConfiguration: {name: a}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: alice}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
)";

// Level "a" with `shares` and `limit_response` (the limitResponse's YAML).
std::string LevelA(int shares, const std::string& limit_response) {
  return "apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
         "kind: PriorityLevelConfiguration\n"
         "metadata: {name: a}\n"
         "spec:\n"
         "  type: Limited\n"
         "  limited:\n"
         "    nominalConcurrencyShares: " +
         std::to_string(shares) +
         "\n"
         "    lendablePercent: 0\n"
         "    borrowingLimitPercent: 0\n"
         "    limitResponse: " +
         limit_response + "\n";
}

const char* const kOneQueue =
    "{type: Queue, queuing: {queues: 1, handSize: 1, queueLengthLimit: 10}}";

apf::FlowControlConfig ConfigOf(const std::vector<std::string>& documents) {
  std::string text;
  for (const std::string& d : documents) text += "---\n" + d;
  return sim::BuildFlowControl({1, 36}, sim::ParseFlowControlYaml(text, "test.yaml"), false).config;
}

struct Dispatches : apf::FlowControlListener {
  std::vector<std::uint64_t> ids;
  void OnDispatched(apf::Nanos, std::uint64_t id) override { ids.push_back(id); }
};

apf::FlowControlOptions FourSeats() {
  apf::FlowControlOptions o;
  o.max_requests_inflight = 4;
  o.max_mutating_requests_inflight = 0;
  return o;
}

struct Filter {
  explicit Filter(const std::vector<const apf::FlowControlConfig*>& later) { fc.Foresee(later); }
  apf::FlowControlConfig first = ConfigOf({LevelA(30, kOneQueue), kFlowSchema});
  Dispatches listener;
  apf::FlowControl fc{0, FourSeats(), &first, nullptr, &listener};
  apf::WorkEstimate one_seat{1, 0, 0};
  std::uint64_t next_id = 1;

  apf::Admission Start(apf::Nanos now, const std::string& user) {
    apf::StartHints hints;
    hints.estimate = &one_seat;
    return fc.Start(now, next_id++, apf::AuthenticatedUser(user),
                    test_support::ResourceRequest("get", "", "configmaps", "app"), std::nullopt,
                    hints);
  }
  int Level(const std::string& name) const {
    for (int l = 0; l < fc.level_count(); ++l) {
      if (*fc.level(l).name == name) return l;
    }
    return -1;
  }
};

}  // namespace

TEST_CASE("changed shares give new nominal seats at the change (finishQueueSetReconfigsLocked)",
          "[flow_control][reconfigure]") {
  const apf::FlowControlConfig more = ConfigOf({LevelA(55, kOneQueue), kFlowSchema});
  Filter f({&more});
  const int a = f.Level("a");
  REQUIRE(f.fc.level(a).nominal_cl == 4);
  REQUIRE(f.fc.level(f.Level("catch-all")).nominal_cl == 1);
  f.fc.Reconfigure(3 * apf::kSecond, &more);
  // shareSum = 55 + 5 + 0 = 60: a = ceil(4 * 55 / 60) = ceil(3.67) = 4, catch-all =
  // ceil(4 * 5 / 60) = ceil(0.33) = 1. Same seats: a share change this small at serverCL 4
  // moves nothing, which is the point of the next figure.
  CHECK(f.fc.level(a).nominal_cl == 4);
  const apf::FlowControlConfig fewer = ConfigOf({LevelA(5, kOneQueue), kFlowSchema});
  Filter g({&fewer});
  g.fc.Reconfigure(3 * apf::kSecond, &fewer);
  // shareSum = 5 + 5 + 0 = 10: a = ceil(4 * 5 / 10) = 2 and catch-all = 2, at once.
  CHECK(g.fc.level(g.Level("a")).nominal_cl == 2);
  CHECK(g.fc.level(g.Level("catch-all")).nominal_cl == 2);
  // The digestion ends with updateBorrowingLocked(false, ...), not at the next 10 s tick:
  // remainingServerCL = 4 <= minCLSum = 2 + 2, so currentCL = minCL = 2 now.
  CHECK(g.fc.level(g.Level("a")).current_cl == 2);
  CHECK(g.fc.allocator()->nominal_cl_sum() == 4);
}

TEST_CASE("a new queue shape keeps queued requests where they are (setConfiguration)",
          "[flow_control][reconfigure]") {
  const apf::FlowControlConfig wider =
      ConfigOf({LevelA(30, "{type: Queue, queuing: {queues: 8, handSize: 2, queueLengthLimit: 1}}"),
                kFlowSchema});
  Filter f({&wider});
  const int a = f.Level("a");
  std::vector<apf::Admission> executing;
  for (int i = 0; i < 4; ++i) {
    executing.push_back(f.Start(0, "alice"));
    REQUIRE(executing.back().outcome == apf::Admission::Outcome::kExecuting);
  }
  std::vector<apf::Admission> queued;
  for (int i = 0; i < 3; ++i) {
    queued.push_back(f.Start(0, "alice"));
    REQUIRE(queued.back().outcome == apf::Admission::Outcome::kWaiting);
    REQUIRE(queued.back().queue == 0);
  }
  f.fc.Reconfigure(apf::kSecond, &wider);
  // setConfiguration appends 7 queues and leaves queue 0's three requests in it, over the
  // new length limit of 1: nothing re-deals or rejects a request already queued.
  const apf::QueueSet& qs = *f.fc.level(a).queue_set;
  CHECK(qs.num_queues() == 8);
  CHECK(qs.queue(0).waiting_requests == 3);
  CHECK(qs.queuing_config().queue_length_limit == 1);
  CHECK(f.listener.ids.empty());  // all 4 seats still in use: Complete dispatched nothing
  // A new arrival is dealt a hand of 2 of the 8 queues and joins the one with the least
  // waiting work (shuffleShardLocked); both of its queues beat queue 0's three requests
  // unless the hand is queue 0 alone, which a hand of 2 distinct queues never is.
  const apf::Admission late = f.Start(2 * apf::kSecond, "alice");
  CHECK(late.outcome == apf::Admission::Outcome::kWaiting);
  CHECK(late.queue != 0);
  CHECK(late.queue < 8);
  // A seat frees: dispatchLocked takes the queue whose head has the least virtual finish
  // (nextDispatchR + its work). Queue 0 started at R = 0; the late request's queue at the R
  // reached at 2 s, which is above 0 since queue 0 was active meanwhile. So the head of
  // queue 0 (id 5, the first request queued before the change) goes, not the late id 8.
  f.fc.Finish(3 * apf::kSecond, executing[0].handle);
  CHECK(f.listener.ids == std::vector<std::uint64_t>{5});
}

TEST_CASE("Queuing to Reject: queued requests are still dispatched, new ones face the limit",
          "[flow_control][reconfigure]") {
  const apf::FlowControlConfig reject = ConfigOf({LevelA(30, "{type: Reject}"), kFlowSchema});
  Filter f({&reject});
  const int a = f.Level("a");
  std::vector<apf::Admission> executing;
  for (int i = 0; i < 4; ++i) executing.push_back(f.Start(0, "alice"));
  std::vector<apf::Admission> waiting;
  for (int i = 0; i < 2; ++i) waiting.push_back(f.Start(0, "alice"));
  REQUIRE(waiting[0].outcome == apf::Admission::Outcome::kWaiting);
  f.fc.Reconfigure(apf::kSecond, &reject);
  // setConfiguration with DesiredNumQueues 0 keeps the queues and the old length limit
  // and hand size; StartRequest's step 0 then applies the concurrency limit alone: 4 seats
  // in use of currentCL 4, so a new request is refused "concurrency-limit".
  const apf::Admission late = f.Start(2 * apf::kSecond, "alice");
  CHECK(late.outcome == apf::Admission::Outcome::kRejected);
  CHECK(late.reason == apf::RejectReason::kConcurrencyLimit);
  CHECK(f.fc.level(a).queue_set->waiting_requests() == 2);
  // finishRequestAndDispatchAsMuchAsPossible still dispatches from the old queues: the
  // first waiting request (id 5) takes the freed seat.
  f.fc.Finish(3 * apf::kSecond, executing[0].handle);
  REQUIRE(f.listener.ids.size() == 1);
  CHECK(f.listener.ids[0] == 5);
  CHECK(f.fc.level(a).queue_set->waiting_requests() == 1);
}

TEST_CASE("a deleted level is quiesced until idle, then removed (processOldPLsLocked, maybeReap)",
          "[flow_control][reconfigure]") {
  // The PriorityLevelConfiguration "a" is deleted; "to-a" now names a missing level and is
  // dangling, so digestFlowSchemasLocked leaves it out and alice falls to catch-all.
  const apf::FlowControlConfig without_a = ConfigOf({kFlowSchema});
  Filter f({&without_a});
  const int a = f.Level("a");
  const int catch_all = f.Level("catch-all");
  std::vector<apf::Admission> executing;
  for (int i = 0; i < 4; ++i) executing.push_back(f.Start(0, "alice"));
  const apf::Admission waiting = f.Start(0, "alice");
  REQUIRE(waiting.outcome == apf::Admission::Outcome::kWaiting);
  f.fc.Reconfigure(apf::kSecond, &without_a);
  // Busy, so quiescing: it keeps its share in the sum (30 + 5 + 0) and its 4 seats.
  CHECK(f.fc.level(a).nominal_cl == 4);
  CHECK(f.fc.level(catch_all).nominal_cl == 1);
  const apf::Admission late = f.Start(2 * apf::kSecond, "alice");
  CHECK(late.handle.level == catch_all);
  CHECK(late.outcome == apf::Admission::Outcome::kExecuting);  // catch-all's 1 seat
  // Its queued request is dispatched as before when a seat frees.
  f.fc.Finish(3 * apf::kSecond, executing[0].handle);
  REQUIRE(f.listener.ids == std::vector<std::uint64_t>{5});
  for (int i = 1; i < 4; ++i) f.fc.Finish(4 * apf::kSecond, executing[i].handle);
  CHECK(f.fc.level(a).nominal_cl == 4);  // the dispatched request still executes
  f.fc.Finish(5 * apf::kSecond, waiting.handle);
  // Idle: Handle's maybeReap queues a digestion, which removes the level. shareSum = 5:
  // catch-all = ceil(4 * 5 / 5) = 4; "a" reports no seats any more.
  CHECK(f.fc.level(a).nominal_cl == 0);
  CHECK(f.fc.level(catch_all).nominal_cl == 4);
  CHECK(f.fc.allocator()->Find("a") == nullptr);
}

TEST_CASE(
    "a deleted FlowSchema's flows are classified anew, its level stays (digestFlowSchemasLocked)",
    "[flow_control][reconfigure]") {
  const apf::FlowControlConfig without_fs = ConfigOf({LevelA(30, kOneQueue)});
  Filter f({&without_fs});
  const apf::Admission before = f.Start(0, "alice");
  CHECK(f.fc.flow_schema_name(before.flow_schema) == "to-a");
  f.fc.Reconfigure(apf::kSecond, &without_fs);
  const apf::Admission after = f.Start(apf::kSecond, "alice");
  CHECK(f.fc.flow_schema_name(after.flow_schema) == "catch-all");
  CHECK(after.handle.level == f.Level("catch-all"));
  // The level object still exists, so digestNewPLsLocked keeps it as it is: the real code
  // quiesces only levels whose object is gone, not levels no FlowSchema names.
  CHECK(f.fc.level(f.Level("a")).nominal_cl == 4);
  CHECK(f.fc.allocator()->Find("a") != nullptr);
}

TEST_CASE("a level and FlowSchema an apply brings keep the indices Foresee gave them",
          "[flow_control][reconfigure]") {
  const char* const kFenceFs = R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bob-fence}
spec:
  priorityLevelConfiguration: {name: fence}
  matchingPrecedence: 400
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
)";
  const std::string fence_pl =
      "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\n"
      "metadata: {name: fence}\nspec:\n  type: Limited\n  limited:\n"
      "    nominalConcurrencyShares: 5\n    lendablePercent: 0\n    borrowingLimitPercent: 0\n"
      "    limitResponse: {type: Reject}\n";
  const apf::FlowControlConfig fenced =
      ConfigOf({LevelA(30, kOneQueue), kFlowSchema, fence_pl, kFenceFs});
  Filter f({&fenced});
  const int fence = f.Level("fence");
  REQUIRE(fence == f.fc.level_count() - 1);  // after the first configuration's levels
  CHECK(f.fc.level(fence).nominal_cl == 0);  // not configured yet
  CHECK(f.Start(0, "bob").handle.level == f.Level("catch-all"));
  f.fc.Reconfigure(apf::kSecond, &fenced);
  // shareSum = 30 + 5 + 5 + 0 = 40: fence = ceil(4 * 5 / 40) = 1, a = ceil(4 * 30 / 40) = 3.
  CHECK(f.fc.level(fence).nominal_cl == 1);
  CHECK(f.fc.level(f.Level("a")).nominal_cl == 3);
  const apf::Admission bob = f.Start(apf::kSecond, "bob");
  CHECK(bob.handle.level == fence);
  CHECK(f.fc.flow_schema_name(bob.flow_schema) == "bob-fence");
  CHECK(bob.flow_schema == f.fc.flow_schema_count() - 1);
}
