// `apfsim model retry-after`: replays the times of successive drops at one priority
// level through the Retry-After tracker (apf/filter/retry_after_tracker.h), so that it can be
// checked against cases recorded from the real dropped_requests_tracker.go. Input is a
// JSON array of {"drops": [unix seconds, ...]} (numbers; only the whole second counts,
// as time.Now().Unix()), and the output has one {"retryAfter": [int, ...]} per case:
// the Retry-After header value each drop's 429 carries (the drop is recorded first).
#ifndef SIM_MODEL_RETRY_AFTER_H_
#define SIM_MODEL_RETRY_AFTER_H_

#include <nlohmann/json.hpp>
#include <string>

namespace sim {

// `cases` is the parsed input; `source` names it in InputErrors ("<stdin>").
nlohmann::json ReplayRetryAfterCases(const nlohmann::json& cases, const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_RETRY_AFTER_H_
