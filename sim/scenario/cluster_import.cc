#include "sim/scenario/cluster_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "apf/allocation/priority_level_limits.h"
#include "apf/classification/classifier.h"
#include "apf/config/bootstrap.h"
#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/manifest.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/input_file.h"
#include "sim/io/yaml_input.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/metrics_import.h"

namespace sim {
namespace {

constexpr const char* kFlowSchemaKind = "FlowSchema";
constexpr const char* kPriorityLevelKind = "PriorityLevelConfiguration";

// A YAML scalar that reads back as exactly `text` (a JSON string is a YAML double-quoted
// scalar).
std::string Quote(const std::string& text) { return nlohmann::json(text).dump(); }

std::string Indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += line.empty() ? "\n" : prefix + line + "\n";
  return out;
}

// A rate in calls per second with six significant figures, never below the scenario's
// floor of 1e-6.
std::string Rate(double rate) {
  std::ostringstream out;
  out.precision(6);
  out << std::max(rate, 1e-6);
  return out.str();
}

// A YAML node as JSON, its scalars typed as YAML 1.2's core schema types them: a quoted
// scalar (tag "!") is always a string, so `"true"` in an annotation stays a string.
nlohmann::json NodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = NodeToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(NodeToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return text;
      if (text == "true" || text == "false") return text == "true";
      if (text == "null" || text == "~") return nullptr;
      const nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
      return number.is_number() ? number : nlohmann::json(text);
    }
    default:
      return nullptr;
  }
}

// ---- objects -------------------------------------------------------------------------

struct ImportedObjects {
  std::vector<YAML::Node> exported;  // FlowSchemas and levels as exported, trimmed
  FlowControlManifests manifests;
  std::vector<std::string> notes;
};

ImportedObjects ReadObjects(const std::string& path) {
  ImportedObjects out;
  const std::string source = InputSourceName(path);
  const std::vector<YAML::Node> docs = LoadYamlFile(path);
  std::vector<std::pair<YAML::Node, std::string>> items;  // with their field paths
  for (const YAML::Node& doc : docs) {
    if (doc.IsMap() && doc["items"] && doc["items"].IsSequence()) {
      for (size_t i = 0; i < doc["items"].size(); ++i) {
        items.emplace_back(doc["items"][i], "items[" + std::to_string(i) + "]");
      }
    } else {
      items.emplace_back(doc, "");
    }
  }
  std::map<std::string, int> other_kinds;
  for (const auto& [item, field] : items) {
    const std::string kind =
        item.IsMap() && item["kind"] && item["kind"].IsScalar() ? item["kind"].Scalar() : "";
    if (kind != kFlowSchemaKind && kind != kPriorityLevelKind) {
      ++other_kinds[kind.empty() ? "(no kind)" : kind];
      continue;
    }
    out.manifests.Append(ReadFlowControlObjects(YamlValue(item, source, field)));
    // As exported, without what only the cluster's bookkeeping needs.
    YAML::Node trimmed = YAML::Clone(item);
    trimmed.remove("status");
    if (trimmed["metadata"] && trimmed["metadata"].IsMap()) {
      for (const char* key : {"managedFields", "uid", "resourceVersion", "creationTimestamp"}) {
        trimmed["metadata"].remove(key);
      }
    }
    out.exported.push_back(trimmed);
  }
  for (const auto& [kind, count] : other_kinds) {
    out.notes.push_back(source + ": " + std::to_string(count) + " object(s) of kind " + kind +
                        " left out: only FlowSchemas and PriorityLevelConfigurations shape APF");
  }
  if (out.exported.empty()) {
    throw InputError({source, 0, 0}, "",
                     "no FlowSchema or PriorityLevelConfiguration found (export them with "
                     "`kubectl get flowschemas,prioritylevelconfigurations -o yaml`)");
  }
  ThrowIfInvalid(out.manifests);
  return out;
}

