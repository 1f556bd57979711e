#include "apf/classification/classifier.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "apf/classification/flow_hash.h"
#include "apf/classification/user_info.h"

namespace apf {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// rsJoin without building the string: does `entry` equal resource or
// resource + "/" + subresource?
bool ResourceEntryMatches(std::string_view entry, std::string_view resource,
                          std::string_view subresource) {
  if (subresource.empty()) return entry == resource;
  return entry.size() == resource.size() + 1 + subresource.size() && StartsWith(entry, resource) &&
         entry[resource.size()] == '/' && entry.substr(resource.size() + 1) == subresource;
}

// ["a","b"], so that the core group "" shows.
std::string Join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + v[i] + "\"";
  return out + "]";
}

std::string Q(std::string_view s) {
  std::string out = "\"";
  out.append(s);
  out += '"';
  return out;
}

}  // namespace

namespace {

// A list's values, compared one by one. Kept out of line so that Contains, most of whose
// lists are "*", costs no call when it need not look.
[[gnu::noinline]] bool AnyEquals(const std::vector<std::string>& values, std::string_view s) {
  // The first byte before memcmp: values of one length ("get", "put") mostly differ there.
  for (const std::string& v : values) {
    if (v.size() == s.size() && (s.empty() || (v[0] == s[0] && v == s))) return true;
  }
  return false;
}

}  // namespace

inline bool Classifier::StringList::Contains(std::string_view s) const {
  return all || AnyEquals(values, s);
}

Classifier::StringList Classifier::MakeList(const std::vector<std::string>& list) {
  StringList out;
  out.all = list.size() == 1 && list[0] == "*";
  out.values = list;
  return out;
}

Classifier::Classifier(const FlowControlConfig& config) : config_(&config) {
  for (size_t i = 0; i < config.flow_schemas.size(); ++i) {
    const FlowSchema& fs = config.flow_schemas[i];
    CompiledSchema cs;
    cs.priority_level = config.flow_schema_level[i];
    assert(cs.priority_level >= 0);
    cs.uses_flow_hash = config.priority_levels[cs.priority_level].uses_flow_hash();
    cs.is_catch_all = fs.metadata.name == kFlowSchemaNameCatchAll;
    if (fs.spec.distinguisher_method) {
      const std::string& t = fs.spec.distinguisher_method->type;
      if (t == kDistinguisherByUser) cs.distinguisher = CompiledSchema::Distinguisher::kByUser;
      if (t == kDistinguisherByNamespace) {
        cs.distinguisher = CompiledSchema::Distinguisher::kByNamespace;
      }
    }
    for (const PolicyRulesWithSubjects& rule : fs.spec.rules) {
      CompiledRule cr;
      for (const Subject& s : rule.subjects) {
        CompiledSubject c;
        if (s.kind == kSubjectKindUser && s.user) {
          c.kind =
              s.user->name == kNameAll ? CompiledSubject::Kind::kAny : CompiledSubject::Kind::kUser;
          c.text = s.user->name;
        } else if (s.kind == kSubjectKindGroup && s.group) {
          c.kind = s.group->name == kNameAll ? CompiledSubject::Kind::kAny
                                             : CompiledSubject::Kind::kGroup;
          c.text = s.group->name;
        } else if (s.kind == kSubjectKindServiceAccount && s.service_account) {
          // serviceAccountMatchesNamespace and serviceaccount.MatchesUsername compare the
          // user name with "system:serviceaccount:NS:" and then the name.
          const ServiceAccountSubject& sa = *s.service_account;
          std::string prefix = std::string(kServiceAccountUsernamePrefix) + sa.namespace_ + ":";
          if (sa.name == kNameAll) {
            c.kind = CompiledSubject::Kind::kServiceAccountPrefix;
            c.text = prefix;
          } else {
            c.kind = CompiledSubject::Kind::kUser;
            c.text = prefix + sa.name;
          }
        }
        cr.subjects.push_back(std::move(c));
      }
      for (const ResourcePolicyRule& r : rule.resource_rules) {
        // An empty list matches no namespace at all: it reads no name either.
        const bool all_namespaces = r.namespaces.size() == 1 && r.namespaces[0] == "*";
        if (!all_namespaces && !r.namespaces.empty()) reads_namespace_names_ = true;
        cr.resource_rules.push_back({MakeList(r.verbs), MakeList(r.api_groups),
                                     MakeList(r.resources), MakeList(r.namespaces),
                                     r.cluster_scope});
      }
      for (const NonResourcePolicyRule& r : rule.non_resource_rules) {
        CompiledNonResourceRule cn;
        cn.verbs = MakeList(r.verbs);
        for (const std::string& p : r.non_resource_urls) {
          CompiledNonResourceURL u;
          u.all = p == kNonResourceAll;
          u.exact = p;
          u.prefix = p;
          if (!u.prefix.empty() && u.prefix.back() == '*') u.prefix.pop_back();
          if (u.prefix.empty() || u.prefix.back() != '/') u.prefix += '/';
          cn.urls.push_back(std::move(u));
        }
        cr.non_resource_rules.push_back(std::move(cn));
      }
      cs.rules.push_back(std::move(cr));
    }
    if (cs.is_catch_all) last_catch_all_ = static_cast<int>(i);
    schemas_.push_back(std::move(cs));
  }
  for (size_t i = 0; i < schemas_.size(); ++i) {
    for (const CompiledRule& rule : schemas_[i].rules)
      rules_.push_back({static_cast<int>(i), &rule});
  }
}

