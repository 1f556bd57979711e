// The FlowSchema object of flowcontrol.apiserver.k8s.io/v1, field for field, as the
// apiserver stores it (k8s.io/api flowcontrol/v1/types.go). A FlowSchema says which
// requests belong together (subjects and rules), which priority level they go to, and how
// they are split into flows (the distinguisher).
//
// These are plain values with the API's own string fields, so that validation can report
// a bad `kind` or `type` exactly as the apiserver does; the classifier
// (apf/classification/classifier.h) compiles them into a form made for matching.
#ifndef APF_CONFIG_FLOW_SCHEMA_H_
#define APF_CONFIG_FLOW_SCHEMA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace apf {

// The wildcards and well-known names of the API (flowcontrol/v1/types.go).
inline constexpr const char* kNameAll = "*";  // User, Group, ServiceAccount name
inline constexpr const char* kVerbAll = "*";
inline constexpr const char* kAPIGroupAll = "*";
inline constexpr const char* kResourceAll = "*";
inline constexpr const char* kNamespaceEvery = "*";
inline constexpr const char* kNonResourceAll = "*";
inline constexpr const char* kFlowSchemaNameExempt = "exempt";
inline constexpr const char* kFlowSchemaNameCatchAll = "catch-all";
inline constexpr std::int32_t kFlowSchemaMaxMatchingPrecedence = 10000;

inline constexpr const char* kSubjectKindUser = "User";
inline constexpr const char* kSubjectKindGroup = "Group";
inline constexpr const char* kSubjectKindServiceAccount = "ServiceAccount";
inline constexpr const char* kDistinguisherByUser = "ByUser";
inline constexpr const char* kDistinguisherByNamespace = "ByNamespace";

// The annotation that tells the apiserver's config producer whether it may overwrite a
// bootstrap object's spec (api: flowcontrol/v1/types.go AutoUpdateAnnotationKey).
inline constexpr const char* kAutoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec";

// The part of metav1.ObjectMeta the flow-control objects use. Everything else a live
// object carries (uid, resourceVersion, managedFields, ...) has no effect on APF.
struct ObjectMeta {
  std::string name;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  std::int64_t generation = 0;  // 0 when the object did not come from a cluster

  bool operator==(const ObjectMeta&) const = default;
};

struct UserSubject {
  std::string name;

  bool operator==(const UserSubject&) const = default;
};
struct GroupSubject {
  std::string name;

  bool operator==(const GroupSubject&) const = default;
};
struct ServiceAccountSubject {
  std::string namespace_;
  std::string name;

  bool operator==(const ServiceAccountSubject&) const = default;
};

// A union keyed by `kind`; exactly the member named by kind must be set (validation).
struct Subject {
  std::string kind;
  std::optional<UserSubject> user;
  std::optional<GroupSubject> group;
  std::optional<ServiceAccountSubject> service_account;

  bool operator==(const Subject&) const = default;
};

struct ResourcePolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;  // "pods", "pods/log", or exactly ["*"]
  bool cluster_scope = false;
  std::vector<std::string> namespaces;

  bool operator==(const ResourcePolicyRule&) const = default;
};

struct NonResourcePolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;

  bool operator==(const NonResourcePolicyRule&) const = default;
};

struct PolicyRulesWithSubjects {
  std::vector<Subject> subjects;
  std::vector<ResourcePolicyRule> resource_rules;
  std::vector<NonResourcePolicyRule> non_resource_rules;

  bool operator==(const PolicyRulesWithSubjects&) const = default;
};

struct FlowDistinguisherMethod {
  std::string type;  // "ByUser" or "ByNamespace"

  bool operator==(const FlowDistinguisherMethod&) const = default;
};

struct FlowSchemaSpec {
  std::string priority_level_name;       // spec.priorityLevelConfiguration.name
  std::int32_t matching_precedence = 0;  // 0 is defaulted to 1000
  std::optional<FlowDistinguisherMethod> distinguisher_method;
  std::vector<PolicyRulesWithSubjects> rules;

  bool operator==(const FlowSchemaSpec&) const = default;
};

struct FlowSchema {
  ObjectMeta metadata;
  FlowSchemaSpec spec;
};

}  // namespace apf

#endif  // APF_CONFIG_FLOW_SCHEMA_H_
