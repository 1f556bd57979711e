// The logic of `apfsim explain`: how one request is classified under a flow-control
// configuration, told step by step (every FlowSchema tried in matching order and why it
// did or did not match, the one chosen, its level, the distinguisher, the flow hash, the
// hand of queues and the level's seats), as JSON and as text for a terminal.
#ifndef SIM_FLOWCONTROL_EXPLAIN_H_
#define SIM_FLOWCONTROL_EXPLAIN_H_

#include <nlohmann/json.hpp>
#include <string>

#include "apf/request_digest.h"
#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/summary.h"

namespace sim {

struct ExplainOptions {
  int server_concurrency_limit = kDefaultServerConcurrencyLimit;
};

// At least {"flowSchema", "priorityLevel", "distinguisher", "hash": "<uint64>",
// "tried": [{"flowSchema", "matched", "why"}]}, plus the request, the level and the hand.
nlohmann::json ExplainRequest(const FlowControlSetup& setup, const apf::UserInfo& user,
                              const apf::RequestInfo& request, const ExplainOptions& options);

// The same for a person.
std::string FormatExplanation(const nlohmann::json& explanation);

}  // namespace sim

#endif  // SIM_FLOWCONTROL_EXPLAIN_H_
