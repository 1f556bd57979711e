// What a configuration change does to each of a scenario's clients: for every distinct
// request shape a client sends (its verb and resource, "LIST tenantbindings"), where the
// apiserver puts it before and after the change (FlowSchema, priority level, flow
// distinguisher), what the work estimator charges it (initial seats, and a write's final
// seats and additional latency) and which hand of queues its flow is dealt. Shapes that
// moved come first; `apfsim compare` prints them and writes them to compare.json
// ("clientMoves").
//
// Everything is as the run has it at t=0: the classifier of the side's configuration, the
// estimator the run uses (apf::WorkEstimator with the level's maxSeats) on the scenario's
// object counts and no watch open yet, the template's own `seats` where it gives them, and
// the hand from FlowHand (sim/flowcontrol/explain.h), the helper `explain --collisions`
// uses. A note says where the run departs from that later (spec.events, watches).
//
// Tested by tests/sim/report/client_moves_test.cc.
#ifndef SIM_REPORT_CLIENT_MOVES_H_
#define SIM_REPORT_CLIENT_MOVES_H_

#include <nlohmann/json.hpp>
#include <string>

#include "sim/flowcontrol/loader.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One side of a change: the scenario (its clients, resources, limits and gates) and the
// flow-control configuration its run starts with. Both must outlive the call.
struct ChangeSide {
  const Scenario* scenario = nullptr;
  const FlowControlSetup* flow_control = nullptr;
};

// {"asOf": "t=0", "requests": [...], "notes": [...]}. A request entry is
// {"client", "request" ("LIST tenantbindings"), "verb", "apiGroup", "resource",
//  "subresource", "path", "calls" (the client's calls of this shape, one per process and
//  namespace it can go to, that land as this entry says), "moved", "line" (what
//  FormatClientMoves prints), "before", "after"}; a side is null where the client or shape
// is not in it, else {"flowSchema", "priorityLevel", "flowDistinguisher", "initialSeats",
// "finalSeats", "additionalLatencySeconds", "seatsFromTemplate", "hand", "handNote",
// "flows", "flowHands"}. `flows` counts the distinct flows of the calls; flowDistinguisher
// and hand are that flow's where there is one (else null, each flow's in flowHands:
// [{"flowDistinguisher", "hand"}]); hand is null where the level deals none (handNote says
// why). A shape whose calls land in more than one way (a FlowSchema matching some
// namespaces only) has one entry per way. Moved entries first, each group in the order of
// the clients and their calls.
nlohmann::json DescribeClientMoves(const ChangeSide& before, const ChangeSide& after);

// The entries for a person, one line each, moved first, under a heading; the notes last.
// "" when there are neither entries nor notes.
std::string FormatClientMoves(const nlohmann::json& moves);

}  // namespace sim

#endif  // SIM_REPORT_CLIENT_MOVES_H_
