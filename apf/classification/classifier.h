// Classification: which FlowSchema a request matches, its priority level, and its flow
// (k8s.io/apiserver pkg/util/flowcontrol/rule.go and apf_controller.go startRequest;
// doc/model.md#flowschema-order).
//
// The classifier is built once per configuration: schemas are kept in matching order,
// every schema's level is resolved to an index, "*"-lists are flagged, service-account
// subjects are turned into the user-name prefix or name they match, and non-resource
// patterns into the prefix they match. Classify() then walks the schemas and allocates
// nothing: the result's distinguisher is a view into the digest's strings.
//
// The flow hash is not computed by Classify(): SHA-256 costs more than the matching, and
// a simulator sees the same (schema, distinguisher) pairs again and again, so callers may
// cache it. FlowHash() and apf/classification/flow_hash.h compute it.
#ifndef APF_CLASSIFICATION_CLASSIFIER_H_
#define APF_CLASSIFICATION_CLASSIFIER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apf/classification/request_digest.h"
#include "apf/config/flow_control_config.h"

namespace apf {

struct Classification {
  int flow_schema = -1;     // index into Classifier::flow_schemas() and the config's
  int priority_level = -1;  // index into the config's priority_levels
  // The flow distinguisher; "" unless the level has more than one queue. A view into the
  // classified digest (its user or namespace).
  std::string_view distinguisher;
  // True when the level has more than one queue, so the apiserver hashes the flow.
  bool uses_flow_hash = false;
  // The distinguisher is the user's name (ByUser): every request of one user in this
  // FlowSchema is one flow.
  bool distinguished_by_user = false;
  // No FlowSchema matched and the catch-all was used as the apiserver's fallback.
  bool fell_back_to_catch_all = false;
};

// The policy rules one of whose subjects matches a user: bit k for the k-th rule in
// matching order (the schemas' rules one after another). Subjects depend on the user alone
// (name and groups), so a caller that sends many requests for one identity computes the
// mask once (Classifier::SubjectsOf) and passes it to Classify, which then checks only
// those rules, and only their resource and non-resource parts.
struct SubjectMask {
  std::vector<std::uint64_t> words;
};

// Why one FlowSchema did or did not match, for `apfsim explain`.
struct SchemaMatchTrace {
  std::string flow_schema;
  bool matched = false;
  std::string why;
};

class Classifier {
 public:
  // `config` must outlive the classifier.
  explicit Classifier(const FlowControlConfig& config);
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  Classification Classify(const RequestDigest& request) const;
  // The same result, when `subjects` is SubjectsOf(the digest's user and groups) from a
  // classifier of the same configuration.
  Classification Classify(const RequestDigest& request, const SubjectMask& subjects) const;
  SubjectMask SubjectsOf(std::string_view user, std::span<const std::string> groups) const;

  // What Classify returns for `request` once it chose `schema` (falling back to the
  // catch-all when `fell_back`): the level, and the distinguisher read off the digest. A
  // caller that remembers the choice for requests it knows to match alike gets the same
  // Classification without the walk.
  Classification Result(int schema, const RequestDigest& request, bool fell_back) const {
    return Result(schema, request.user, request.namespace_, fell_back);
  }
  // The same from the only parts of a request a distinguisher reads.
  Classification Result(int schema, std::string_view user, std::string_view namespace_,
                        bool fell_back) const;
  // Whether some resource rule names namespaces (a list other than ["*"]). When none does,
  // a resource request's namespace decides its FlowSchema only by being empty or not.
  bool reads_namespace_names() const { return reads_namespace_names_; }

  // hashFlowID(schema name, distinguisher) when the level hashes flows, else 0.
  std::uint64_t FlowHash(const Classification& c) const;

  // The schemas tried, in order, up to and including the one chosen, with reasons.
  std::vector<SchemaMatchTrace> Explain(const RequestDigest& request) const;

