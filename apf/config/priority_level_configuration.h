// The PriorityLevelConfiguration object of flowcontrol.apiserver.k8s.io/v1, field for
// field (k8s.io/api flowcontrol/v1/types.go). A priority level is either Exempt (never
// limited) or Limited: a share of the server's seats, how much of it may be lent and
// borrowed, and what happens to requests over the limit (Queue or Reject).
//
// Optional fields are std::optional exactly where the API has a pointer, because "unset"
// means something: an unset borrowingLimitPercent is unlimited borrowing. Defaulting
// (apf/config/defaults.h) fills the fields the apiserver fills.
#ifndef APF_CONFIG_PRIORITY_LEVEL_CONFIGURATION_H_
#define APF_CONFIG_PRIORITY_LEVEL_CONFIGURATION_H_

#include <cstdint>
#include <optional>
#include <string>

#include "apf/config/flow_schema.h"

namespace apf {

inline constexpr const char* kPriorityLevelNameExempt = "exempt";
inline constexpr const char* kPriorityLevelNameCatchAll = "catch-all";
inline constexpr const char* kPriorityLevelTypeExempt = "Exempt";
inline constexpr const char* kPriorityLevelTypeLimited = "Limited";
inline constexpr const char* kLimitResponseQueue = "Queue";
inline constexpr const char* kLimitResponseReject = "Reject";

struct QueuingConfiguration {
  std::int32_t queues = 0;              // 0 is defaulted to 64
  std::int32_t hand_size = 0;           // 0 is defaulted to 8
  std::int32_t queue_length_limit = 0;  // 0 is defaulted to 50

  bool operator==(const QueuingConfiguration&) const = default;
};

struct LimitResponse {
  std::string type;                             // "Queue" or "Reject"
  std::optional<QueuingConfiguration> queuing;  // set if and only if type is Queue

  bool operator==(const LimitResponse&) const = default;
};

struct LimitedPriorityLevelConfiguration {
  std::optional<std::int32_t> nominal_concurrency_shares;  // unset is defaulted to 30
  LimitResponse limit_response;
  std::optional<std::int32_t> lendable_percent;         // unset is defaulted to 0
  std::optional<std::int32_t> borrowing_limit_percent;  // unset means unlimited

  bool operator==(const LimitedPriorityLevelConfiguration&) const = default;
};

struct ExemptPriorityLevelConfiguration {
  std::optional<std::int32_t> nominal_concurrency_shares;  // unset is defaulted to 0
  std::optional<std::int32_t> lendable_percent;            // unset is defaulted to 0

  bool operator==(const ExemptPriorityLevelConfiguration&) const = default;
};

// A union keyed by `type`: Limited has `limited`, Exempt has `exempt` (validation).
struct PriorityLevelConfigurationSpec {
  std::string type;
  std::optional<LimitedPriorityLevelConfiguration> limited;
  std::optional<ExemptPriorityLevelConfiguration> exempt;

  bool operator==(const PriorityLevelConfigurationSpec&) const = default;
};

struct PriorityLevelConfiguration {
  ObjectMeta metadata;
  PriorityLevelConfigurationSpec spec;
};

}  // namespace apf

#endif  // APF_CONFIG_PRIORITY_LEVEL_CONFIGURATION_H_
