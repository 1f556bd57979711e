// Validation of FlowSchema and PriorityLevelConfiguration exactly as the apiserver refuses
// objects on create and update (k/k pkg/apis/flowcontrol/validation/validation.go, with
// the options pkg/registry/flowcontrol/*/strategy.go passes). Every rule there has a
// counterpart here with the same field path and message, so a user sees here what
// `kubectl apply` would have told them.
//
// Validate defaulted objects (apf/config/defaults.h): the apiserver defaults first.
#ifndef APF_CONFIG_VALIDATION_H_
#define APF_CONFIG_VALIDATION_H_

#include <string>
#include <vector>

#include "apf/config/flow_schema.h"
#include "apf/config/priority_level_configuration.h"

namespace apf {

// One field error, as k8s.io/apimachinery/pkg/util/validation/field.Error prints it:
// "<field>: <Type text>: <bad value>: <detail>".
struct FieldError {
  enum class Type { kRequired, kInvalid, kNotSupported, kForbidden, kDuplicate };
  Type type = Type::kInvalid;
  std::string field;      // "spec.limited.lendablePercent"
  std::string bad_value;  // rendered as Go renders it: 101, "foo", ["*","get"]; "" if none
  std::string detail;

  std::string Body() const;      // "Invalid value: 101: must be between 0 and 100, inclusive"
  std::string ToString() const;  // field + ": " + Body()
};

std::vector<FieldError> ValidateFlowSchema(const FlowSchema& fs);
std::vector<FieldError> ValidatePriorityLevelConfiguration(const PriorityLevelConfiguration& pl);

// The pieces, exposed because the lint and the loader reuse them.
// Messages of apimachinery's IsDNS1123Subdomain / IsDNS1123Label (empty when valid).
std::vector<std::string> DNS1123SubdomainErrors(const std::string& value);
std::vector<std::string> DNS1123LabelErrors(const std::string& value);
// ValidateNonResourceURLPath: "" when the URL pattern is valid, else the detail message.
std::string NonResourceURLPathError(const std::string& path);
// priorityLevelConfigurationQueuingMaxQueues. (The hand-size limit is the dealer's:
// apf/queueing/shuffle_sharding.h RequiredEntropyBits and kMaxHashBits.)
inline constexpr std::int32_t kMaxQueues = 10 * 1000 * 1000;

}  // namespace apf

#endif  // APF_CONFIG_VALIDATION_H_