// Which objects differ from the version's suggested ones, and which are the cluster's own.
std::vector<std::string> CompareWithSuggested(const FlowControlManifests& manifests,
                                              apf::KubernetesVersion version) {
  const apf::BootstrapObjects boot = apf::Bootstrap(version);
  std::vector<std::string> edited, own;
  for (const LoadedPriorityLevel& pl : manifests.priority_levels) {
    const std::string& name = pl.object.metadata.name;
    auto it =
        std::find_if(boot.suggested_priority_levels.begin(), boot.suggested_priority_levels.end(),
                     [&](const auto& s) { return s.metadata.name == name; });
    if (it != boot.suggested_priority_levels.end()) {
      if (!(it->spec == pl.object.spec)) edited.push_back(kPriorityLevelKind + (" " + name));
    } else if (!apf::MandatoryPriorityLevel(name)) {
      own.push_back(kPriorityLevelKind + (" " + name));
    }
  }
  for (const LoadedFlowSchema& fs : manifests.flow_schemas) {
    const std::string& name = fs.object.metadata.name;
    auto it = std::find_if(boot.suggested_flow_schemas.begin(), boot.suggested_flow_schemas.end(),
                           [&](const auto& s) { return s.metadata.name == name; });
    if (it != boot.suggested_flow_schemas.end()) {
      if (!(it->spec == fs.object.spec)) edited.push_back(kFlowSchemaKind + (" " + name));
    } else if (!apf::MandatoryFlowSchema(name)) {
      own.push_back(kFlowSchemaKind + (" " + name));
    }
  }
  std::vector<std::string> notes;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  notes.push_back(
      edited.empty()
          ? "no suggested object was edited away from " + version.ToString() + "'s suggested spec"
          : "edited away from " + version.ToString() + "'s suggested spec: " + join(edited));
  if (!own.empty()) notes.push_back("the cluster's own objects: " + join(own));
  return notes;
}

// ---- scrapes -------------------------------------------------------------------------

struct Scrape {
  std::string source;
  std::vector<MetricSample> samples;
  std::optional<double> process_start;  // process_start_time_seconds
};

const std::string& Label(const MetricSample& s, const std::string& name) {
  static const std::string kNone;
  auto it = s.labels.find(name);
  return it == s.labels.end() ? kNone : it->second;
}

// The version the scrape's kubernetes_build_info names, with its line.
std::optional<std::pair<apf::KubernetesVersion, int>> ScrapeVersion(const Scrape& scrape) {
  for (const MetricSample& s : scrape.samples) {
    if (s.name != "kubernetes_build_info") continue;
    std::string text = Label(s, "git_version");
    if (text.empty()) {
      std::string minor = Label(s, "minor");
      while (!minor.empty() && !std::isdigit(static_cast<unsigned char>(minor.back()))) {
        minor.pop_back();  // "34+" on some distributions
      }
      text = Label(s, "major") + "." + minor;
    }
    std::string error;
    const auto version = apf::ParseKubernetesVersion(text, &error);
    if (!version) {
      throw InputError({scrape.source, s.line, 1}, "kubernetes_build_info",
                       "version \"" + text + "\": " + error + " (give --kubernetes-version)");
    }
    return std::make_pair(*version, s.line);
  }
  return std::nullopt;
}

// ---- dumps ---------------------------------------------------------------------------

std::string Trim(std::string s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<DumpRow> ReadDump(const std::string& path, const std::string& first_header,
                              size_t columns) {
  return ParseDebugDump(ReadInputFile(path), path, first_header, columns);
}

// The API group of a request path: "/apis/apps/v1/..." is "apps", "/api/v1/..." the core.
std::string GroupOfPath(const std::string& path) {
  if (path.rfind("/apis/", 0) != 0) return "";
  const size_t end = path.find('/', 6);
  return path.substr(6, end == std::string::npos ? std::string::npos : end - 6);
}

// ---- clients -------------------------------------------------------------------------

struct RequestKind {
  std::string verb, api_group, api_version, resource, subresource, namespace_, query, path;
  auto operator<=>(const RequestKind&) const = default;
};

struct ImportedClient {
  std::string name;
  std::string user;  // or service_account
  std::string service_account;
  std::vector<std::string> groups;
  std::string comment;
  std::map<RequestKind, double> rates;  // calls per second
};

std::string RequestYaml(const RequestKind& r) {
  std::string out = "{verb: " + Quote(r.verb);
  if (!r.path.empty()) return out + ", path: " + Quote(r.path) + "}";
  if (!r.api_group.empty()) out += ", apiGroup: " + Quote(r.api_group);
  if (!r.api_version.empty() && r.api_version != "v1") {
    out += ", apiVersion: " + Quote(r.api_version);
  }
  out += ", resource: " + Quote(r.resource);
  if (!r.subresource.empty()) out += ", subresource: " + Quote(r.subresource);
  if (!r.namespace_.empty()) out += ", namespace: " + Quote(r.namespace_);
  if (!r.query.empty()) out += ", query: " + Quote(r.query);
  return out + "}";
}

std::string ClientYaml(const ImportedClient& c) {
  std::string out;
  if (!c.comment.empty()) out += Indent(c.comment, "  # ");
  out += "  - name: " + Quote(c.name) + "\n";
  if (!c.service_account.empty()) {
    out += "    serviceAccount: " + Quote(c.service_account) + "\n";
  } else {
    out += "    user: " + Quote(c.user) + "\n";
    std::vector<std::string> groups;
    for (const std::string& g : c.groups) {
      if (g != "system:authenticated") groups.push_back(Quote(g));  // always added
    }
    if (!groups.empty()) {
      std::string list;
      for (const std::string& g : groups) list += (list.empty() ? "" : ", ") + g;
      out += "    groups: [" + list + "]\n";
    }
  }
  // The recorded rates already went through the client's own limiter.
  out += "    clientGo: {qps: -1}\n    traffic:\n";
  std::vector<std::pair<RequestKind, double>> kinds(c.rates.begin(), c.rates.end());
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [kind, rate] : kinds) {
    out += "    - poisson: {rate: " + Rate(rate) + ", request: " + RequestYaml(kind) + "}\n";
  }
  return out;
}

