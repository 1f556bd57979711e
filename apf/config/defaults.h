// Defaulting of FlowSchema and PriorityLevelConfiguration, as the apiserver applies it to
// every v1 object it is given (k/k pkg/apis/flowcontrol/v1/defaults.go), and the
// conversion of v1beta3 values to v1 (k/k pkg/apis/flowcontrol/v1beta3/defaults.go and
// conversion.go). Defaulting happens before validation, so validation sees these values.
#ifndef APF_CONFIG_DEFAULTS_H_
#define APF_CONFIG_DEFAULTS_H_

#include <cstdint>

#include "apf/config/flow_schema.h"
#include "apf/config/priority_level_configuration.h"

namespace apf {

inline constexpr std::int32_t kDefaultMatchingPrecedence = 1000;
inline constexpr std::int32_t kDefaultNominalConcurrencyShares = 30;
inline constexpr std::int32_t kDefaultQueues = 64;
inline constexpr std::int32_t kDefaultHandSize = 8;
inline constexpr std::int32_t kDefaultQueueLengthLimit = 50;

// The annotation with which a v1beta3 client says "my nominalConcurrencyShares of 0 is
// meant" (api: flowcontrol/v1beta3/types.go PriorityLevelPreserveZeroConcurrencySharesKey).
inline constexpr const char* kPreserveZeroConcurrencySharesAnnotation =
    "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

// matchingPrecedence 0 becomes 1000.
void SetFlowSchemaDefaults(FlowSchema& fs);

// Limited: nominalConcurrencyShares unset becomes 30, lendablePercent unset becomes 0.
// Exempt: both unset become 0. Queuing: 0 queues, handSize, queueLengthLimit become 64,
// 8 and 50. The pointer-valued fields keep an explicit 0: that is why they are pointers.
void SetPriorityLevelConfigurationDefaults(PriorityLevelConfiguration& pl);

// A v1beta3 PriorityLevelConfiguration differs from v1 in one respect: its Limited
// nominalConcurrencyShares is a plain int32, so a 0 there (written or omitted) means
// "default me" and becomes 30, unless the object carries the preserve-zero annotation.
// Call this on an object read as v1beta3, before SetPriorityLevelConfigurationDefaults;
// it also drops that annotation, as the conversion to the internal version does.
void ConvertV1beta3PriorityLevelConfiguration(PriorityLevelConfiguration& pl);

}  // namespace apf

#endif  // APF_CONFIG_DEFAULTS_H_
