#include "apf/config/validation.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "apf/config/bootstrap.h"
#include "apf/queueing/shuffle_sharding.h"

namespace apf {
namespace {

using Errors = std::vector<FieldError>;

// How field.Error renders a bad value: simple types plainly, strings quoted (Go %q), and
// everything else as JSON.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string JsonList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += Quote(values[i]);
  }
  return out + "]";
}

std::string SupportedValues(std::initializer_list<const char*> sorted) {
  std::string out = "supported values: ";
  bool first = true;
  for (const char* v : sorted) {
    out += (first ? "" : ", ") + Quote(v);
    first = false;
  }
  return out;
}

FieldError Invalid(std::string field, std::string value, std::string detail) {
  return {FieldError::Type::kInvalid, std::move(field), std::move(value), std::move(detail)};
}
FieldError Required(std::string field, std::string detail) {
  return {FieldError::Type::kRequired, std::move(field), "", std::move(detail)};
}
FieldError Forbidden(std::string field, std::string detail) {
  return {FieldError::Type::kForbidden, std::move(field), "", std::move(detail)};
}
FieldError NotSupported(std::string field, std::string value, std::string detail) {
  return {FieldError::Type::kNotSupported, std::move(field), std::move(value), std::move(detail)};
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

bool HasWildcard(const std::vector<std::string>& list) {
  return std::find(list.begin(), list.end(), "*") != list.end();
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool IsDNS1123Label(const std::string& s, size_t begin, size_t end) {
  if (begin >= end) return false;
  if (!IsLowerAlnum(s[begin]) || !IsLowerAlnum(s[end - 1])) return false;
  for (size_t i = begin; i < end; ++i) {
    if (!IsLowerAlnum(s[i]) && s[i] != '-') return false;
  }
  return true;
}

const std::set<std::string>& SupportedVerbs() {
  static const std::set<std::string> verbs = {
      "get", "list", "create", "update", "delete", "deletecollection", "patch", "watch", "proxy"};
  return verbs;
}

constexpr std::initializer_list<const char*> kSortedVerbs = {
    "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"};

void ValidateName(const std::string& name, Errors& errs) {
  if (name.empty()) {
    errs.push_back(Required("metadata.name", "name or generateName is required"));
    return;
  }
  for (const std::string& msg : DNS1123SubdomainErrors(name)) {
    errs.push_back(Invalid("metadata.name", Quote(name), msg));
  }
}

void ValidateVerbs(const std::vector<std::string>& verbs, const std::string& path, Errors& errs) {
  if (verbs.empty()) {
    errs.push_back(Required(path, "verbs must contain at least one value"));
  } else if (HasWildcard(verbs)) {
    if (verbs.size() > 1) {
      errs.push_back(
          Invalid(path, JsonList(verbs), "if '*' is present, must not specify other verbs"));
    }
  } else {
    for (const std::string& v : verbs) {
      if (!SupportedVerbs().count(v)) {
        std::string detail = "supported values: ";
        bool first = true;
        for (const char* s : kSortedVerbs) {
          detail += (first ? "" : ", ") + Quote(s);
          first = false;
        }
        errs.push_back(NotSupported(path, JsonList(verbs), detail));
        break;
      }
    }
  }
}

void ValidateServiceAccountSubject(const Subject& subject, const std::string& path, Errors& errs) {
  if (!subject.service_account) {
    errs.push_back(Required(path + ".serviceAccount",
                            "serviceAccount is required when subject kind is 'ServiceAccount'"));
    return;
  }
  const ServiceAccountSubject& sa = *subject.service_account;
  if (sa.name.empty()) {
    errs.push_back(Required(path + ".serviceAccount.name", ""));
  } else if (sa.name != kNameAll) {
    for (const std::string& msg : DNS1123SubdomainErrors(sa.name)) {
      errs.push_back(Invalid(path + ".serviceAccount.name", Quote(sa.name), msg));
    }
  }
  if (!sa.namespace_.empty()) {
    for (const std::string& msg : DNS1123LabelErrors(sa.namespace_)) {
      errs.push_back(Invalid(path + ".serviceAccount.namespace", Quote(sa.namespace_), msg));
    }
  } else {
    errs.push_back(
        Required(path + ".serviceAccount.namespace", "must specify namespace for service account"));
  }
}

void ValidateUserSubject(const Subject& subject, const std::string& path, Errors& errs) {
  if (!subject.user) {
    errs.push_back(Required(path + ".user", "user is required when subject kind is 'User'"));
  } else if (subject.user->name.empty()) {
    errs.push_back(Required(path + ".user.name", ""));
  }
}

void ValidateGroupSubject(const Subject& subject, const std::string& path, Errors& errs) {
  if (!subject.group) {
    errs.push_back(Required(path + ".group", "group is required when subject kind is 'Group'"));
  } else if (subject.group->name.empty()) {
    errs.push_back(Required(path + ".group.name", ""));
  }
}

// ValidateFlowSchemaSubject: the kind's own member first, then the others it forbids.
void ValidateSubject(const Subject& subject, const std::string& path, Errors& errs) {
  auto forbid_service_account = [&] {
    if (subject.service_account) {
      errs.push_back(Forbidden(path + ".serviceAccount",
                               "serviceAccount is forbidden when subject kind is not "
                               "'ServiceAccount'"));
    }
  };
  auto forbid_user = [&] {
    if (subject.user) {
      errs.push_back(
          Forbidden(path + ".user", "user is forbidden when subject kind is not 'User'"));
    }
  };
  auto forbid_group = [&] {
    if (subject.group) {
      errs.push_back(
          Forbidden(path + ".group", "group is forbidden when subject kind is not 'Group'"));
    }
  };
  if (subject.kind == kSubjectKindServiceAccount) {
    ValidateServiceAccountSubject(subject, path, errs);
    forbid_user();
    forbid_group();
  } else if (subject.kind == kSubjectKindUser) {
    ValidateUserSubject(subject, path, errs);
    forbid_service_account();
    forbid_group();
  } else if (subject.kind == kSubjectKindGroup) {
    ValidateGroupSubject(subject, path, errs);
    forbid_service_account();
    forbid_user();
  } else {
    errs.push_back(NotSupported(path + ".kind", Quote(subject.kind),
                                SupportedValues({"Group", "ServiceAccount", "User"})));
  }
}

void ValidateResourceRule(const ResourcePolicyRule& rule, const std::string& path, Errors& errs) {
  ValidateVerbs(rule.verbs, path + ".verbs", errs);
  if (rule.api_groups.empty()) {
    errs.push_back(
        Required(path + ".apiGroups", "resource rules must supply at least one api group"));
  } else if (rule.api_groups.size() > 1 && HasWildcard(rule.api_groups)) {
    errs.push_back(Invalid(path + ".apiGroups", JsonList(rule.api_groups),
                           "if '*' is present, must not specify other api groups"));
  }
  if (rule.resources.empty()) {
    errs.push_back(
        Required(path + ".resources", "resource rules must supply at least one resource"));
  } else if (rule.resources.size() > 1 && HasWildcard(rule.resources)) {
    errs.push_back(Invalid(path + ".resources", JsonList(rule.resources),
                           "if '*' is present, must not specify other resources"));
  }
  if (rule.namespaces.empty() && !rule.cluster_scope) {
    errs.push_back(Required(path + ".namespaces",
                            "resource rules that are not cluster scoped must supply at least one "
                            "namespace"));
  } else if (HasWildcard(rule.namespaces)) {
    if (rule.namespaces.size() > 1) {
      errs.push_back(Invalid(path + ".namespaces", JsonList(rule.namespaces),
                             "if '*' is present, must not specify other namespaces"));
    }
  } else {
    for (size_t i = 0; i < rule.namespaces.size(); ++i) {
      for (const std::string& msg : DNS1123LabelErrors(rule.namespaces[i])) {
        errs.push_back(Invalid(Index(path + ".namespaces", i), Quote(rule.namespaces[i]),
                               "each member of this list must be '*' or a DNS-1123 label; " + msg));
      }
    }
  }
}

void ValidateNonResourceRule(const NonResourcePolicyRule& rule, const std::string& path,
                             Errors& errs) {
  ValidateVerbs(rule.verbs, path + ".verbs", errs);
  const std::string urls_path = path + ".nonResourceURLs";
  if (rule.non_resource_urls.empty()) {
    errs.push_back(Required(urls_path, "nonResourceURLs must contain at least one value"));
  } else if (HasWildcard(rule.non_resource_urls)) {
    if (rule.non_resource_urls.size() > 1) {
      errs.push_back(Invalid(urls_path, JsonList(rule.non_resource_urls),
                             "if '*' is present, must not specify other non-resource URLs"));
    }
  } else {
    for (size_t i = 0; i < rule.non_resource_urls.size(); ++i) {
      const std::string& url = rule.non_resource_urls[i];
      if (std::string why = NonResourceURLPathError(url); !why.empty()) {
        errs.push_back(Invalid(Index(urls_path, i), Quote(url), why));
      }
    }
  }
}

void ValidateQueuing(const QueuingConfiguration& q, const std::string& path, Errors& errs) {
  if (q.queue_length_limit <= 0) {
    errs.push_back(Invalid(path + ".queueLengthLimit", std::to_string(q.queue_length_limit),
                           "must be positive"));
  }
  if (q.queues <= 0) {
    errs.push_back(Invalid(path + ".queues", std::to_string(q.queues), "must be positive"));
  } else if (q.queues > kMaxQueues) {
    errs.push_back(Invalid(path + ".queues", std::to_string(q.queues),
                           "must not be greater than " + std::to_string(kMaxQueues)));
  }
  if (q.hand_size <= 0) {
    errs.push_back(Invalid(path + ".handSize", std::to_string(q.hand_size), "must be positive"));
  } else if (q.hand_size > q.queues) {
    errs.push_back(Invalid(path + ".handSize", std::to_string(q.hand_size),
                           "should not be greater than queues (" + std::to_string(q.queues) + ")"));
  } else if (RequiredEntropyBits(q.queues, q.hand_size) > kMaxHashBits) {
    errs.push_back(Invalid(path + ".handSize", std::to_string(q.hand_size),
                           "required entropy bits of deckSize " + std::to_string(q.queues) +
                               " and handSize " + std::to_string(q.hand_size) +
                               " should not be greater than " + std::to_string(kMaxHashBits)));
  }
}

void ValidateLimited(const LimitedPriorityLevelConfiguration& limited, const std::string& path,
                     Errors& errs) {
  // The registry strategies pass PriorityLevelValidationOptions{} on create and update, so
  // a Limited level's nominalConcurrencyShares must be positive (an explicit 0 is refused
  // although types.go describes 0 as building a "jail").
  const std::int32_t shares = limited.nominal_concurrency_shares.value_or(0);
  if (shares <= 0) {
    errs.push_back(
        Invalid(path + ".nominalConcurrencyShares", std::to_string(shares), "must be positive"));
  }
  const LimitResponse& lr = limited.limit_response;
  const std::string lr_path = path + ".limitResponse";
  if (lr.type == kLimitResponseReject) {
    if (lr.queuing) {
      errs.push_back(Forbidden(lr_path + ".queuing",
                               "must be nil if limited.limitResponse.type is not Limited"));
    }
  } else if (lr.type == kLimitResponseQueue) {
    if (!lr.queuing) {
      errs.push_back(Required(lr_path + ".queuing",
                              "must not be empty if limited.limitResponse.type is Limited"));
    } else {
      ValidateQueuing(*lr.queuing, lr_path + ".queuing", errs);
    }
  } else {
    errs.push_back(
        NotSupported(lr_path + ".type", Quote(lr.type), SupportedValues({"Queue", "Reject"})));
  }
  if (limited.lendable_percent &&
      !(*limited.lendable_percent >= 0 && *limited.lendable_percent <= 100)) {
    errs.push_back(Invalid(path + ".lendablePercent", std::to_string(*limited.lendable_percent),
                           "must be between 0 and 100, inclusive"));
  }
  if (limited.borrowing_limit_percent && *limited.borrowing_limit_percent < 0) {
    errs.push_back(Invalid(path + ".borrowingLimitPercent",
                           std::to_string(*limited.borrowing_limit_percent),
                           "if specified, must be a non-negative integer"));
  }
}

void ValidateExempt(const ExemptPriorityLevelConfiguration& exempt, const std::string& path,
                    Errors& errs) {
  if (exempt.nominal_concurrency_shares && *exempt.nominal_concurrency_shares < 0) {
    errs.push_back(Invalid(path + ".nominalConcurrencyShares",
                           std::to_string(*exempt.nominal_concurrency_shares),
                           "must be a non-negative integer"));
  }
  if (exempt.lendable_percent &&
      !(*exempt.lendable_percent >= 0 && *exempt.lendable_percent <= 100)) {
    errs.push_back(Invalid(path + ".lendablePercent", std::to_string(*exempt.lendable_percent),
                           "must be between 0 and 100, inclusive"));
  }
}

// A struct-valued bad value: the apiserver prints its JSON, which says nothing the user
// does not have in front of them; we print a placeholder.
constexpr const char* kObjectValue = "{...}";

}  // namespace

std::string FieldError::Body() const {
  std::string s;
  switch (type) {
    case Type::kRequired:
      s = "Required value";
      break;
    case Type::kForbidden:
      s = "Forbidden";
      break;
    case Type::kInvalid:
      s = "Invalid value: " + bad_value;
      break;
    case Type::kNotSupported:
      s = "Unsupported value: " + bad_value;
      break;
    case Type::kDuplicate:
      s = "Duplicate value: " + bad_value;
      break;
  }
  if (!detail.empty()) s += ": " + detail;
  return s;
}

std::string FieldError::ToString() const { return field + ": " + Body(); }

std::vector<std::string> DNS1123SubdomainErrors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back("must be no more than 253 characters");
  bool ok = !value.empty();
  size_t begin = 0;
  while (ok) {
    size_t dot = value.find('.', begin);
    size_t end = dot == std::string::npos ? value.size() : dot;
    ok = IsDNS1123Label(value, begin, end);
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (!ok) {
    errs.push_back(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return errs;
}

std::vector<std::string> DNS1123LabelErrors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back("must be no more than 63 characters");
  if (!IsDNS1123Label(value, 0, value.size())) {
    errs.push_back(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return errs;
}

std::string NonResourceURLPathError(const std::string& path) {
  if (path.empty()) return "must not be empty";
  if (path == "/") return "";
  if (path[0] != '/') return "must start with slash";
  if (path.find(' ') != std::string::npos) return "must not contain white-space";
  if (path.find("//") != std::string::npos) return "must not contain double slash";
  const auto wildcards = std::count(path.begin(), path.end(), '*');
  if (wildcards > 1 ||
      (wildcards == 1 && (path.size() < 2 || path.compare(path.size() - 2, 2, "/*") != 0))) {
    return "wildcard can only do suffix matching";
  }
  return "";
}

std::vector<FieldError> ValidateFlowSchema(const FlowSchema& fs) {
  Errors errs;
  ValidateName(fs.metadata.name, errs);
  const FlowSchemaSpec& spec = fs.spec;
  const std::string prec = std::to_string(spec.matching_precedence);
  if (spec.matching_precedence <= 0) {
    errs.push_back(Invalid("spec.matchingPrecedence", prec, "must be a positive value"));
  }
  if (spec.matching_precedence > kFlowSchemaMaxMatchingPrecedence) {
    errs.push_back(
        Invalid("spec.matchingPrecedence", prec,
                "must not be greater than " + std::to_string(kFlowSchemaMaxMatchingPrecedence)));
  }
  if (spec.matching_precedence == 1 && fs.metadata.name != kFlowSchemaNameExempt) {
    errs.push_back(Invalid("spec.matchingPrecedence", prec,
                           "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  if (spec.distinguisher_method) {
    const std::string& type = spec.distinguisher_method->type;
    if (type != kDistinguisherByUser && type != kDistinguisherByNamespace) {
      // The bad value is the whole FlowDistinguisherMethod, printed as its JSON.
      errs.push_back(NotSupported("spec.distinguisherMethod.type", "{\"Type\":" + Quote(type) + "}",
                                  SupportedValues({"ByNamespace", "ByUser"})));
    }
  }
  if (!spec.priority_level_name.empty()) {
    for (const std::string& msg : DNS1123SubdomainErrors(spec.priority_level_name)) {
      errs.push_back(
          Invalid("spec.priorityLevelConfiguration.name", Quote(spec.priority_level_name), msg));
    }
  } else {
    errs.push_back(
        Required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  }
  for (size_t i = 0; i < spec.rules.size(); ++i) {
    const PolicyRulesWithSubjects& rule = spec.rules[i];
    const std::string path = Index("spec.rules", i);
    if (!rule.subjects.empty()) {
      for (size_t j = 0; j < rule.subjects.size(); ++j) {
        ValidateSubject(rule.subjects[j], Index(path + ".subjects", j), errs);
      }
    } else {
      errs.push_back(Required(path + ".subjects", "subjects must contain at least one value"));
    }
    if (rule.resource_rules.empty() && rule.non_resource_rules.empty()) {
      errs.push_back(
          Required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
    }
    for (size_t j = 0; j < rule.resource_rules.size(); ++j) {
      ValidateResourceRule(rule.resource_rules[j], Index(path + ".resourceRules", j), errs);
    }
    for (size_t j = 0; j < rule.non_resource_rules.size(); ++j) {
      ValidateNonResourceRule(rule.non_resource_rules[j], Index(path + ".nonResourceRules", j),
                              errs);
    }
  }
  if (const FlowSchema* mandatory = MandatoryFlowSchema(fs.metadata.name)) {
    if (!(spec == mandatory->spec)) {
      errs.push_back(Invalid("spec", kObjectValue,
                             "spec of '" + fs.metadata.name + "' must equal the fixed value"));
    }
  }
  return errs;
}

std::vector<FieldError> ValidatePriorityLevelConfiguration(const PriorityLevelConfiguration& pl) {
  Errors errs;
  ValidateName(pl.metadata.name, errs);
  const PriorityLevelConfigurationSpec& spec = pl.spec;
  const bool named_exempt = pl.metadata.name == kPriorityLevelNameExempt;
  if (named_exempt != (spec.type == kPriorityLevelTypeExempt)) {
    errs.push_back(Invalid("spec.type", Quote(spec.type),
                           "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  if (spec.type == kPriorityLevelTypeExempt) {
    if (spec.limited) {
      errs.push_back(Forbidden("spec.limited", "must be nil if the type is not Limited"));
    }
    if (spec.exempt) ValidateExempt(*spec.exempt, "spec.exempt", errs);
  } else if (spec.type == kPriorityLevelTypeLimited) {
    if (spec.exempt) {
      errs.push_back(Forbidden("spec.exempt", "must be nil if the type is Limited"));
    }
    if (!spec.limited) {
      errs.push_back(Required("spec.limited", "must not be empty when type is Limited"));
    } else {
      ValidateLimited(*spec.limited, "spec.limited", errs);
    }
  } else {
    errs.push_back(
        NotSupported("spec.type", Quote(spec.type), SupportedValues({"Exempt", "Limited"})));
  }
  // ValidateIfMandatoryPriorityLevelConfigurationObject: the mandatory levels are fixed,
  // except that the admin may tune the `exempt` field of the exempt level.
  if (const PriorityLevelConfiguration* mandatory = MandatoryPriorityLevel(pl.metadata.name)) {
    if (named_exempt) {
      PriorityLevelConfigurationSpec have = spec;
      have.exempt = mandatory->spec.exempt;
      if (!(have == mandatory->spec)) {
        errs.push_back(Invalid("spec", kObjectValue,
                               "spec of 'exempt' except the 'spec.exempt' field must equal the "
                               "fixed value"));
      }
    } else if (!(spec == mandatory->spec)) {
      errs.push_back(Invalid("spec", kObjectValue,
                             "spec of '" + pl.metadata.name + "' must equal the fixed value"));
    }
  }
  return errs;
}

}  // namespace apf
