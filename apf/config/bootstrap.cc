#include "apf/config/bootstrap.h"

#include <charconv>

namespace apf {
namespace {

// The authenticator's well-known names (k8s.io/apiserver pkg/authentication/user/user.go
// and pkg/authentication/serviceaccount/util.go).
constexpr const char* kSystemMasters = "system:masters";
constexpr const char* kSystemNodes = "system:nodes";
constexpr const char* kAllAuthenticated = "system:authenticated";
constexpr const char* kAllUnauthenticated = "system:unauthenticated";
constexpr const char* kAllServiceAccounts = "system:serviceaccounts";
constexpr const char* kKubeControllerManager = "system:kube-controller-manager";
constexpr const char* kKubeScheduler = "system:kube-scheduler";
constexpr const char* kKubeSystem = "kube-system";

ObjectMeta BootstrapMeta(const std::string& name) {
  ObjectMeta meta;
  meta.name = name;
  meta.annotations[kAutoUpdateAnnotation] = "true";
  return meta;
}

// The helpers of default.go: newPriorityLevelConfiguration, newFlowSchema, groups, users,
// kubeSystemServiceAccount, resourceRule, nonResourceRule.
PriorityLevelConfiguration Limited(const std::string& name, std::int32_t shares,
                                   std::int32_t lendable_percent,
                                   std::optional<QueuingConfiguration> queuing) {
  PriorityLevelConfiguration pl;
  pl.metadata = BootstrapMeta(name);
  pl.spec.type = kPriorityLevelTypeLimited;
  LimitedPriorityLevelConfiguration limited;
  limited.nominal_concurrency_shares = shares;
  limited.lendable_percent = lendable_percent;
  limited.limit_response.type = queuing ? kLimitResponseQueue : kLimitResponseReject;
  limited.limit_response.queuing = queuing;
  pl.spec.limited = limited;
  return pl;
}

QueuingConfiguration Queuing(std::int32_t queues, std::int32_t hand_size,
                             std::int32_t queue_length_limit) {
  return QueuingConfiguration{queues, hand_size, queue_length_limit};
}

std::vector<Subject> Groups(std::initializer_list<const char*> names) {
  std::vector<Subject> out;
  for (const char* n : names) out.push_back(Subject{kSubjectKindGroup, {}, GroupSubject{n}, {}});
  return out;
}

std::vector<Subject> Users(std::initializer_list<const char*> names) {
  std::vector<Subject> out;
  for (const char* n : names) out.push_back(Subject{kSubjectKindUser, UserSubject{n}, {}, {}});
  return out;
}

std::vector<Subject> KubeSystemServiceAccounts(std::initializer_list<const char*> names) {
  std::vector<Subject> out;
  for (const char* n : names) {
    out.push_back(
        Subject{kSubjectKindServiceAccount, {}, {}, ServiceAccountSubject{kKubeSystem, n}});
  }
  return out;
}

std::vector<Subject> Concat(std::vector<Subject> a, const std::vector<Subject>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ResourcePolicyRule ResourceRule(std::vector<std::string> verbs, std::vector<std::string> groups,
                                std::vector<std::string> resources,
                                std::vector<std::string> namespaces, bool cluster_scope) {
  return ResourcePolicyRule{std::move(verbs), std::move(groups), std::move(resources),
                            cluster_scope, std::move(namespaces)};
}

NonResourcePolicyRule NonResourceRule(std::vector<std::string> verbs,
                                      std::vector<std::string> urls) {
  return NonResourcePolicyRule{std::move(verbs), std::move(urls)};
}

// "Everything": all resources everywhere plus all non-resource URLs.
PolicyRulesWithSubjects Everything(std::vector<Subject> subjects) {
  return PolicyRulesWithSubjects{
      std::move(subjects),
      {ResourceRule({kVerbAll}, {kAPIGroupAll}, {kResourceAll}, {kNamespaceEvery}, true)},
      {NonResourceRule({kVerbAll}, {kNonResourceAll})}};
}

FlowSchema NewFlowSchema(const std::string& name, const std::string& level, std::int32_t precedence,
                         const char* distinguisher, PolicyRulesWithSubjects rules) {
  FlowSchema fs;
  fs.metadata = BootstrapMeta(name);
  fs.spec.priority_level_name = level;
  fs.spec.matching_precedence = precedence;
  if (distinguisher) fs.spec.distinguisher_method = FlowDistinguisherMethod{distinguisher};
  fs.spec.rules.push_back(std::move(rules));
  return fs;
}

PriorityLevelConfiguration ExemptLevelObject() {
  PriorityLevelConfiguration pl;
  pl.metadata = BootstrapMeta(kPriorityLevelNameExempt);
  pl.spec.type = kPriorityLevelTypeExempt;
  pl.spec.exempt = ExemptPriorityLevelConfiguration{0, 0};
  return pl;
}

PriorityLevelConfiguration CatchAllLevelObject() {
  return Limited(kPriorityLevelNameCatchAll, 5, 0, std::nullopt);
}

FlowSchema ExemptSchemaObject() {
  return NewFlowSchema(kFlowSchemaNameExempt, kPriorityLevelNameExempt, 1, nullptr,
                       Everything(Groups({kSystemMasters})));
}

FlowSchema CatchAllSchemaObject() {
  return NewFlowSchema(kFlowSchemaNameCatchAll, kPriorityLevelNameCatchAll, 10000,
                       kDistinguisherByUser,
                       Everything(Groups({kAllUnauthenticated, kAllAuthenticated})));
}

}  // namespace

std::string KubernetesVersion::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::optional<KubernetesVersion> ParseKubernetesVersion(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<KubernetesVersion> {
    if (error) *error = why;
    return std::nullopt;
  };
  std::string_view s = text;
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  KubernetesVersion v;
  const char* p = s.data();
  const char* end = s.data() + s.size();
  auto [p1, ec1] = std::from_chars(p, end, v.major);
  if (ec1 != std::errc() || p1 == end || *p1 != '.') {
    return fail("\"" + std::string(text) + "\" is not a Kubernetes version like 1.36");
  }
  auto [p2, ec2] = std::from_chars(p1 + 1, end, v.minor);
  if (ec2 != std::errc()) {
    return fail("\"" + std::string(text) + "\" is not a Kubernetes version like 1.36");
  }
  if (p2 != end) {  // an optional patch release
    int patch = 0;
    auto [p3, ec3] = std::from_chars(p2 + 1, end, patch);
    if (*p2 != '.' || ec3 != std::errc() || p3 != end) {
      return fail("\"" + std::string(text) + "\" is not a Kubernetes version like 1.36");
    }
  }
  if (v < kOldestKubernetesVersion || v > kNewestKubernetesVersion) {
    return fail("Kubernetes " + v.ToString() +
                " is not supported (supported: " + kOldestKubernetesVersion.ToString() + " to " +
                kNewestKubernetesVersion.ToString() + ")");
  }
  return v;
}

BootstrapObjects Bootstrap(KubernetesVersion version) {
  BootstrapObjects b;
  b.mandatory_priority_levels = {CatchAllLevelObject(), ExemptLevelObject()};
  b.mandatory_flow_schemas = {ExemptSchemaObject(), CatchAllSchemaObject()};

  b.suggested_priority_levels = {
      Limited("system", 30, 33, Queuing(64, 6, 50)),
      Limited("node-high", 40, 25, Queuing(64, 6, 50)),
      Limited("leader-election", 10, 0, Queuing(16, 4, 50)),
      Limited("workload-high", 40, 50, Queuing(128, 6, 50)),
      Limited("workload-low", 100, 90, Queuing(128, 6, 50)),
      Limited("global-default", 20, 50, Queuing(128, 6, 50)),
  };

  const std::vector<std::string> get_create_update = {"get", "create", "update"};
  auto& fs = b.suggested_flow_schemas;
  fs.push_back(NewFlowSchema("system-nodes", "system", 500, kDistinguisherByUser,
                             Everything(Groups({kSystemNodes}))));
  fs.push_back(NewFlowSchema(
      "system-node-high", "node-high", 400, kDistinguisherByUser,
      PolicyRulesWithSubjects{
          Groups({kSystemNodes}),
          {ResourceRule({kVerbAll}, {""}, {"nodes", "nodes/status"}, {kNamespaceEvery}, true),
           ResourceRule({kVerbAll}, {"coordination.k8s.io"}, {"leases"}, {kNamespaceEvery}, false)},
          {}}));
  fs.push_back(NewFlowSchema(
      "probes", "exempt", 2, nullptr,
      PolicyRulesWithSubjects{Groups({kAllUnauthenticated, kAllAuthenticated}),
                              {},
                              {NonResourceRule({"get"}, {"/healthz", "/readyz", "/livez"})}}));
  fs.push_back(NewFlowSchema(
      "system-leader-election", "leader-election", 100, kDistinguisherByUser,
      PolicyRulesWithSubjects{Concat(Users({kKubeControllerManager, kKubeScheduler}),
                                     KubeSystemServiceAccounts({kNameAll})),
                              {ResourceRule(get_create_update, {"coordination.k8s.io"}, {"leases"},
                                            {kNamespaceEvery}, false)},
                              {}}));
  if (version < KubernetesVersion{1, 34}) {
    // Removed in 1.34 by "Remove FlowSchemas handling non-leases-backed leader election".
    fs.push_back(NewFlowSchema(
        "workload-leader-election", "leader-election", 200, kDistinguisherByUser,
        PolicyRulesWithSubjects{KubeSystemServiceAccounts({kNameAll}),
                                {ResourceRule(get_create_update, {""}, {"endpoints", "configmaps"},
                                              {kNamespaceEvery}, false),
                                 ResourceRule(get_create_update, {"coordination.k8s.io"},
                                              {"leases"}, {kNamespaceEvery}, false)},
                                {}}));
    fs.push_back(NewFlowSchema(
        "endpoint-controller", "workload-high", 150, kDistinguisherByUser,
        PolicyRulesWithSubjects{
            Concat(Users({kKubeControllerManager}),
                   KubeSystemServiceAccounts(
                       {"endpoint-controller", "endpointslicemirroring-controller"})),
            {ResourceRule(get_create_update, {""}, {"endpoints"}, {kNamespaceEvery}, false)},
            {}}));
  }
  fs.push_back(NewFlowSchema("kube-controller-manager", "workload-high", 800,
                             kDistinguisherByNamespace,
                             Everything(Users({kKubeControllerManager}))));
  fs.push_back(NewFlowSchema("kube-scheduler", "workload-high", 800, kDistinguisherByNamespace,
                             Everything(Users({kKubeScheduler}))));
  fs.push_back(NewFlowSchema("kube-system-service-accounts", "workload-high", 900,
                             kDistinguisherByNamespace,
                             Everything(KubeSystemServiceAccounts({kNameAll}))));
  fs.push_back(NewFlowSchema("service-accounts", "workload-low", 9000, kDistinguisherByUser,
                             Everything(Groups({kAllServiceAccounts}))));
  fs.push_back(NewFlowSchema("global-default", "global-default", 9900, kDistinguisherByUser,
                             Everything(Groups({kAllUnauthenticated, kAllAuthenticated}))));
  return b;
}

const FlowSchema* MandatoryFlowSchema(std::string_view name) {
  static const FlowSchema exempt = ExemptSchemaObject();
  static const FlowSchema catch_all = CatchAllSchemaObject();
  if (name == kFlowSchemaNameExempt) return &exempt;
  if (name == kFlowSchemaNameCatchAll) return &catch_all;
  return nullptr;
}

const PriorityLevelConfiguration* MandatoryPriorityLevel(std::string_view name) {
  static const PriorityLevelConfiguration exempt = ExemptLevelObject();
  static const PriorityLevelConfiguration catch_all = CatchAllLevelObject();
  if (name == kPriorityLevelNameExempt) return &exempt;
  if (name == kPriorityLevelNameCatchAll) return &catch_all;
  return nullptr;
}

bool IsSuggestedFlowSchema(KubernetesVersion version, std::string_view name) {
  for (const FlowSchema& fs : Bootstrap(version).suggested_flow_schemas) {
    if (fs.metadata.name == name) return true;
  }
  return false;
}

bool IsSuggestedPriorityLevel(KubernetesVersion version, std::string_view name) {
  for (const PriorityLevelConfiguration& pl : Bootstrap(version).suggested_priority_levels) {
    if (pl.metadata.name == name) return true;
  }
  return false;
}

}  // namespace apf