  const FlowControlConfig& config() const { return *config_; }
  const FlowSchema& flow_schema(int index) const { return config_->flow_schemas[index]; }
  const PriorityLevel& priority_level(int index) const { return config_->priority_levels[index]; }

  // Whether one schema matches (its rules only; precedence is not considered).
  bool SchemaMatches(int flow_schema, const RequestDigest& request) const;

 private:
  // A list that is "everything" exactly when it is ["*"] (rule.go containsString).
  struct StringList {
    bool all = false;
    std::vector<std::string> values;
    bool Contains(std::string_view s) const;
  };
  struct CompiledSubject {
    enum class Kind { kAny, kUser, kGroup, kServiceAccountPrefix, kNever } kind = Kind::kNever;
    std::string text;  // user name, group name, or the service-account user-name prefix
  };
  struct CompiledResourceRule {
    StringList verbs, api_groups, resources, namespaces;
    bool cluster_scope = false;
  };
  struct CompiledNonResourceURL {
    bool all = false;
    std::string exact;   // the pattern as written
    std::string prefix;  // the pattern without one trailing '*', ending in '/'
  };
  struct CompiledNonResourceRule {
    StringList verbs;
    std::vector<CompiledNonResourceURL> urls;
  };
  struct CompiledRule {
    std::vector<CompiledSubject> subjects;
    std::vector<CompiledResourceRule> resource_rules;
    std::vector<CompiledNonResourceRule> non_resource_rules;
  };
  struct CompiledSchema {
    std::vector<CompiledRule> rules;
    int priority_level = -1;
    enum class Distinguisher { kNone, kByUser, kByNamespace } distinguisher = Distinguisher::kNone;
    bool uses_flow_hash = false;
    bool is_catch_all = false;
  };

  static StringList MakeList(const std::vector<std::string>& list);
  static bool SubjectMatches(const CompiledSubject& s, const RequestDigest& r);
  static bool ResourceRuleMatches(const CompiledResourceRule& rule, const RequestDigest& r);
  static bool NonResourceRuleMatches(const CompiledNonResourceRule& rule, const RequestDigest& r);
  static bool RuleMatches(const CompiledRule& rule, const RequestDigest& r);
  // The rule's resource or non-resource part alone (its subjects are known to match).
  static bool RequestMatches(const CompiledRule& rule, const RequestDigest& r);
  std::string ExplainSchema(int schema, const RequestDigest& r, bool* matched) const;
  static std::string ResourceRuleMismatch(const ResourcePolicyRule& rr,
                                          const CompiledResourceRule& c, const RequestDigest& r);

  const FlowControlConfig* config_;
  std::vector<CompiledSchema> schemas_;
  int last_catch_all_ = -1;  // the fallback Classify settles on when nothing matches
  bool reads_namespace_names_ = false;
  // Every rule in matching order, with its schema: what a SubjectMask's bits index.
  struct RuleRef {
    int schema;
    const CompiledRule* rule;
  };
  std::vector<RuleRef> rules_;
};

inline Classification Classifier::Result(int schema, std::string_view user,
                                         std::string_view namespace_, bool fell_back) const {
  const CompiledSchema& cs = schemas_[schema];
  Classification c;
  c.flow_schema = schema;
  c.priority_level = cs.priority_level;
  c.fell_back_to_catch_all = fell_back;
  c.uses_flow_hash = cs.uses_flow_hash;
  if (cs.uses_flow_hash) {
    switch (cs.distinguisher) {
      case CompiledSchema::Distinguisher::kByUser:
        c.distinguisher = user;
        c.distinguished_by_user = true;
        break;
      case CompiledSchema::Distinguisher::kByNamespace:
        c.distinguisher = namespace_;
        break;
      case CompiledSchema::Distinguisher::kNone:
        break;
    }
  }
  return c;
}

}  // namespace apf

#endif  // APF_CLASSIFICATION_CLASSIFIER_H_