std::string UniqueName(std::string name, std::set<std::string>* taken) {
  std::string candidate = name;
  for (int n = 2; !taken->insert(candidate).second; ++n) candidate = name + "~" + std::to_string(n);
  return candidate;
}

// A made-up identity and request that the FlowSchema's first rule matches.
std::optional<ImportedClient> ClientForFlowSchema(const apf::FlowSchema& fs, RequestKind* kind) {
  if (fs.spec.rules.empty() || fs.spec.rules[0].subjects.empty()) return std::nullopt;
  const apf::PolicyRulesWithSubjects& rule = fs.spec.rules[0];
  const apf::Subject& subject = rule.subjects[0];
  ImportedClient c;
  const std::string stand_in = "apfsim-import:" + fs.metadata.name;
  if (subject.user) {
    c.user = subject.user->name == "*" ? stand_in : subject.user->name;
  } else if (subject.group) {
    c.user = stand_in;
    c.groups = {subject.group->name};
  } else if (subject.service_account) {
    const std::string ns = subject.service_account->namespace_;
    const std::string name = subject.service_account->name;
    c.service_account = (ns == "*" ? "default" : ns) + "/" + (name == "*" ? "apfsim-import" : name);
  } else {
    return std::nullopt;
  }
  auto first = [](const std::vector<std::string>& v, const std::string& any) {
    return v.empty() || v[0] == "*" ? any : v[0];
  };
  if (!rule.resource_rules.empty()) {
    const apf::ResourcePolicyRule& r = rule.resource_rules[0];
    kind->verb = first(r.verbs, "get");
    kind->api_group = first(r.api_groups, "");
    std::string resource = first(r.resources, "pods");
    if (const size_t slash = resource.find('/'); slash != std::string::npos) {
      kind->subresource = resource.substr(slash + 1);
      resource.resize(slash);
    }
    kind->resource = resource;
    if (!r.cluster_scope) kind->namespace_ = first(r.namespaces, "default");
  } else if (!rule.non_resource_rules.empty()) {
    const apf::NonResourcePolicyRule& r = rule.non_resource_rules[0];
    kind->verb = first(r.verbs, "get");
    std::string path = first(r.non_resource_urls, "/healthz");
    if (!path.empty() && path.back() == '*') path.back() = 'x';  // "/api/*" matches "/api/x"
    kind->path = path;
  } else {
    return std::nullopt;
  }
  return c;
}

// The FlowSchema and level the classifier gives a request.
std::pair<std::string, std::string> Classify(const apf::Classifier& classifier,
                                             const std::string& user,
                                             std::vector<std::string> groups, const RequestKind& r,
                                             const std::string& name = "") {
  if (std::find(groups.begin(), groups.end(), "system:authenticated") == groups.end()) {
    groups.push_back("system:authenticated");
  }
  apf::RequestDigest d;
  d.user = user;
  d.groups = groups;
  d.is_resource_request = r.path.empty();
  d.verb = r.verb;
  d.api_group = r.api_group;
  d.resource = r.resource;
  d.subresource = r.subresource;
  d.namespace_ = r.namespace_;
  d.name = name;
  d.path = r.path;
  const apf::Classification c = classifier.Classify(d);
  if (c.flow_schema < 0) return {"", ""};
  return {classifier.flow_schema(c.flow_schema).metadata.name,
          classifier.priority_level(c.priority_level).name};
}

