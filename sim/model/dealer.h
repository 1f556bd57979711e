// `apfsim model dealer`: deals hands for given deck sizes, hand sizes and flow hashes,
// so that the dealer can be checked against cases recorded from the real
// shufflesharding.go. Input is a JSON array of
//   {"deckSize": int, "handSize": int, "hashValue": "<uint64 decimal string>"}
// and the output has one entry per input, {"valid": true, "hand": [cards in deal order]}
// or {"valid": false, "error": "<NewDealer's message>"}.
#ifndef SIM_MODEL_DEALER_H_
#define SIM_MODEL_DEALER_H_

#include <nlohmann/json.hpp>
#include <string>

namespace sim {

// `cases` is the parsed input; `source` names it in InputErrors ("<stdin>").
nlohmann::json ReplayDealerCases(const nlohmann::json& cases, const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_DEALER_H_
