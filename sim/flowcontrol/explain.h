// The logic of `apfsim explain`: how one request is classified under a flow-control
// configuration, told step by step (every FlowSchema tried in matching order and why it
// did or did not match, the one chosen, its level, the distinguisher, the flow hash, the
// hand of queues and the level's seats), and what the request costs: the work estimator's
// seats for it (doc/model.md#work-estimation) and why, as JSON and as text for a terminal.
// Tested by tests/cli/cli_flowcontrol_test.cc and tests/sim/flowcontrol/explain_test.cc.
#ifndef SIM_FLOWCONTROL_EXPLAIN_H_
#define SIM_FLOWCONTROL_EXPLAIN_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/classification/request_digest.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/summary.h"

namespace sim {

struct ExplainOptions {
  int server_concurrency_limit = kDefaultServerConcurrencyLimit;
  // What the work estimator reads (doc/model.md#work-estimation): its configuration (feature
  // gates), the statistics of the request's resource, and the watches a write would fan out to.
  apf::WorkEstimatorConfig estimator = apf::DefaultWorkEstimatorConfig();
  apf::ObjectStats object_stats;
  bool object_stats_given = false;  // false: no count was given; priced as an empty resource
  std::int64_t watch_count = 0;
};

// The hand of queues the level of `c` deals its flow (doc/model.md#deal), in deal order:
// the queue set's apf::Dealer on the classifier's flow hash. Empty where the level deals no
// hand (exempt, Reject, or one queue: then c.uses_flow_hash is false). Every hand that
// `explain`, `explain --collisions` and `compare` show comes from here.
std::vector<int> FlowHand(const apf::Classifier& classifier, const apf::Classification& c);

// Why a level deals no hand, for a person: "exempt: requests are not queued", "one queue:
// every flow shares it" or "Reject: the level has no queues"; "" where it deals one.
std::string NoHandReason(const apf::PriorityLevel& level);

// At least {"flowSchema", "priorityLevel", "distinguisher", "hash": "<uint64>",
// "tried": [{"flowSchema", "matched", "why"}], "workEstimate": {"initialSeats",
// "finalSeats", "additionalLatencySeconds", "estimator", "why"}}, plus the request, the
// level and the hand. level.maxCL is the level's maximum concurrency; level.maxSeats is the
// same number under its old name (until the next release: summary.json's maxSeats is the
// per-request cap, which here is level.maxSeatsPerRequest).
nlohmann::json ExplainRequest(const FlowControlSetup& setup, const apf::UserInfo& user,
                              const apf::RequestInfo& request, const ExplainOptions& options);

// The same for a person.
std::string FormatExplanation(const nlohmann::json& explanation);

// One call a scenario's client makes, as `explain --collisions` weighs it: the client (with
// its process where each process is its own user), who makes the call and what it is.
struct CollisionCall {
  std::string client;
  apf::UserInfo user;
  apf::RequestInfo request;
};

// Which flows of `calls` land at priority level `level` and share its queues: each flow
// (FlowSchema and distinguisher, hashed as the apiserver hashes them) with its hand of
// queues, dealt as the level's queue set deals it, and every pair of flows whose hands
// overlap with the queues they share. {"priorityLevel", "queues", "handSize",
// "usesFlowHash", "note" (where no hand is dealt), "flows": [{"flowSchema",
// "distinguisher", "hash", "hand", "clients"}], "shared": [{"flows": [i, j], "queues"}]},
// the flows in the order of their first call, each pair's queues in ascending order.
// An unknown level throws InputError naming --collisions.
nlohmann::json ExplainCollisions(const FlowControlSetup& setup, const std::string& level,
                                 const std::vector<CollisionCall>& calls);

// The same for a person.
std::string FormatCollisions(const nlohmann::json& collisions);

}  // namespace sim

#endif  // SIM_FLOWCONTROL_EXPLAIN_H_