std::string UserOfServiceAccount(const std::string& ns_name) {
  const size_t slash = ns_name.find('/');
  return "system:serviceaccount:" + ns_name.substr(0, slash) + ":" + ns_name.substr(slash + 1);
}

std::vector<std::string> GroupsOfServiceAccount(const std::string& ns_name) {
  return {"system:serviceaccounts",
          "system:serviceaccounts:" + ns_name.substr(0, ns_name.find('/'))};
}

// The audit log's events must be audit.k8s.io/v1 (the version the reader knows): an event
// of another version is refused at its line rather than skipped line by line.
void CheckAuditVersion(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "", "cannot read the audit log");
  std::string line;
  int number = 0;
  while (std::getline(in, line) && number < 1000) {
    ++number;
    const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("kind") || event["kind"] != "Event") continue;
    const nlohmann::json& version = event.contains("apiVersion") ? event["apiVersion"] : nullptr;
    if (!version.is_string() || version.get<std::string>() != "audit.k8s.io/v1") {
      throw InputError(
          {path, number, 1}, "apiVersion",
          "an audit event of " +
              (version.is_string() ? version.get<std::string>() : std::string("no version")) +
              ": apfsim reads audit.k8s.io/v1 (the log backend's "
              "--audit-log-version default since Kubernetes 1.12)");
    }
  }
}

}  // namespace

std::vector<DumpRow> ParseDebugDump(std::string_view text, const std::string& source,
                                    const std::string& first_header, size_t columns) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::vector<DumpRow> rows;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (Trim(line).empty()) continue;
    DumpRow row{number, {}};
    std::string cell;
    std::istringstream cells(line);
    while (std::getline(cells, cell, ',')) row.cells.push_back(Trim(cell));
    if (number == 1) {
      if (row.cells.empty() || row.cells[0] != first_header || row.cells.size() < columns) {
        throw InputError({source, 1, 1}, "",
                         "not an APF debug dump: its header should begin with " + first_header +
                             " and have " + std::to_string(columns) + " columns");
      }
      continue;
    }
    if (row.cells.size() < 2) {
      throw InputError({source, number, 1}, "", "a dump row has at least two cells");
    }
    rows.push_back(std::move(row));
  }
  if (number == 0) throw InputError({source, 0, 0}, "", "the dump is empty");
  return rows;
}