bool Classifier::SubjectMatches(const CompiledSubject& s, const RequestDigest& r) {
  switch (s.kind) {
    case CompiledSubject::Kind::kAny:
      return true;
    case CompiledSubject::Kind::kUser:
      return r.user == s.text;
    case CompiledSubject::Kind::kGroup:
      for (const std::string& g : r.groups) {
        if (g == s.text) return true;
      }
      return false;
    case CompiledSubject::Kind::kServiceAccountPrefix:
      return StartsWith(r.user, s.text);
    case CompiledSubject::Kind::kNever:
      return false;
  }
  return false;
}

inline bool Classifier::ResourceRuleMatches(const CompiledResourceRule& rule,
                                            const RequestDigest& r) {
  if (!rule.verbs.Contains(r.verb)) return false;
  if (!rule.resources.all) {
    bool found = false;
    for (const std::string& e : rule.resources.values) {
      if (ResourceEntryMatches(e, r.resource, r.subresource)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  if (!rule.api_groups.Contains(r.api_group)) return false;
  if (r.namespace_.empty()) return rule.cluster_scope;
  return rule.namespaces.Contains(r.namespace_);
}

bool Classifier::NonResourceRuleMatches(const CompiledNonResourceRule& rule,
                                        const RequestDigest& r) {
  if (!rule.verbs.Contains(r.verb)) return false;
  for (const CompiledNonResourceURL& u : rule.urls) {
    if (u.all || u.exact == r.path || StartsWith(r.path, u.prefix)) return true;
  }
  return false;
}

bool Classifier::RuleMatches(const CompiledRule& rule, const RequestDigest& r) {
  bool subject = false;
  for (const CompiledSubject& s : rule.subjects) {
    if (SubjectMatches(s, r)) {
      subject = true;
      break;
    }
  }
  if (!subject) return false;
  return RequestMatches(rule, r);
}

bool Classifier::RequestMatches(const CompiledRule& rule, const RequestDigest& r) {
  if (r.is_resource_request) {
    for (const CompiledResourceRule& rr : rule.resource_rules) {
      if (ResourceRuleMatches(rr, r)) return true;
    }
    return false;
  }
  for (const CompiledNonResourceRule& nr : rule.non_resource_rules) {
    if (NonResourceRuleMatches(nr, r)) return true;
  }
  return false;
}

bool Classifier::SchemaMatches(int flow_schema, const RequestDigest& request) const {
  for (const CompiledRule& rule : schemas_[flow_schema].rules) {
    if (RuleMatches(rule, request)) return true;
  }
  return false;
}

Classification Classifier::Classify(const RequestDigest& request) const {
  int catch_all = -1;
  for (size_t i = 0; i < schemas_.size(); ++i) {
    if (SchemaMatches(static_cast<int>(i), request)) {
      return Result(static_cast<int>(i), request, false);
    }
    if (schemas_[i].is_catch_all) catch_all = static_cast<int>(i);
  }
  // The apiserver falls back to the catch-all seen during the scan; the digest always
  // supplies one, so this cannot fail.
  assert(catch_all >= 0);
  return Result(catch_all, request, true);
}

SubjectMask Classifier::SubjectsOf(std::string_view user,
                                   std::span<const std::string> groups) const {
  RequestDigest who;  // SubjectMatches reads only the user and the groups
  who.user = user;
  who.groups = groups;
  SubjectMask mask;
  mask.words.assign((rules_.size() + 63) / 64, 0);
  for (size_t k = 0; k < rules_.size(); ++k) {
    const std::vector<CompiledSubject>& subjects = rules_[k].rule->subjects;
    if (std::any_of(subjects.begin(), subjects.end(),
                    [&](const CompiledSubject& s) { return SubjectMatches(s, who); })) {
      mask.words[k >> 6] |= std::uint64_t{1} << (k & 63);
    }
  }
  return mask;
}

Classification Classifier::Classify(const RequestDigest& request,
                                    const SubjectMask& subjects) const {
  assert(subjects.words.size() == (rules_.size() + 63) / 64);
  // Only the rules whose subjects name the user can match: visit their bits in matching
  // order; the first whose request part matches decides, as in the full scan.
  for (size_t w = 0; w < subjects.words.size(); ++w) {
    for (std::uint64_t bits = subjects.words[w]; bits != 0; bits &= bits - 1) {
      const RuleRef& ref = rules_[w * 64 + static_cast<size_t>(std::countr_zero(bits))];
      if (RequestMatches(*ref.rule, request)) return Result(ref.schema, request, false);
    }
  }
  // As the full scan does, fall back to the last catch-all in matching order.
  assert(last_catch_all_ >= 0);
  return Result(last_catch_all_, request, true);
}

std::uint64_t Classifier::FlowHash(const Classification& c) const {
  if (!c.uses_flow_hash) return 0;
  return HashFlowID(config_->flow_schemas[c.flow_schema].metadata.name, c.distinguisher);
}

std::string Classifier::ResourceRuleMismatch(const ResourcePolicyRule& rr,
                                             const CompiledResourceRule& c,
                                             const RequestDigest& r) {
  // In the order matchesResourcePolicyRule checks.
  if (!c.verbs.Contains(r.verb)) return "verb " + Q(r.verb) + " not in " + Join(rr.verbs);
  if (!c.resources.all) {
    bool found = false;
    for (const std::string& e : c.resources.values) {
      found = found || ResourceEntryMatches(e, r.resource, r.subresource);
    }
    if (!found) {
      std::string rs(r.resource);
      if (!r.subresource.empty()) {
        rs += '/';
        rs.append(r.subresource);
      }
      return "resource " + Q(rs) + " not in " + Join(rr.resources);
    }
  }
  if (!c.api_groups.Contains(r.api_group)) {
    return "apiGroup " + Q(r.api_group) + " not in " + Join(rr.api_groups);
  }
  if (r.namespace_.empty()) return "the request has no namespace and clusterScope is false";
  return "namespace " + Q(r.namespace_) + " not in " + Join(rr.namespaces);
}

std::string Classifier::ExplainSchema(int schema, const RequestDigest& r, bool* matched) const {
  const FlowSchema& fs = config_->flow_schemas[schema];
  std::string why;
  *matched = false;
  for (size_t i = 0; i < fs.spec.rules.size(); ++i) {
    const PolicyRulesWithSubjects& rule = fs.spec.rules[i];
    const CompiledRule& cr = schemas_[schema].rules[i];
    std::string prefix = fs.spec.rules.size() > 1 ? "rules[" + std::to_string(i) + "]: " : "";
    int subject = -1;
    for (size_t j = 0; j < cr.subjects.size(); ++j) {
      if (SubjectMatches(cr.subjects[j], r)) {
        subject = static_cast<int>(j);
        break;
      }
    }
    auto describe_subject = [](const Subject& s) {
      if (s.kind == kSubjectKindUser && s.user) return "User " + s.user->name;
      if (s.kind == kSubjectKindGroup && s.group) return "Group " + s.group->name;
      if (s.kind == kSubjectKindServiceAccount && s.service_account) {
        return "ServiceAccount " + s.service_account->namespace_ + "/" + s.service_account->name;
      }
      return "subject of kind " + s.kind;
    };
    std::string part;
    if (subject < 0) {
      std::string list;
      for (const Subject& s : rule.subjects)
        list += (list.empty() ? "" : ", ") + describe_subject(s);
      part = "no subject matches user " + Q(r.user) + " (subjects: " + list + ")";
    } else {
      const std::string who = describe_subject(rule.subjects[subject]) + " matches";
      if (r.is_resource_request) {
        int hit = -1;
        for (size_t j = 0; j < cr.resource_rules.size(); ++j) {
          if (ResourceRuleMatches(cr.resource_rules[j], r)) {
            hit = static_cast<int>(j);
            break;
          }
        }
        if (hit >= 0) {
          *matched = true;
          return prefix + who + "; resourceRules[" + std::to_string(hit) + "] matches";
        }
        if (rule.resource_rules.empty()) {
          part = who + ", but the rule has no resourceRules for this resource request";
        } else {
          std::string reasons;
          for (size_t j = 0; j < rule.resource_rules.size(); ++j) {
            reasons += (j ? "; " : "") + std::string("resourceRules[") + std::to_string(j) + "]: " +
                       ResourceRuleMismatch(rule.resource_rules[j], cr.resource_rules[j], r);
          }
          part = who + ", but no resourceRule matches (" + reasons + ")";
        }
      } else {
        int hit = -1;
        for (size_t j = 0; j < cr.non_resource_rules.size(); ++j) {
          if (NonResourceRuleMatches(cr.non_resource_rules[j], r)) {
            hit = static_cast<int>(j);
            break;
          }
        }
        if (hit >= 0) {
          *matched = true;
          return prefix + who + "; nonResourceRules[" + std::to_string(hit) + "] matches";
        }
        if (rule.non_resource_rules.empty()) {
          part = who + ", but the rule has no nonResourceRules for this non-resource request";
        } else {
          const NonResourcePolicyRule& nr = rule.non_resource_rules[0];
          const bool verb_ok = cr.non_resource_rules[0].verbs.Contains(r.verb);
          part = who + ", but no nonResourceRule matches (nonResourceRules[0]: " +
                 (verb_ok ? "path " + Q(r.path) + " not matched by " + Join(nr.non_resource_urls)
                          : "verb " + Q(r.verb) + " not in " + Join(nr.verbs)) +
                 ")";
        }
      }
    }
    why += (why.empty() ? "" : "; ") + prefix + part;
  }
  if (fs.spec.rules.empty()) why = "the FlowSchema has no rules";
  return why;
}

std::vector<SchemaMatchTrace> Classifier::Explain(const RequestDigest& request) const {
  std::vector<SchemaMatchTrace> out;
  for (size_t i = 0; i < schemas_.size(); ++i) {
    SchemaMatchTrace t;
    t.flow_schema = config_->flow_schemas[i].metadata.name;
    t.why = ExplainSchema(static_cast<int>(i), request, &t.matched);
    out.push_back(std::move(t));
    if (out.back().matched) break;
  }
  return out;
}

}  // namespace apf
