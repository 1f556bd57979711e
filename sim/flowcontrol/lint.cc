#include "sim/flowcontrol/lint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "apf/classification/classifier.h"
#include "apf/classification/user_info.h"
#include "apf/config/bootstrap.h"
#include "apf/config/bootstrap_ensurer.h"
#include "apf/config/defaults.h"

namespace sim {
namespace {

const char* const kFS = "FlowSchema";
const char* const kPL = "PriorityLevelConfiguration";

std::string Percent(double p) {
  char buf[32];
  if (p >= 0.995) {
    std::snprintf(buf, sizeof buf, "%.1f%%", p * 100);
  } else if (p >= 0.01) {
    std::snprintf(buf, sizeof buf, "%.0f%%", p * 100);
  } else {
    std::snprintf(buf, sizeof buf, "%.2g%%", p * 100);
  }
  return buf;
}

std::string DescribeSubject(const apf::Subject& s) {
  if (s.user) return "User " + s.user->name;
  if (s.group) return "Group " + s.group->name;
  if (s.service_account) {
    return "ServiceAccount " + s.service_account->namespace_ + "/" + s.service_account->name;
  }
  return s.kind;
}

// A subject that stands for many identities.
bool IsBroadSubject(const apf::Subject& s) {
  if (s.kind == apf::kSubjectKindGroup) return true;
  if (s.kind == apf::kSubjectKindUser) return s.user && s.user->name == apf::kNameAll;
  if (s.kind == apf::kSubjectKindServiceAccount) {
    return s.service_account && s.service_account->name == apf::kNameAll;
  }
  return false;
}

const apf::Subject* FirstBroadSubject(const apf::FlowSchema& fs) {
  for (const auto& rule : fs.spec.rules) {
    for (const auto& s : rule.subjects) {
      if (IsBroadSubject(s)) return &s;
    }
  }
  return nullptr;
}

bool IsAll(const std::vector<std::string>& v) { return v.size() == 1 && v[0] == "*"; }

// A subject that covers whole classes of clients: everyone, every authenticated or
// unauthenticated client, every service account (of a namespace).
bool IsVeryBroadSubject(const apf::Subject& s) {
  if (s.kind == apf::kSubjectKindGroup && s.group) {
    const std::string& g = s.group->name;
    return g == apf::kNameAll || g == apf::kGroupAuthenticated || g == apf::kGroupUnauthenticated ||
           g == apf::kGroupAllServiceAccounts || g.rfind(apf::kServiceAccountGroupPrefix, 0) == 0;
  }
  return IsBroadSubject(s);
}

const apf::Subject* FirstVeryBroadSubject(const apf::FlowSchema& fs) {
  for (const auto& rule : fs.spec.rules) {
    for (const auto& s : rule.subjects) {
      if (IsVeryBroadSubject(s)) return &s;
    }
  }
  return nullptr;
}

bool HasBroadRule(const apf::FlowSchema& fs) {
  for (const auto& rule : fs.spec.rules) {
    for (const auto& rr : rule.resource_rules) {
      if (IsAll(rr.resources) || IsAll(rr.api_groups)) return true;
    }
    for (const auto& nr : rule.non_resource_rules) {
      if (IsAll(nr.non_resource_urls)) return true;
    }
  }
  return false;
}

// --- Example requests for the shadowing check. ---------------------------------------

struct Candidate {
  apf::UserInfo user;
  apf::RequestInfo request;
};

// Identities a subject stands for, with the well-known components for broad groups.
std::vector<apf::UserInfo> IdentitiesOf(const apf::Subject& s) {
  const std::vector<apf::UserInfo> well_known = {
      apf::AuthenticatedUser("system:node:node-1", {apf::kGroupNodes}),
      apf::AuthenticatedUser(apf::kUserKubeControllerManager),
      apf::AuthenticatedUser(apf::kUserKubeScheduler),
      apf::ServiceAccountUser("kube-system", "example-controller"),
      apf::ServiceAccountUser("default", "example"),
      apf::AuthenticatedUser("example-user"),
  };
  if (s.user) {
    if (s.user->name == apf::kNameAll) return well_known;
    return {apf::AuthenticatedUser(s.user->name)};
  }
  if (s.group) {
    const std::string& g = s.group->name;
    if (g == apf::kNameAll || g == apf::kGroupAuthenticated) return well_known;
    if (g == apf::kGroupUnauthenticated) return {apf::AnonymousUser()};
    if (g == apf::kGroupNodes) return {well_known[0]};
    if (g == apf::kGroupAllServiceAccounts) return {well_known[3], well_known[4]};
    if (g.rfind(apf::kServiceAccountGroupPrefix, 0) == 0) {
      return {apf::ServiceAccountUser(g.substr(std::string(apf::kServiceAccountGroupPrefix).size()),
                                      "example")};
    }
    return {apf::AuthenticatedUser("example-user", {g})};
  }
  if (s.service_account) {
    const auto& sa = *s.service_account;
    return {apf::ServiceAccountUser(sa.namespace_, sa.name == apf::kNameAll ? "example" : sa.name)};
  }
  return {};
}

std::vector<std::string> Expand(const std::vector<std::string>& list,
                                const std::vector<std::string>& samples) {
  if (IsAll(list)) return samples;
  return list;
}

std::vector<Candidate> CandidatesOf(const apf::FlowSchema& fs) {
  std::vector<Candidate> out;
  for (const auto& rule : fs.spec.rules) {
    std::vector<apf::UserInfo> users;
    for (const auto& s : rule.subjects) {
      for (auto& u : IdentitiesOf(s)) users.push_back(std::move(u));
    }
    for (const auto& rr : rule.resource_rules) {
      const auto verbs =
          Expand(rr.verbs, {"list", "get", "watch", "create", "update", "patch", "delete"});
      const auto groups = Expand(rr.api_groups, {"", "apps", "coordination.k8s.io"});
      const auto resources = Expand(rr.resources, {"pods", "leases", "nodes", "nodes/status",
                                                   "endpoints", "configmaps", "deployments"});
      // Cluster-scoped requests first, so that examples for nodes read naturally.
      std::vector<std::string> namespaces;
      if (rr.cluster_scope) namespaces.push_back("");
      for (auto& ns : Expand(rr.namespaces, {"kube-system", "default", "kube-node-lease"})) {
        namespaces.push_back(std::move(ns));
      }
      for (const auto& u : users) {
        for (const auto& verb : verbs) {
          for (const auto& group : groups) {
            for (const auto& resource : resources) {
              for (const auto& ns : namespaces) {
                Candidate c;
                c.user = u;
                c.request.is_resource_request = true;
                c.request.verb = verb;
                c.request.api_group = group;
                const size_t slash = resource.find('/');
                c.request.resource = resource.substr(0, slash);
                if (slash != std::string::npos) c.request.subresource = resource.substr(slash + 1);
                c.request.namespace_name = ns;
                out.push_back(std::move(c));
              }
            }
          }
        }
      }
    }
    for (const auto& nr : rule.non_resource_rules) {
      const auto verbs = Expand(nr.verbs, {"get", "post"});
      std::vector<std::string> paths;
      for (const auto& url : nr.non_resource_urls) {
        if (url == "*") {
          paths.insert(paths.end(), {"/healthz", "/readyz", "/livez", "/metrics", "/version"});
        } else if (url.size() >= 2 && url.compare(url.size() - 2, 2, "/*") == 0) {
          paths.push_back(url.substr(0, url.size() - 1) + "example");
        } else {
          paths.push_back(url);
        }
      }
      for (const auto& u : users) {
        for (const auto& verb : verbs) {
          for (const auto& path : paths) {
            Candidate c;
            c.user = u;
            c.request.is_resource_request = false;
            c.request.verb = verb;
            c.request.path = path;
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

std::string DescribeRequest(const Candidate& c) {
  std::string who = "user \"" + c.user.name + "\"";
  const auto& r = c.request;
  if (!r.is_resource_request) return r.verb + " " + r.path + " by " + who;
  std::string what = r.verb + " " + (r.api_group.empty() ? "" : r.api_group + "/") + r.resource;
  if (!r.subresource.empty()) what += "/" + r.subresource;
  what += r.namespace_name.empty() ? " (no namespace)" : " in namespace " + r.namespace_name;
  return what + " by " + who;
}

// The suggested FlowSchemas that route the cluster's own components; taking their traffic
// is rarely intended. service-accounts, global-default and catch-all are the buckets that
// user FlowSchemas are expected to carve from.
bool IsSystemSchema(const apf::FlowSchema& fs) { return fs.spec.matching_precedence < 9000; }

// service-accounts (9000) and global-default (9900): carving from them is the point of a
// user FlowSchema, so taking their requests is a mistake only when they lose seats.
bool IsCarveBucket(const apf::FlowSchema& fs) {
  return !IsSystemSchema(fs) && !apf::MandatoryFlowSchema(fs.metadata.name);
}

// --- Collision estimate. ------------------------------------------------------------

double Choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// Flows a FlowSchema can produce, or -1 when its subjects or namespaces do not bound them.
int FlowsOf(const apf::FlowSchema& fs) {
  if (!fs.spec.distinguisher_method) return 1;
  if (fs.spec.distinguisher_method->type == apf::kDistinguisherByUser) {
    std::set<std::string> identities;
    for (const auto& rule : fs.spec.rules) {
      for (const auto& s : rule.subjects) {
        if (IsBroadSubject(s)) return -1;
        identities.insert(DescribeSubject(s));
      }
    }
    return static_cast<int>(identities.size());
  }
  std::set<std::string> namespaces;
  for (const auto& rule : fs.spec.rules) {
    if (!rule.non_resource_rules.empty()) namespaces.insert("");
    for (const auto& rr : rule.resource_rules) {
      if (IsAll(rr.namespaces)) return -1;
      namespaces.insert(rr.namespaces.begin(), rr.namespaces.end());
      if (rr.cluster_scope) namespaces.insert("");
    }
  }
  return static_cast<int>(namespaces.size());
}

}  // namespace

double HandCoveredProbability(int queues, int hand_size, int other_flows) {
  if (other_flows <= 0) return 0;
  const double all = Choose(queues, hand_size);
  double p = 0;
  for (int j = 0; j <= hand_size; ++j) {
    const double avoid = Choose(queues - j, hand_size) / all;
    p += (j % 2 ? -1 : 1) * Choose(hand_size, j) * std::pow(avoid, other_flows);
  }
  return std::max(0.0, std::min(1.0, p));
}

std::vector<LintWarning> LintFlowControl(const FlowControlManifests& user,
                                         const FlowControlSetup& setup,
                                         const LintOptions& options) {
  std::vector<LintWarning> out;
  const apf::FlowControlConfig& config = setup.config;
  const apf::KubernetesVersion version = setup.version;
  auto warn = [&](const char* check, const char* kind, const std::string& name,
                  const std::string& field, std::string message) {
    LintWarning w{check, kind, name, field, {}, std::move(message)};
    if (const ManifestSource* src = user.FindSource(kind, name)) {
      w.where = src->LocationOf(field);
    }
    out.push_back(std::move(w));
  };
  const std::vector<LevelLimits> limits =
      StaticLevelLimits(config, options.server_concurrency_limit);
  const auto is_bootstrap_level = [&](const std::string& name) {
    return apf::IsSuggestedPriorityLevel(version, name) || apf::MandatoryPriorityLevel(name);
  };
  const auto is_bootstrap_schema = [&](const std::string& name) {
    return apf::IsSuggestedFlowSchema(version, name) || apf::MandatoryFlowSchema(name);
  };
  std::set<std::string> user_schemas, user_levels;
  for (const auto& fs : user.flow_schemas) user_schemas.insert(fs.object.metadata.name);
  for (const auto& pl : user.priority_levels) user_levels.insert(pl.object.metadata.name);

  // dangling
  for (const std::string& name : config.dangling_flow_schemas) {
    int index = -1;
    for (size_t i = 0; i < setup.objects.flow_schemas.size(); ++i) {
      if (setup.objects.flow_schemas[i].metadata.name == name) index = static_cast<int>(i);
    }
    const std::string level =
        index >= 0 ? setup.objects.flow_schemas[index].spec.priority_level_name : "";
    warn("dangling", kFS, name, "spec.priorityLevelConfiguration.name",
         "references the priority level \"" + level +
             "\", which does not exist: the apiserver marks this FlowSchema Dangling and skips "
             "it, so its requests fall through to the FlowSchemas after it");
  }

  const auto touched_by_user = [&](const std::vector<const apf::FlowSchema*>& feeders) {
    for (const apf::FlowSchema* fs : feeders) {
      if (user_schemas.count(fs->metadata.name)) return true;
    }
    return false;
  };

  // Levels: fence borrowing, seats times hand, queue length, collisions.
  for (size_t i = 0; i < config.priority_levels.size(); ++i) {
    const apf::PriorityLevel& pl = config.priority_levels[i];
    const LevelLimits& l = limits[i];
    std::vector<const apf::FlowSchema*> feeders;
    for (size_t f = 0; f < config.flow_schemas.size(); ++f) {
      if (config.flow_schema_level[f] == static_cast<int>(i))
        feeders.push_back(&config.flow_schemas[f]);
    }
    const bool user_level = user_levels.count(pl.name) > 0;
    // A fence confines named clients (users, service accounts): every FlowSchema feeding it
    // names them one by one. A level for a whole class of clients may borrow by design.
    bool fences_named_clients = !feeders.empty();
    for (const apf::FlowSchema* fs : feeders) {
      fences_named_clients = fences_named_clients && !FirstBroadSubject(*fs);
    }
    if (user_level && !is_bootstrap_level(pl.name) && !pl.exempt() && !pl.borrowing_limit_percent &&
        fences_named_clients) {
      warn("fence-borrowing", kPL, pl.name, "spec.limited",
           "borrowingLimitPercent is unset, which means unlimited borrowing: this level, which "
           "holds only the clients its FlowSchemas name, may grow from its nominal " +
               std::to_string(l.nominal_cl) + " seats to " + std::to_string(l.max_cl) +
               " (nominal + the server's " + std::to_string(options.server_concurrency_limit) +
               ") by borrowing idle levels' seats, so it does not hold those clients back. Set "
               "borrowingLimitPercent: 0 to cap it at its nominal seats");
    }
    if (!pl.queues_requests()) continue;
    const std::uint64_t width = l.max_seats * static_cast<std::uint64_t>(pl.queuing.hand_size);
    if (static_cast<std::uint64_t>(l.nominal_cl) < width) {
      warn("seats-times-hand", kPL, pl.name, "spec.limited.nominalConcurrencyShares",
           "at " + std::to_string(options.server_concurrency_limit) +
               " server seats this level's nominal limit is " + std::to_string(l.nominal_cl) +
               " seats (" + std::to_string(pl.nominal_concurrency_shares) + " of " +
               std::to_string(static_cast<long long>(ShareSum(config))) +
               " shares), fewer than its max seats per request (" + std::to_string(l.max_seats) +
               ") times its hand size (" + std::to_string(pl.queuing.hand_size) +
               ") = " + std::to_string(width) +
               ": one flow's requests at the heads of its queues can hold every seat "
               "(kubernetes#115409). Give it more shares or a smaller hand");
    }
    // queueset.go rejects queue-full only while every seat is in use (doc/model.md#arrival). When
    // the level's widest requests (max seats each, LISTs at the cap) cannot add up to its limit, a
    // level busy with them never has every seat in use, and its queues grow past queueLengthLimit
    // until requests time out (seed 000's fenced level: about 1,670 waiting behind a limit of 50,
    // with 7-seat LISTs in 46 seats).
    const std::int64_t widest = static_cast<std::int64_t>(l.max_seats);
    if ((user_level || touched_by_user(feeders)) && widest > 1 && l.nominal_cl % widest != 0) {
      const std::int64_t fill = l.nominal_cl / widest * widest;
      warn("queue-length-unenforced", kPL, pl.name,
           "spec.limited.limitResponse.queuing.queueLengthLimit",
           "queueLengthLimit " + std::to_string(pl.queuing.queue_length_limit) +
               " is enforced only while all " + std::to_string(l.nominal_cl) +
               " seats are in use, but requests of its widest size (" + std::to_string(widest) +
               " seats, a LIST at this level's cap) fill at most " + std::to_string(fill) +
               " of them: while they make up its load, its queues grow past the limit until "
               "requests time out instead of getting a quick 429. Give it a multiple of " +
               std::to_string(widest) + " seats, or expect time-outs rather than queue-full");
    }
    // Collisions: only for levels the user wrote or routes their own schemas to.
    const bool touched = user_level || touched_by_user(feeders);
    if (!touched || !pl.uses_flow_hash()) continue;
    int flows = 0;
    bool bounded = true;
    for (const apf::FlowSchema* fs : feeders) {
      const int n = FlowsOf(*fs);
      if (n < 0)
        bounded = false;
      else
        flows += n;
    }
    if (!bounded) flows = std::max(flows, options.expected_flows);
    if (flows <= 1) continue;
    // Shuffle sharding protects a light flow unless every queue of its hand is taken by
    // heavy flows (a light flow's own queues are short): the probability that the hands of
    // the heavy flows cover a light flow's whole hand.
    const int heavy = std::min(options.heavy_flows, flows - 1);
    const double p = HandCoveredProbability(pl.queuing.queues, pl.queuing.hand_size, heavy);
    if (p > options.collision_threshold) {
      const double pair =
          1 - Choose(pl.queuing.queues - pl.queuing.hand_size, pl.queuing.hand_size) /
                  Choose(pl.queuing.queues, pl.queuing.hand_size);
      warn("collisions", kPL, pl.name, "spec.limited.limitResponse.queuing",
           std::string("with ") + (bounded ? "" : "an assumed ") + std::to_string(flows) +
               " flows (" +
               (bounded ? std::string("as its FlowSchemas' subjects and namespaces bound them")
                        : "its FlowSchemas do not bound them; see --expected-flows") +
               ") of which " + std::to_string(heavy) + " heavy (--heavy-flows), " +
               std::to_string(pl.queuing.queues) + " queues and a hand of " +
               std::to_string(pl.queuing.hand_size) +
               ", a light flow's whole hand is taken by the heavy flows with probability " +
               Percent(p) + " (any two flows share a queue with probability " + Percent(pair) +
               "), so a light flow can have nowhere to escape them. Use more queues or a "
               "larger hand");
    }
  }

  // FlowSchemas the user wrote.
  for (size_t f = 0; f < config.flow_schemas.size(); ++f) {
    const apf::FlowSchema& fs = config.flow_schemas[f];
    if (!user_schemas.count(fs.metadata.name) || apf::MandatoryFlowSchema(fs.metadata.name)) {
      continue;
    }
    const apf::PriorityLevel& pl = config.priority_levels[config.flow_schema_level[f]];
    const apf::Subject* broad = FirstBroadSubject(fs);
    if (!fs.spec.distinguisher_method && pl.uses_flow_hash() && broad) {
      warn("no-distinguisher", kFS, fs.metadata.name, "spec.distinguisherMethod",
           "has no distinguisherMethod, so every request it matches is one flow: all the "
           "identities of " +
               DescribeSubject(*broad) + " share a single queue of " + pl.name + "'s " +
               std::to_string(pl.queuing.queues) +
               " (and one noisy client delays all the others). Add distinguisherMethod "
               "{type: ByUser} or {type: ByNamespace}");
    }
    const apf::Subject* very_broad = FirstVeryBroadSubject(fs);
    const bool broad_rules = HasBroadRule(fs);
    if (pl.exempt() && (very_broad || broad_rules)) {
      std::string what;
      if (very_broad) what = "the requests of " + DescribeSubject(*very_broad);
      if (very_broad && broad_rules) what += ", to every resource or URL,";
      if (!very_broad) what = "its subjects' requests to every resource or URL";
      warn("broad-exempt", kFS, fs.metadata.name, "spec.priorityLevelConfiguration.name",
           "sends " + what +
               " to the exempt level, which never queues or rejects: they compete with the "
               "control plane without limit. Exempt only narrow, trusted traffic");
    }
  }

  // Shadowing: requests that move from a suggested FlowSchema to one of the user's: from a
  // system one at all, from a carve bucket when they land on a level with fewer seats.
  const auto nominal_seats = [&](const std::string& level) -> std::int64_t {
    for (size_t i = 0; i < config.priority_levels.size(); ++i) {
      if (config.priority_levels[i].name == level) return limits[i].nominal_cl;
    }
    return -1;
  };
  {
    const FlowControlSetup defaults = BuildFlowControl(version, FlowControlManifests{});
    const apf::Classifier base(defaults.config);
    const apf::Classifier full(config);
    std::set<std::pair<std::string, std::string>> reported;
    std::vector<const apf::FlowSchema*> sources;
    for (const auto& fs : config.flow_schemas) {
      if (user_schemas.count(fs.metadata.name)) sources.push_back(&fs);
    }
    for (const auto& fs : defaults.config.flow_schemas) {
      if (IsSystemSchema(fs) || IsCarveBucket(fs)) sources.push_back(&fs);
    }
    for (const apf::FlowSchema* source : sources) {
      for (const Candidate& c : CandidatesOf(*source)) {
        const apf::RequestDigest d = apf::MakeRequestDigest(c.user, c.request);
        const apf::Classification before = base.Classify(d);
        const apf::Classification after = full.Classify(d);
        const apf::FlowSchema& from = base.flow_schema(before.flow_schema);
        const apf::FlowSchema& to = full.flow_schema(after.flow_schema);
        if (!user_schemas.count(to.metadata.name) || is_bootstrap_schema(to.metadata.name) ||
            from.metadata.name == to.metadata.name) {
          continue;
        }
        const std::string from_level = base.priority_level(before.priority_level).name;
        const std::string to_level = full.priority_level(after.priority_level).name;
        const std::int64_t from_seats = nominal_seats(from_level);
        const std::int64_t to_seats = nominal_seats(to_level);
        const bool loses_seats = !full.priority_level(after.priority_level).exempt() &&
                                 from_seats >= 0 && to_seats >= 0 && to_seats < from_seats;
        // Carving named clients out of a bucket into a smaller level is what a fence does;
        // taking a whole class of clients out of it is the precedence mistake.
        const bool takes_a_class = FirstVeryBroadSubject(to) != nullptr;
        if (!(IsSystemSchema(from) || (IsCarveBucket(from) && loses_seats && takes_a_class))) {
          continue;
        }
        if (!reported.insert({to.metadata.name, from.metadata.name}).second) continue;
        const auto seats = [](std::int64_t n) {
          return n >= 0 ? " (" + std::to_string(n) + " seats)" : std::string();
        };
        warn(
            "shadowing", kFS, to.metadata.name, "spec.matchingPrecedence",
            "with matchingPrecedence " + std::to_string(to.spec.matching_precedence) +
                " it takes requests that the suggested FlowSchema " + from.metadata.name + " (" +
                std::to_string(from.spec.matching_precedence) + ") sends to " + from_level +
                seats(from_seats) + ": for example " + DescribeRequest(c) + " now goes to " +
                to_level + seats(to_seats) +
                (IsSystemSchema(from)
                     ? ". Narrow its subjects or rules, or raise its matchingPrecedence above " +
                           std::to_string(from.spec.matching_precedence) + ", if that was not meant"
                     : ". If that was not meant, narrow its subjects or rules to the clients "
                       "it should hold"));
      }
    }
  }

  // Overrides of suggested objects that a real cluster would revert, and old versions.
  for (const auto& pl : user.priority_levels) {
    const auto& meta = pl.object.metadata;
    if (apf::IsSuggestedPriorityLevel(version, meta.name)) {
      const auto it = meta.annotations.find(apf::kAutoUpdateAnnotation);
      // Annotated "true", the spec is put back (spec-put-back below); "false" keeps it.
      const bool kept = it != meta.annotations.end() && apf::ParseGoBool(it->second).has_value();
      bool differs = true;
      for (const auto& boot : apf::Bootstrap(version).suggested_priority_levels) {
        if (boot.metadata.name == meta.name) differs = !(boot.spec == pl.object.spec);
      }
      if (!kept && differs) {
        warn("autoupdate", kPL, meta.name, "metadata.annotations",
             std::string("changes a suggested object without annotation ") +
                 apf::kAutoUpdateAnnotation +
                 ": \"false\": on a real cluster `kubectl apply` keeps the live object's "
                 "\"true\", and the apiserver puts the suggested spec back within a minute "
                 "(this simulation uses your spec)");
      }
    }
    if (pl.source.api_version == kFlowControlV1beta3 && version >= apf::KubernetesVersion{1, 32}) {
      warn("v1beta3", kPL, meta.name, "apiVersion",
           "flowcontrol.apiserver.k8s.io/v1beta3 is not served since Kubernetes 1.32; "
           "write it as v1 (it was read as the apiserver converted v1beta3)");
    }
  }
  for (const auto& fs : user.flow_schemas) {
    const auto& meta = fs.object.metadata;
    if (apf::IsSuggestedFlowSchema(version, meta.name)) {
      const auto it = meta.annotations.find(apf::kAutoUpdateAnnotation);
      // Annotated "true", the spec is put back (spec-put-back below); "false" keeps it.
      const bool kept = it != meta.annotations.end() && apf::ParseGoBool(it->second).has_value();
      bool differs = true;
      for (const auto& boot : apf::Bootstrap(version).suggested_flow_schemas) {
        if (boot.metadata.name == meta.name) differs = !(boot.spec == fs.object.spec);
      }
      if (!kept && differs) {
        warn("autoupdate", kFS, meta.name, "metadata.annotations",
             std::string("changes a suggested object without annotation ") +
                 apf::kAutoUpdateAnnotation +
                 ": \"false\": on a real cluster `kubectl apply` keeps the live object's "
                 "\"true\", and the apiserver puts the suggested spec back within a minute "
                 "(this simulation uses your spec)");
      }
    }
    if (fs.source.api_version == kFlowControlV1beta3 && version >= apf::KubernetesVersion{1, 32}) {
      warn("v1beta3", kFS, meta.name, "apiVersion",
           "flowcontrol.apiserver.k8s.io/v1beta3 is not served since Kubernetes 1.32; "
           "write it as v1");
    }
  }

  // Other notes (dangling ones are reported above).
  for (const apf::ConfigNote& n : setup.notes) {
    if (n.message.rfind("dangling", 0) == 0) continue;
    // A spec put back is reported below, with its fields and remedy.
    if (n.message.rfind("mandatory object:", 0) == 0 ||
        n.message.rfind("the suggested spec of this version replaces", 0) == 0) {
      continue;
    }
    warn("config", n.object_kind == kFS ? kFS : kPL, n.name, n.field, n.message);
  }

  for (const std::string& text : setup.reset_warnings) {
    LintWarning w;
    w.check = "spec-put-back";
    w.message = text;  // already names the object, its place and the remedy
    out.push_back(std::move(w));
  }

  // Warnings about an object the user did not change (the version's own suggested or
  // mandatory spec, as the config producer creates it) are informational: they hold for
  // every cluster of this version, so `--strict` must not fail on them.
  const apf::BootstrapObjects boot = apf::Bootstrap(version);
  const auto stock_level = [&](const std::string& name) {
    const apf::PriorityLevelConfiguration* have = nullptr;
    for (const auto& pl : setup.objects.priority_levels) {
      if (pl.metadata.name == name) have = &pl;
    }
    for (const auto* list : {&boot.mandatory_priority_levels, &boot.suggested_priority_levels}) {
      for (apf::PriorityLevelConfiguration b : *list) {
        apf::SetPriorityLevelConfigurationDefaults(b);
        if (have && b.metadata.name == name && b.spec == have->spec) return true;
      }
    }
    return false;
  };
  const auto stock_schema = [&](const std::string& name) {
    const apf::FlowSchema* have = nullptr;
    for (const auto& fs : setup.objects.flow_schemas) {
      if (fs.metadata.name == name) have = &fs;
    }
    for (const auto* list : {&boot.mandatory_flow_schemas, &boot.suggested_flow_schemas}) {
      for (apf::FlowSchema b : *list) {
        apf::SetFlowSchemaDefaults(b);
        if (have && b.metadata.name == name && b.spec == have->spec) return true;
      }
    }
    return false;
  };
  for (LintWarning& w : out) {
    if (w.check == "spec-put-back") continue;
    w.stock = w.object_kind == kFS ? stock_schema(w.name) : stock_level(w.name);
  }
  return out;
}

std::string FormatLintWarning(const LintWarning& w) {
  if (w.check == "spec-put-back") return w.message + " [" + w.check + "]";
  std::string out;
  if (!w.where.file.empty()) {
    out += w.where.file;
    if (w.where.line > 0) out += ":" + std::to_string(w.where.line);
    if (w.where.column > 0) out += ":" + std::to_string(w.where.column);
    out += ": ";
  }
  out += "warning: " + w.object_kind + " " + w.name + ": ";
  if (!w.field.empty()) out += w.field + ": ";
  return out + w.message + " [" + w.check + "]";
}

}  // namespace sim