ClusterImport ImportCluster(const ClusterImportOptions& opt) {
  ClusterImport result;
  std::vector<std::string>& notes = result.notes;
  std::vector<std::string> guessed;  // each with the flag that overrides it

  // Scrapes.
  std::vector<Scrape> scrapes;
  for (const std::string& path : opt.metrics) {
    Scrape s;
    s.source = InputSourceName(path);
    s.samples = ParseMetricsText(ReadInputText(path), s.source);
    for (const MetricSample& m : s.samples) {
      if (m.name == "process_start_time_seconds") s.process_start = m.value;
    }
    scrapes.push_back(std::move(s));
  }

  // Version: the flag, else the scrape; a contradiction is an error at the scrape's line.
  std::optional<apf::KubernetesVersion> version;
  std::string version_from;
  if (!opt.kubernetes_version.empty()) {
    version = ParseKubernetesVersionOrThrow(opt.kubernetes_version, "--kubernetes-version");
    version_from = "--kubernetes-version";
  }
  for (const Scrape& s : scrapes) {
    const auto found = ScrapeVersion(s);
    if (!found) continue;
    if (!version) {
      version = found->first;
      version_from = s.source + ":" + std::to_string(found->second) + " (kubernetes_build_info)";
    } else if (*version != found->first) {
      throw InputError({s.source, found->second, 1}, "kubernetes_build_info",
                       "the scrape is of Kubernetes " + found->first.ToString() + " but " +
                           version_from + " says " + version->ToString());
    }
  }
  if (!version) {
    version = apf::kDefaultKubernetesVersion;
    version_from = "guessed, apfsim's default";
    guessed.push_back("kubernetesVersion " + version->ToString() +
                      ": no kubernetes_build_info in a scrape (--kubernetes-version)");
  }

  // Objects.
  ImportedObjects objects = ReadObjects(opt.objects);
  notes.insert(notes.end(), objects.notes.begin(), objects.notes.end());
  for (const std::string& n : CompareWithSuggested(objects.manifests, *version)) notes.push_back(n);
  const FlowControlSetup setup = BuildFlowControl(*version, objects.manifests);
  const apf::Classifier classifier(setup.config);

  // Replicas: one per process among the scrapes.
  int replicas = opt.replicas;
  std::string replicas_from = "--replicas";
  std::map<double, std::vector<const Scrape*>> by_process;
  for (const Scrape& s : scrapes) {
    by_process[s.process_start.value_or(-static_cast<double>(by_process.size()) - 1)].push_back(&s);
  }
  if (replicas == 0) {
    replicas = std::max<int>(1, static_cast<int>(by_process.size()));
    replicas_from = scrapes.empty() ? "guessed (no scrape)"
                                    : "the scrapes (one replica per process_start_time_seconds)";
    if (scrapes.empty()) guessed.push_back("replicas 1: no scrape (--replicas)");
  }

  // Server concurrency limit from the first scrape's nominal limits.
  int max_inflight = 400, max_mutating = 200;
  std::string limit_from;
  std::map<std::string, double> nominal;
  if (!scrapes.empty()) {
    for (const MetricSample& m : scrapes.front().samples) {
      if (m.name == "apiserver_flowcontrol_nominal_limit_seats") {
        nominal[Label(m, "priority_level")] = m.value;
      }
    }
  }
  if (nominal.empty()) {
    limit_from =
        "cannot be read: no apiserver_flowcontrol_nominal_limit_seats in a scrape; "
        "the flags' defaults 400 and 200 (--set apiservers.maxRequestsInflight=...)";
    guessed.push_back("maxRequestsInflight 400 / maxMutatingRequestsInflight 200: " + limit_from);
  } else {
    double share_sum = 0, seats_sum = 0;
    for (const apf::PriorityLevel& pl : setup.config.priority_levels) {
      share_sum += pl.nominal_concurrency_shares;
    }
    for (const auto& [level, seats] : nominal) seats_sum += seats;
    int found = 0;
    for (int scl = 1; scl <= static_cast<int>(seats_sum) && found == 0; ++scl) {
      bool all = true;
      for (const apf::PriorityLevel& pl : setup.config.priority_levels) {
        auto it = nominal.find(pl.name);
        if (it == nominal.end()) continue;
        const auto limits = apf::ComputePriorityLevelLimits(pl.AllocationSpec(), scl, share_sum);
        if (static_cast<double>(limits.nominal_cl) != it->second) {
          all = false;
          break;
        }
      }
      if (all) found = scl;
    }
    const int scl = found ? found : static_cast<int>(seats_sum);
    max_mutating = scl / 3;
    max_inflight = scl - max_mutating;
    limit_from = found ? "server concurrency limit " + std::to_string(scl) +
                             ": the smallest that gives every level its scraped "
                             "apiserver_flowcontrol_nominal_limit_seats (sum " +
                             std::to_string(static_cast<long long>(seats_sum)) + ")"
                       : "the sum of apiserver_flowcontrol_nominal_limit_seats, " +
                             std::to_string(scl) +
                             ": no limit reproduces every level's seats with these objects";
    guessed.push_back("the split " + std::to_string(max_inflight) + " + " +
                      std::to_string(max_mutating) +
                      " of the server concurrency limit (only the sum matters under APF; "
                      "--set apiservers.maxMutatingRequestsInflight=...)");
    if (!found) notes.push_back("the scraped nominal seats do not match the objects' shares");
  }

  // Resources from the first scrape.
  std::vector<ResourceSpec> resources;
  std::vector<std::string> skipped;
  if (!scrapes.empty()) {
    resources = ResourcesFromMetricsText(ReadInputText(opt.metrics.front()), scrapes.front().source,
                                         &skipped);
    for (const std::string& r : skipped) notes.push_back("resource " + r + ": count -1, left out");
    bool watch_cache = false;
    for (const MetricSample& m : scrapes.front().samples) {
      watch_cache |= m.name.rfind("apiserver_watch_cache_", 0) == 0;
    }
    if (watch_cache) {
      notes.push_back(
          "watch-cache metrics present: the watch cache serves LISTs as the "
          "scenario's consistentListFromCache says (on by default)");
    }
  }

  // Clients.
  std::vector<ImportedClient> clients;
  std::set<std::string> taken;
  apf::Nanos duration = 60 * apf::kSecond;
  std::string clients_from;
  std::map<std::string, std::vector<std::string>> groups_of_user;  // from the audit log
  std::string audit_file_in_scenario;
  if (!opt.audit.empty()) {
    CheckAuditVersion(opt.audit);
    AuditLogSpec spec;
    spec.enabled = true;
    spec.file = opt.audit;
    AuditLogReader reader(spec, 0, nullptr);
    ReplayRow row;
    AuditIdentity identity;
    apf::Nanos received = 0, first = 0, last = 0;
    bool any = false;
    std::map<std::string, std::map<RequestKind, std::int64_t>> counts;
    std::map<std::string, AuditIdentity> identities;
    std::vector<std::string> order;
    while (reader.NextEvent(&row, &identity, &received)) {
      if (!any) first = received;
      first = std::min(first, received);
      last = std::max(last, received);
      any = true;
      std::string key = AuditIdentityKey(identity);
      if (opt.clients_by_user_agent) key += "\n" + identity.user_agent;
      if (identities.emplace(key, identity).second) order.push_back(key);
      groups_of_user.emplace(identity.user, identity.groups);
      const RequestTemplate& r = row.request;
      RequestKind kind{r.verb,       r.api_group, r.api_version, r.resource, r.subresource,
                       r.namespace_, "",          r.path};
      if (r.verb == "list" || r.verb == "watch") kind.query = r.query;
      ++counts[key][kind];
    }
    const apf::Nanos span = std::max<apf::Nanos>(last - first, apf::kSecond);
    const apf::Nanos window = opt.window > 0 ? opt.window : span;
    duration = (window + apf::kSecond - 1) / apf::kSecond * apf::kSecond;
    if (opt.audit_as_trace) {
      std::filesystem::path file = std::filesystem::absolute(opt.audit);
      if (!opt.output.empty() && opt.output != "-") {
        file = std::filesystem::relative(file, std::filesystem::absolute(opt.output).parent_path());
      }
      audit_file_in_scenario = file.generic_string();
      clients_from = "the audit log " + opt.audit + ", replayed event by event (spec.auditLog)";
    } else {
      clients_from = "the audit log " + opt.audit + ": one client per " +
                     (opt.clients_by_user_agent ? "identity and user agent" : "identity") +
                     ", Poisson arrivals at each request kind's rate over " +
                     FormatDuration(window) + " (--audit-as-trace replays the events instead)";
      for (const std::string& key : order) {
        const AuditIdentity& id = identities[key];
        ImportedClient c;
        std::string base = id.user;
        if (opt.clients_by_user_agent && !id.user_agent.empty()) {
          base += "@" + id.user_agent.substr(0, id.user_agent.find('/'));
        }
        c.name = UniqueName(base, &taken);
        c.user = id.user;
        c.groups = id.groups;
        std::int64_t total = 0;
        for (const auto& [kind, n] : counts[key]) {
          c.rates[kind] = static_cast<double>(n) * 1e9 / static_cast<double>(window);
          total += n;
        }
        c.comment = std::to_string(total) + " audit events";
        if (opt.clients_by_user_agent) c.comment += ", user agent " + Quote(id.user_agent);
        clients.push_back(std::move(c));
      }
    }
  } else if (!scrapes.empty()) {
    // Coarse: the counters of the scrapes, by flow schema and level.
    std::map<std::pair<std::string, std::string>, double> dispatched;
    apf::Nanos window = opt.window;
    bool two = false;
    for (const auto& [process, list] : by_process) {
      auto totals = [](const Scrape& s) {
        std::map<std::pair<std::string, std::string>, double> t;
        for (const MetricSample& m : s.samples) {
          if (m.name == "apiserver_flowcontrol_dispatched_requests_total") {
            t[{Label(m, "flow_schema"), Label(m, "priority_level")}] += m.value;
          }
        }
        return t;
      };
      auto now = totals(*list.back());
      if (list.size() >= 2) {
        two = true;
        for (const auto& [k, v] : totals(*list.front())) now[k] -= v;
      }
      for (const auto& [k, v] : now) dispatched[k] += v;
    }
    if (window == 0) {
      window = (two ? 60 : 3600) * apf::kSecond;
      guessed.push_back(
          std::string("the window of the dispatched counters, ") + FormatDuration(window) +
          (two ? " between the two scrapes" : " since the apiserver started") + " (--window)");
    }
    clients_from =
        "COARSE: apiserver_flowcontrol_dispatched_requests_total by flow schema and "
        "level, " +
        std::string(two ? "the difference of two scrapes" : "one scrape's totals") + " over " +
        FormatDuration(window) +
        "; each client's identity and request are made up to match its FlowSchema's "
        "first rule (give --audit for real clients)";
    for (const auto& [key, count] : dispatched) {
      if (count <= 0) continue;
      const int index = setup.config.FindFlowSchema(key.first);
      if (index < 0) {
        notes.push_back("dispatched requests of flow schema " + key.first +
                        ", which the objects do not have: no client for them");
        continue;
      }
      RequestKind kind;
      std::optional<ImportedClient> c =
          ClientForFlowSchema(setup.config.flow_schemas[index], &kind);
      if (!c) {
        notes.push_back("flow schema " + key.first + " has no rule to make a client from");
        continue;
      }
      c->name = UniqueName("coarse:" + key.first, &taken);
      c->rates[kind] = count * 1e9 / static_cast<double>(window);
      const std::string user =
          c->service_account.empty() ? c->user : UserOfServiceAccount(c->service_account);
      const auto groups =
          c->service_account.empty() ? c->groups : GroupsOfServiceAccount(c->service_account);
      const auto [fs, level] = Classify(classifier, user, groups, kind);
      c->comment = "coarse: " + std::to_string(static_cast<long long>(count)) +
                   " requests dispatched by flow schema " + key.first + " at level " + key.second;
      if (fs != key.first) {
        c->comment += "; the made-up request lands in " + fs + " instead";
        notes.push_back("coarse client for " + key.first + " lands in " + fs);
      }
      clients.push_back(std::move(*c));
    }
  }
  if (clients.empty() && audit_file_in_scenario.empty()) {
    clients_from = "none could be read: a placeholder client (give --audit or a scrape)";
    ImportedClient c;
    c.name = "placeholder";
    c.user = "apfsim-import:placeholder";
    c.rates[RequestKind{"get", "", "", "namespaces", "", "", "", ""}] = 1;
    clients.push_back(std::move(c));
    guessed.push_back("clients: " + clients_from);
  }
  if (opt.audit.empty()) {
    guessed.push_back("duration " + FormatDuration(duration) + " (--set duration=...)");
  }

  // Dumps: the levels and queues the cluster had, and where it put each request.
  if (!opt.dumps.empty()) {
    namespace fs = std::filesystem;
    const fs::path dir(opt.dumps);
    std::vector<std::string>& bad = result.mismatches;
    const fs::path levels_file = dir / "dump_priority_levels.txt";
    const fs::path queues_file = dir / "dump_queues.txt";
    const fs::path requests_file = dir / "dump_requests.txt";
    std::set<std::string> dumped_levels;
    if (fs::exists(levels_file)) {
      for (const DumpRow& row : ReadDump(levels_file.string(), "PriorityLevelName", 10)) {
        dumped_levels.insert(row.cells[0]);
        if (setup.config.FindPriorityLevel(row.cells[0]) < 0) {
          bad.push_back(levels_file.filename().string() + ":" + std::to_string(row.line) +
                        ": level " + row.cells[0] + " is in the dump but not in the objects");
        }
      }
      for (const apf::PriorityLevel& pl : setup.config.priority_levels) {
        if (!dumped_levels.count(pl.name)) {
          bad.push_back("level " + pl.name + " is in the objects but not in " +
                        levels_file.filename().string());
        }
      }
    }
    if (fs::exists(queues_file)) {
      std::map<std::string, int> queues;
      for (const DumpRow& row : ReadDump(queues_file.string(), "PriorityLevelName", 9)) {
        if (row.cells[1] != "<none>") ++queues[row.cells[0]];
      }
      for (const apf::PriorityLevel& pl : setup.config.priority_levels) {
        const int want = std::max(0, pl.DesiredNumQueues());
        const int got = queues.count(pl.name) ? queues[pl.name] : 0;
        if (want != got) {
          bad.push_back("level " + pl.name + ": " + std::to_string(got) + " queues in " +
                        queues_file.filename().string() + ", " + std::to_string(want) +
                        " in the objects");
        }
      }
    }
    if (fs::exists(requests_file)) {
      int checked = 0;
      for (const DumpRow& row : ReadDump(requests_file.string(), "PriorityLevelName", 18)) {
        if (row.cells.size() < 18) {
          throw InputError({requests_file.string(), row.line, 1}, "",
                           "a dump_requests row has 18 cells (includeRequestDetails=1)");
        }
        const std::string& user = row.cells[10];
        auto groups =
            groups_of_user.count(user) ? groups_of_user[user] : std::vector<std::string>{};
        if (user.rfind("system:serviceaccount:", 0) == 0 && !groups_of_user.count(user)) {
          groups = {"system:serviceaccounts",
                    "system:serviceaccounts:" + user.substr(22, user.find(':', 22) - 22)};
        }
        RequestKind kind;
        kind.verb = row.cells[11];
        kind.namespace_ = row.cells[13];
        kind.resource = row.cells[16];
        kind.subresource = row.cells[17];
        if (kind.resource.empty()) {
          kind.path = row.cells[12];
        } else {
          kind.api_group = GroupOfPath(row.cells[12]);
        }
        const auto [fs_name, level] = Classify(classifier, user, groups, kind, row.cells[14]);
        ++checked;
        if (fs_name != row.cells[1] || level != row.cells[0]) {
          bad.push_back(requests_file.filename().string() + ":" + std::to_string(row.line) + ": " +
                        user + " " + kind.verb + " " + row.cells[12] + " was in flow schema " +
                        row.cells[1] + " at level " + row.cells[0] +
                        "; the import classifies it into " + fs_name + " at " + level);
        }
      }
      notes.push_back(std::to_string(checked) + " dumped request(s) classified again");
    }
    if (!fs::exists(levels_file) && !fs::exists(queues_file) && !fs::exists(requests_file)) {
      throw InputError({opt.dumps, 0, 0}, "--dumps",
                       "no dump_priority_levels.txt, dump_queues.txt or dump_requests.txt there");
    }
    if (bad.empty()) notes.push_back("the dumps agree with the objects");
    for (const std::string& m : bad) notes.push_back("DUMP MISMATCH: " + m);
  }

  // The scenario.
  std::ostringstream out;
  out << "# Imported by `apfsim import` from a live cluster's exports.\n#\n"
      << "# From where:\n"
      << "#   flowControl.objects: " << opt.objects
      << " (FlowSchemas and PriorityLevelConfigurations as exported; status and\n"
      << "#     managedFields dropped), on top of the version's defaults\n"
      << "#   kubernetesVersion " << version->ToString() << ": " << version_from << "\n"
      << "#   replicas " << replicas << ": " << replicas_from << "\n"
      << "#   max(Mutating)RequestsInflight: " << limit_from << "\n";
  if (!scrapes.empty()) {
    out << "#   resources: apiserver_storage_objects / apiserver_resource_objects of "
        << scrapes.front().source << " (cluster-scoped: a scrape does not say how\n"
        << "#     objects spread over namespaces)\n";
  }
  out << "#   clients: " << clients_from << "\n";
  if (!opt.dumps.empty()) out << "#   checked against the dumps in " << opt.dumps << "\n";
  if (!guessed.empty()) {
    out << "#\n# Guessed (and the flag that overrides each):\n";
    for (const std::string& g : guessed) out << "#   " << g << "\n";
  }
  if (!notes.empty()) {
    out << "#\n# Notes:\n";
    for (const std::string& n : notes) out << "#   " << n << "\n";
  }
  out << "apiVersion: apfsim/v1alpha1\nkind: Scenario\nmetadata:\n  name: " << Quote(opt.name)
      << "\n  description: \"imported from a live cluster\"\nspec:\n"
      << "  duration: " << FormatDuration(duration) << "\n"
      << "  apiservers:\n    replicas: " << replicas << "\n    kubernetesVersion: \""
      << version->ToString() << "\"\n    maxRequestsInflight: " << max_inflight
      << "\n    maxMutatingRequestsInflight: " << max_mutating << "\n";
  if (!resources.empty()) {
    out << "  resources:\n";
    for (const ResourceSpec& r : resources) {
      out << "  - {";
      if (!r.api_group.empty()) out << "apiGroup: " << Quote(r.api_group) << ", ";
      out << "resource: " << Quote(r.resource) << ", objects: " << r.objects
          << ", averageBytes: " << r.average_bytes << "}\n";
    }
  }
  out << "  flowControl:\n    defaults: true\n    objects:\n";
  for (const YAML::Node& object : objects.exported) {
    std::string text = Indent(JsonToYaml(NodeToJson(object)), "      ");
    text.replace(4, 2, "- ");
    out << text;
  }
  if (!audit_file_in_scenario.empty()) {
    out << "  auditLog:\n    file: " << Quote(audit_file_in_scenario)
        << "\n    clientGo: {qps: -1}\n";
  } else {
    out << "  clients:\n";
    for (const ImportedClient& c : clients) out << ClientYaml(c);
  }
  result.scenario_yaml = out.str();
  return result;
}

}  // namespace sim
