#include "sim/scenario/loader.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "apf/classification/user_info.h"
#include "sim/io/duration.h"
#include "sim/io/yaml_input.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/expectation_paths.h"
#include "sim/scenario/feature_gates.h"
#include "sim/scenario/metrics_import.h"
#include "sim/scenario/trace_replay.h"

namespace sim {
namespace {

namespace fs = std::filesystem;

// ---- --set overrides, applied to the YAML tree before it is read.

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : path) {
    if (ch == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  parts.push_back(cur);
  return parts;
}

[[noreturn]] void FailOverride(const std::string& text, const std::string& why) {
  throw InputError({"--set", 0, 0}, text, why);
}

// A copy of `node` without source marks: a --set value parsed on its own has marks of its
// own text (line 1, column 1), which an error would report as a line of the scenario file.
YAML::Node WithoutMarks(const YAML::Node& node) {
  YAML::Node copy;
  if (node.IsScalar()) {
    copy = YAML::Node(node.Scalar());
  } else if (node.IsSequence()) {
    copy = YAML::Node(YAML::NodeType::Sequence);
    for (const YAML::Node& item : node) copy.push_back(WithoutMarks(item));
  } else if (node.IsMap()) {
    copy = YAML::Node(YAML::NodeType::Map);
    for (const auto& pair : node) copy[WithoutMarks(pair.first)] = WithoutMarks(pair.second);
  } else {
    return node;  // null or undefined: no mark to report
  }
  copy.SetTag(node.Tag());  // the typing of a plain or quoted scalar (sim/io/yaml_input.h)
  return copy;
}

// A --set path below flowControl.priorityLevels or flowControl.flowSchemas: the object's
// name, then a field by its short name ("handSize") or by its path in the manifest
// ("spec.limited.limitResponse.queuing.handSize"). Names may hold dots, so the field is
// matched at the end, longest first.
struct ObjectFieldPath {
  std::string object;
  std::string short_name;  // "" when no known field ends the path
};

struct ObjectField {
  const char* short_name;
  const char* manifest_path;  // below spec
};

constexpr ObjectField kPriorityLevelFields[] = {
    {"nominalConcurrencyShares", "limited.nominalConcurrencyShares"},
    {"nominalConcurrencyShares", "exempt.nominalConcurrencyShares"},
    {"lendablePercent", "limited.lendablePercent"},
    {"lendablePercent", "exempt.lendablePercent"},
    {"borrowingLimitPercent", "limited.borrowingLimitPercent"},
    {"queues", "limited.limitResponse.queuing.queues"},
    {"handSize", "limited.limitResponse.queuing.handSize"},
    {"queueLengthLimit", "limited.limitResponse.queuing.queueLengthLimit"},
};

constexpr ObjectField kFlowSchemaFields[] = {
    {"matchingPrecedence", "matchingPrecedence"},
    {"priorityLevelConfiguration", "priorityLevelConfiguration.name"},
    {"priorityLevel", "priorityLevelConfiguration.name"},
    {"distinguisherMethod", "distinguisherMethod.type"},
};

template <size_t N>
ObjectFieldPath MatchObjectField(const ObjectField (&fields)[N], const std::string& rest) {
  ObjectFieldPath best;
  size_t best_length = 0;
  auto consider = [&](const std::string& form, const char* short_name) {
    if (rest.size() > form.size() + 1 &&
        rest.compare(rest.size() - form.size(), form.size(), form) == 0 &&
        rest[rest.size() - form.size() - 1] == '.' && form.size() > best_length) {
      best = {rest.substr(0, rest.size() - form.size() - 1), short_name};
      best_length = form.size();
    }
  };
  for (const ObjectField& f : fields) {
    const std::string manifest = f.manifest_path;
    consider(f.short_name, f.short_name);
    consider(manifest, f.short_name);
    consider("spec." + manifest, f.short_name);
    // Below `limited` too, as a reader of the manifest's limitResponse block writes it.
    if (manifest.rfind("limited.", 0) == 0) consider(manifest.substr(8), f.short_name);
  }
  return best;
}

ObjectFieldPath SplitObjectFieldPath(const std::string& kind, const std::string& rest) {
  return kind == "priorityLevels" ? MatchObjectField(kPriorityLevelFields, rest)
                                  : MatchObjectField(kFlowSchemaFields, rest);
}

std::string ObjectFieldNames(const std::string& kind) {
  return kind == "priorityLevels"
             ? "nominalConcurrencyShares, lendablePercent, borrowingLimitPercent, queues, "
               "handSize, queueLengthLimit"
             : "matchingPrecedence, priorityLevelConfiguration, distinguisherMethod";
}

void ApplyOverride(YAML::Node spec, const std::string& text, Scenario* scenario) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) FailOverride(text, "expected PATH=VALUE");
  const std::string path = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  std::vector<std::string> parts = SplitPath(path);
  for (const std::string& p : parts) {
    if (p.empty()) FailOverride(text, "empty path segment");
  }
  if (parts.size() >= 4 && parts[0] == "flowControl" &&
      (parts[1] == "priorityLevels" || parts[1] == "flowSchemas")) {
    const std::string prefix = "flowControl." + parts[1] + ".";
    const ObjectFieldPath field = SplitObjectFieldPath(parts[1], path.substr(prefix.size()));
    // An object name never holds a manifest path: "NAME.spec.limited.queues" is a field
    // path that is not one of the known ones, not a level named "NAME.spec.limited".
    const bool path_in_name =
        field.object.find(".spec.") != std::string::npos || field.object.ends_with(".spec");
    if (field.short_name.empty() || path_in_name) {
      FailOverride(text,
                   "expected " + prefix + "NAME.FIELD where FIELD is one of " +
                       ObjectFieldNames(parts[1]) + " (or its path in the manifest, such as " +
                       (parts[1] == "priorityLevels" ? "spec.limited.limitResponse.queuing.handSize"
                                                     : "spec.distinguisherMethod.type") +
                       ")");
    }
    scenario->flow_control_overrides.push_back({parts[1], field.object, field.short_name, value});
    return;
  }
  YAML::Node node = spec;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& key = parts[i];
    if (node.IsSequence()) {
      YAML::Node found;
      bool ok = false;
      for (size_t k = 0; k < node.size(); ++k) {
        if (node[k].IsMap() && node[k]["name"] && node[k]["name"].as<std::string>() == key) {
          found = node[k];
          ok = true;
        }
      }
      if (!ok && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
        const size_t index = std::stoul(key);
        if (index < node.size()) {
          found = node[index];
          ok = true;
        }
      }
      if (!ok) {
        std::vector<std::string> names;
        for (size_t k = 0; k < node.size(); ++k) {
          if (node[k].IsMap() && node[k]["name"] && node[k]["name"].IsScalar()) {
            names.push_back(node[k]["name"].Scalar());
          }
        }
        FailOverride(text, "no item named or numbered \"" + key + "\" in spec." +
                               path.substr(0, path.find(key) - 1) + DidYouMean(key, names));
      }
      node.reset(found);
    } else if (node.IsMap() || node.IsNull()) {
      YAML::Node child = node[key];
      if (!child.IsDefined() || child.IsNull()) {
        node[key] = YAML::Node(YAML::NodeType::Map);
        child = node[key];
      }
      node.reset(child);
    } else {
      FailOverride(text, "\"" + key + "\" is inside a scalar value");
    }
  }
  YAML::Node parsed;
  try {
    parsed = WithoutMarks(YAML::Load(value));
  } catch (const YAML::Exception& e) {
    FailOverride(text, std::string("bad value: ") + e.msg);
  }
  if (node.IsSequence()) {
    const std::string& last = parts.back();
    if (last.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(last) >= node.size()) {
      FailOverride(text, "no item numbered \"" + last + "\"");
    }
    node[std::stoul(last)] = parsed;
  } else {
    node[parts.back()] = parsed;
  }
}

// ---- Reading.

// A name is printed in tables, CSV files and JUnit reports: it must not hold characters
// that do not show or that reorder the text around them ("Trojan Source", CVE-2021-42574):
// C0 and C1 controls and Unicode's bidirectional formatting characters. Returns what is
// wrong, or "".
std::string InvisibleCharacterIn(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) return "must not contain control characters";
    if (c == 0xC2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) < 0xA0) {
      return "must not contain control characters";  // U+0080..U+009F
    }
    // U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 are E2 80 8E/8F, E2 80 AA..AE,
    // E2 81 A6..A9 in UTF-8.
    if (c == 0xE2 && i + 2 < name.size()) {
      const auto b1 = static_cast<unsigned char>(name[i + 1]);
      const auto b2 = static_cast<unsigned char>(name[i + 2]);
      if ((b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE))) ||
          (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9)) {
        return "must not contain bidirectional formatting characters (U+200E, U+200F, "
               "U+202A to U+202E, U+2066 to U+2069), which make it print other than it reads";
      }
    }
  }
  return "";
}

DurationDistribution ReadDistribution(const YamlValue& v) {
  DurationDistribution d;
  if (v.IsScalar()) {
    d.kind = DurationDistribution::Kind::kConstant;
    d.value = v.Duration();
    return d;
  }
  YamlMap m = v.Map();
  int kinds = 0;
  if (auto c = m.Optional("constant")) {
    d.kind = DurationDistribution::Kind::kConstant;
    d.value = c->Duration();
    ++kinds;
  }
  if (auto e = m.Optional("exponential")) {
    d.kind = DurationDistribution::Kind::kExponential;
    d.value = e->Duration();
    ++kinds;
  }
  if (auto l = m.Optional("lognormal")) {
    YamlMap lm = l->Map();
    d.kind = DurationDistribution::Kind::kLognormal;
    d.value = lm.Required("median").Duration();
    d.value2 = lm.Required("p99").Duration();
    if (d.value <= 0) lm.Required("median").Fail("must be positive");
    if (d.value2 < d.value) lm.Required("p99").Fail("must be at least the median");
    lm.Finish();
    ++kinds;
  }
  if (auto u = m.Optional("uniform")) {
    YamlMap um = u->Map();
    d.kind = DurationDistribution::Kind::kUniform;
    d.value = um.Required("min").Duration();
    d.value2 = um.Required("max").Duration();
    if (d.value2 < d.value) um.Required("max").Fail("must be at least min");
    um.Finish();
    ++kinds;
  }
  m.Finish();
  if (kinds != 1) v.Fail("expected exactly one of constant, exponential, lognormal, uniform");
  if (d.value < 0) v.Fail("durations must not be negative");
  return d;
}

RequestTemplate ReadRequest(const YamlValue& v) {
  RequestTemplate r;
  r.where = v.where();
  YamlMap m = v.Map();
  r.verb = m.Required("verb").String();
  r.api_group = m.StringOr("apiGroup", "");
  r.api_version = m.StringOr("apiVersion", "");
  r.resource = m.StringOr("resource", "");
  r.subresource = m.StringOr("subresource", "");
  r.namespace_ = m.StringOr("namespace", "");
  if (r.namespace_ == "{each}") r.namespace_choice = RequestTemplate::NamespaceChoice::kEach;
  if (r.namespace_ == "{random}") r.namespace_choice = RequestTemplate::NamespaceChoice::kRandom;
  r.name = m.StringOr("name", "");
  r.query = m.StringOr("query", "");
  r.path = m.StringOr("path", "");
  if (auto st = m.Optional("serviceTime")) r.service_time = ReadDistribution(*st);
  if (auto seats = m.Optional("seats")) {
    // What the queue set is told the request occupies, instead of the work estimator's
    // answer (as Kubernetes' queue-set tests give widths); the level's maximum seats do
    // not cap it. Bounded so that seat sums stay far from overflow.
    YamlMap sm = seats->Map();
    apf::WorkEstimate e;
    const std::int64_t initial = sm.Int64Or("initial", 1);
    if (initial < 1 || initial > 1000000)
      sm.Required("initial").Fail("must be between 1 and 1000000");
    const std::int64_t final_seats = sm.Int64Or("final", 0);
    if (final_seats < 0 || final_seats > 1000000) {
      sm.Required("final").Fail("must be between 0 and 1000000");
    }
    e.initial_seats = static_cast<std::uint64_t>(initial);
    e.final_seats = static_cast<std::uint64_t>(final_seats);
    e.additional_latency = sm.DurationOr("additionalLatency", 0);
    if (e.additional_latency < 0) sm.Required("additionalLatency").Fail("must not be negative");
    sm.Finish();
    r.seats = e;
  }
  m.Finish();  // first, so that a misspelt field ("resources") is named as unknown
  static const std::set<std::string> kVerbs = {"get",    "list",  "watch",  "create",
                                               "update", "patch", "delete", "deletecollection"};
  if (r.path.empty()) {
    if (r.resource.empty()) v.Fail("a request needs a resource or a non-resource path");
    if (!kVerbs.count(r.verb)) {
      m.Required("verb").Fail(
          "unknown verb \"" + r.verb +
          "\" (get, list, watch, create, update, patch, delete, deletecollection)");
    }
  } else {
    if (!r.resource.empty()) m.Required("path").Fail("give either a resource or a path, not both");
    if (r.path[0] != '/') m.Required("path").Fail("a non-resource path starts with /");
  }
  return r;
}

// Every rate becomes a wait of 1/rate seconds, converted to int64 nanoseconds and added to
// the clock: below one per 11 days (1e-6 per second) the wait, or a random one drawn
// around it, could overflow, and a rate that small is surely a typo for something else.
void CheckRateNotTiny(const YamlValue& v, double rate) {
  if (rate > 0 && rate < 1e-6) {
    v.Fail(
        "a rate below 1e-6 per second (one in 11 days) is surely a typo; the wait between "
        "two calls would overflow the clock");
  }
}

// The most `dumps` instants a scenario may ask for (see ReadScenarioDocuments).
constexpr std::size_t kMaxDumpInstants = 1000;

// The most calls a sweep issues per period (see ReadTraffic).
constexpr std::int64_t kMaxSweepCount = 1'000'000;

double PositiveRate(YamlMap& m, const char* key) {
  YamlValue v = m.Required(key);
  const double rate = v.Number();
  if (!(rate > 0)) v.Fail("must be a positive number of calls per second");
  if (rate > 1e7) v.Fail("a rate above 10 million per second is surely a typo");
  CheckRateNotTiny(v, rate);
  return rate;
}

TrafficSpec ReadTraffic(const YamlValue& v, const Scenario& scenario) {
  TrafficSpec t;
  t.where = v.where();
  YamlMap outer = v.Map();
  const std::vector<std::string> keys = outer.Keys();
  if (keys.size() != 1) {
    v.Fail(
        "a traffic item has exactly one of poisson, constant, sweep, closedLoop, informer, "
        "watch, trace");
  }
  const std::string kind = keys[0];
  YamlValue body = outer.Required(kind);
  outer.Finish();
  YamlMap m = body.Map();
  t.start = m.DurationOr("start", 0);
  t.stop = m.DurationOr("stop", apf::kNever);
  if (t.start < 0) m.Required("start").Fail("must not be negative");
  if (m.Has("stop") && t.stop <= t.start) {
    m.Required("stop").Fail(FormatDuration(t.stop) + " is not after start (" +
                            FormatDuration(t.start) + "): this traffic would never send a call");
  }
  auto one_request = [&] { t.calls.push_back(ReadRequest(m.Required("request"))); };
  if (kind == "poisson" || kind == "constant") {
    t.kind = kind == "poisson" ? TrafficSpec::Kind::kPoisson : TrafficSpec::Kind::kConstant;
    t.rate = PositiveRate(m, "rate");
    one_request();
  } else if (kind == "sweep") {
    t.kind = TrafficSpec::Kind::kSweep;
    t.every = m.Required("every").Duration();
    if (t.every <= 0) m.Required("every").Fail("must be positive");
    t.within = m.DurationOr("within", 0);
    if (t.within < 0 || t.within > t.every)
      m.Required("within").Fail("must be between 0 and `every`");
    t.count = m.Int64Or("count", 0);
    if (t.count < 0 || t.count > kMaxSweepCount) {
      // A period's calls are all pending at once, about 900 bytes each (run_budget.h).
      m.Required("count").Fail("must be between 0 and " + std::to_string(kMaxSweepCount) +
                               ": a sweep's calls of one period are all pending at once, and "
                               "a million of them already take close to a gigabyte");
    }
    one_request();
    if (t.count == 0 && t.calls[0].namespace_choice != RequestTemplate::NamespaceChoice::kEach) {
      body.Fail("a sweep needs `count`, or a request with namespace \"{each}\"");
    }
  } else if (kind == "closedLoop") {
    t.kind = TrafficSpec::Kind::kClosedLoop;
    YamlValue w = m.Required("workers");
    const std::int64_t workers = w.Int64();
    if (workers < 1 || workers > 100000) w.Fail("must be between 1 and 100000");
    t.workers = static_cast<int>(workers);
    // A think of 0 is a controller whose workers take the next key at once; its calls
    // still take time (a call answered at once, with no retry left, loops at one instant
    // until --max-events stops the run).
    t.think = ReadDistribution(m.Required("think"));
    if (t.think.value < 0) m.Required("think").Fail("must not be negative");
    YamlValue calls = m.Required("calls");
    for (const YamlValue& c : calls.Items()) t.calls.push_back(ReadRequest(c));
    if (t.calls.empty()) calls.Fail("needs at least one call");
  } else if (kind == "informer") {
    t.kind = TrafficSpec::Kind::kInformer;
    RequestTemplate list;
    list.where = body.where();
    list.verb = "list";
    list.api_group = m.StringOr("apiGroup", "");
    list.resource = m.Required("resource").String();
    list.namespace_ = m.StringOr("namespace", "");
    t.page_size = m.Int64Or("pageSize", 500);
    if (t.page_size < 0) m.Required("pageSize").Fail("must not be negative");
    list.query =
        "resourceVersion=0" + (t.page_size > 0 ? "&limit=" + std::to_string(t.page_size) : "");
    RequestTemplate watch = list;
    watch.verb = "watch";
    watch.query =
        "allowWatchBookmarks=true&resourceVersion=1";  // timeoutSeconds: per watch, in the world
    t.calls = {list, watch};
  } else if (kind == "watch") {
    t.kind = TrafficSpec::Kind::kWatch;
    one_request();
    if (t.calls[0].verb != "watch")
      m.Required("request").Fail("a watch pattern's request has verb watch");
  } else if (kind == "trace") {
    t.kind = TrafficSpec::Kind::kTrace;
    YamlValue file = m.Required("file");
    const fs::path name = file.String();
    const fs::path full = name.is_absolute() ? name : fs::path(scenario.file).parent_path() / name;
    if (!fs::exists(full)) file.Fail("no such file: " + full.string());
    if (fs::is_directory(full)) {
      file.Fail(full.lexically_normal().string() + " is a directory, not a file");
    }
    t.trace_file = full.lexically_normal().string();
    CsvTraceReader check(t.trace_file, "", 0);  // a bad header fails at load time
  } else {
    YamlValue(outer.value().node()[kind], body.source(), outer.value().ChildPath(kind))
        .Fail("unknown traffic pattern \"" + kind +
              "\" (poisson, constant, sweep, closedLoop, informer, watch, trace)");
  }
  m.Finish();
  return t;
}

void ReadClientGo(const YamlValue& v, ClientGoSpec* client_go) {
  YamlMap g = v.Map();
  if (auto qps = g.Optional("qps")) {
    client_go->qps = qps->Number();
    CheckRateNotTiny(*qps, client_go->qps);
    // Far beyond any apiserver's capacity: a typo (and client-go's float32 QPS turns a
    // value past 3.4e38 into infinity).
    if (client_go->qps > 1e9) qps->Fail("must be at most 1e9 (or negative: no rate limiter)");
  }
  client_go->burst = static_cast<int>(g.Int64Or("burst", client_go->burst));
  if (client_go->burst < 0) g.Required("burst").Fail("must not be negative");
  client_go->max_retries = static_cast<int>(g.Int64Or("maxRetries", client_go->max_retries));
  if (client_go->max_retries < 0) g.Required("maxRetries").Fail("must not be negative");
  client_go->timeout = g.DurationOr("timeout", 0);
  if (client_go->timeout < 0) g.Required("timeout").Fail("must not be negative");
  g.Finish();
}

ClientSpec ReadClient(const YamlValue& v, const Scenario& scenario) {
  ClientSpec c;
  c.where = v.where();
  YamlMap m = v.Map();
  c.name = m.Required("name").String();
  if (c.name.empty()) m.Required("name").Fail("must not be empty");
  if (std::string why = InvisibleCharacterIn(c.name); !why.empty()) m.Required("name").Fail(why);
  int identities = 0;
  if (auto u = m.Optional("user")) {
    ++identities;
    apf::UserInfo user =
        apf::AuthenticatedUser(u->String(), m.Has("groups") ? m.Required("groups").StringList()
                                                            : std::vector<std::string>{});
    c.user = user.name;
    c.groups = user.groups;
  } else if (m.Has("groups")) {
    m.Required("groups").Fail("groups go with `user`");
  }
  if (auto sa = m.Optional("serviceAccount")) {
    ++identities;
    std::string error;
    std::optional<apf::UserInfo> user = apf::ParseServiceAccount(sa->String(), &error);
    if (!user) sa->Fail(error.empty() ? "expected NAMESPACE/NAME" : error);
    c.user = user->name;
    c.groups = user->groups;
  }
  if (m.BoolOr("anonymous", false)) {
    ++identities;
    apf::UserInfo user = apf::AnonymousUser();
    c.user = user.name;
    c.groups = user.groups;
  }
  if (identities != 1)
    v.Fail("a client needs exactly one of user, serviceAccount, anonymous: true");
  if (auto p = m.Optional("processes")) {
    const std::int64_t n = p->Int64();
    if (n < 1 || n > 100000) p->Fail("must be between 1 and 100000");
    c.processes = static_cast<int>(n);
  }
  if (auto r = m.Optional("replica")) {
    const std::int64_t n = r->Int64();
    if (n < 0 || n >= scenario.apiservers.replicas) {
      r->Fail("must name an apiserver replica, 0 to " +
              std::to_string(scenario.apiservers.replicas - 1));
    }
    c.replica = static_cast<int>(n);
  }
  if (auto via = m.Optional("via")) {
    if (via->String() != "gateway")
      via->Fail("the only intermediary is \"gateway\" (spec.gateway)");
    if (!scenario.gateway.enabled) via->Fail("the scenario has no spec.gateway");
    c.via_gateway = true;
  }
  if (auto cg = m.Optional("clientGo")) ReadClientGo(*cg, &c.client_go);
  YamlValue traffic = m.Required("traffic");
  for (const YamlValue& t : traffic.Items()) c.traffic.push_back(ReadTraffic(t, scenario));
  if (c.traffic.empty()) traffic.Fail("needs at least one traffic pattern");
  m.Finish();
  return c;
}

ResourceSpec ReadResource(const YamlValue& v) {
  ResourceSpec r;
  YamlMap m = v.Map();
  r.api_group = m.StringOr("apiGroup", "");
  r.resource = m.Required("resource").String();
  r.objects = m.Int64Or("objects", 0);
  if (r.objects < 0) m.Required("objects").Fail("must not be negative");
  r.average_bytes = m.Int64Or("averageBytes", r.average_bytes);
  if (r.average_bytes < 0) m.Required("averageBytes").Fail("must not be negative");
  r.namespaces = static_cast<int>(m.Int64Or("namespaces", 0));
  if (r.namespaces < 0 || r.namespaces > 1000000) {
    m.Required("namespaces").Fail("must be between 0 and 1000000");
  }
  r.namespace_prefix = m.StringOr("namespacePrefix", r.namespace_prefix);
  if (auto names = m.Optional("namespaceNames")) {
    r.namespace_names = names->StringList();
    if (r.namespaces != 0 && r.namespaces != static_cast<int>(r.namespace_names.size())) {
      names->Fail("give either namespaces or namespaceNames");
    }
    r.namespaces = static_cast<int>(r.namespace_names.size());
  } else {
    for (int i = 0; i < r.namespaces; ++i) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04d", i);
      r.namespace_names.push_back(r.namespace_prefix + buf);
    }
  }
  m.Finish();
  return r;
}

void ReadApiservers(const YamlValue& v, ApiserverSpec* a) {
  YamlMap m = v.Map();
  if (auto r = m.Optional("replicas")) {
    const std::int64_t n = r->Int64();
    if (n < 1 || n > 1000) r->Fail("must be between 1 and 1000");
    a->replicas = static_cast<int>(n);
  }
  a->kubernetes_version = m.StringOr("kubernetesVersion", a->kubernetes_version);
  auto limit = [&](const char* key, int* out) {
    if (auto x = m.Optional(key)) {
      const std::int64_t n = x->Int64();
      if (n < 0 || n > 10000000) x->Fail("must be between 0 and 10000000");
      *out = static_cast<int>(n);
    }
  };
  limit("maxRequestsInflight", &a->max_requests_inflight);
  limit("maxMutatingRequestsInflight", &a->max_mutating_requests_inflight);
  a->request_timeout = m.DurationOr("requestTimeout", a->request_timeout);
  if (a->request_timeout <= 0) m.Required("requestTimeout").Fail("must be positive");
  a->min_request_timeout = m.DurationOr("minRequestTimeout", a->min_request_timeout);
  if (a->min_request_timeout <= 0) m.Required("minRequestTimeout").Fail("must be positive");
  a->enable_priority_and_fairness = m.BoolOr("enablePriorityAndFairness", true);
  if (a->enable_priority_and_fairness &&
      a->max_requests_inflight + a->max_mutating_requests_inflight <= 0) {
    v.Fail("with priority and fairness on, the two in-flight limits must add up to more than 0");
  }
  if (auto gates = m.Optional("featureGates")) {
    YamlMap g = gates->Map();
    for (std::string_view gate : kKnownFeatureGates) {
      if (g.Has(gate)) a->feature_gates[std::string(gate)] = g.Required(gate).Bool();
    }
    g.Finish();
  }
  a->consistent_list_from_cache = m.BoolOr("consistentListFromCache", true);
  a->load_balancing = m.StringOr("loadBalancing", a->load_balancing);
  if (a->load_balancing != "sticky" && a->load_balancing != "round-robin" &&
      a->load_balancing != "random" && a->load_balancing != "least-requests") {
    m.Required("loadBalancing").Fail("must be sticky, round-robin, random or least-requests");
  }
  if (auto b = m.Optional("backend")) {
    YamlMap bm = b->Map();
    a->backend_cores = bm.NumberOr("cores", 0);
    if (a->backend_cores < 0) bm.Required("cores").Fail("must not be negative");
    bm.Finish();
  }
  if (auto rules = m.Optional("serviceTime")) {
    for (const YamlValue& rv : rules->Items()) {
      YamlMap rm = rv.Map();
      ServiceTimeRule rule;
      if (auto match = rm.Optional("match")) {
        YamlMap mm = match->Map();
        if (mm.Has("verbs")) rule.verbs = mm.Required("verbs").StringList();
        if (mm.Has("resources")) rule.resources = mm.Required("resources").StringList();
        const std::string source = mm.StringOr("source", "any");
        if (source == "cache") {
          rule.source = ServiceTimeRule::Source::kCache;
        } else if (source == "etcd") {
          rule.source = ServiceTimeRule::Source::kEtcd;
        } else if (source != "any") {
          mm.Required("source").Fail("must be cache, etcd or any");
        }
        mm.Finish();
      }
      rule.time = ReadDistribution(rm.Required("time"));
      rule.per_object = rm.DurationOr("perObject", 0);
      rule.per_kib = rm.DurationOr("perKiB", 0);
      if (rule.per_object < 0) rm.Required("perObject").Fail("must not be negative");
      if (rule.per_kib < 0) rm.Required("perKiB").Fail("must not be negative");
      rm.Finish();
      a->service_time.push_back(rule);
    }
  }
  if (auto erl = m.Optional("eventRateLimit")) {
    YamlMap em = erl->Map();
    YamlValue limits = em.Required("limits");
    for (const YamlValue& lv : limits.Items()) {
      YamlMap lm = lv.Map();
      EventRateLimitSpec l;
      l.type = lm.Required("type").String();
      if (l.type != "Server" && l.type != "Namespace" && l.type != "User" &&
          l.type != "SourceAndObject") {
        lm.Required("type").Fail("must be Server, Namespace, User or SourceAndObject");
      }
      l.qps = lm.Required("qps").Number();
      if (!(l.qps > 0)) lm.Required("qps").Fail("must be positive");
      CheckRateNotTiny(lm.Required("qps"), l.qps);
      l.burst = lm.Required("burst").Int64();
      if (l.burst <= 0) lm.Required("burst").Fail("must be positive");
      l.cache_size = lm.Int64Or("cacheSize", l.cache_size);
      if (l.cache_size < 0) lm.Required("cacheSize").Fail("must not be negative");
      lm.Finish();
      a->event_rate_limits.push_back(l);
    }
    if (a->event_rate_limits.empty()) limits.Fail("needs at least one limit");
    em.Finish();
  }
  m.Finish();
}

// spec.resourcesFromMetrics: the object counts of a /metrics scrape, under the explicit
// spec.resources entries (which win).
void ReadResourcesFromMetrics(const YamlValue& v, Scenario* s) {
  const fs::path name = v.String();
  const fs::path full = name.is_absolute() ? name : fs::path(s->file).parent_path() / name;
  if (!fs::exists(full)) v.Fail("no such file: " + full.string());
  if (fs::is_directory(full)) {
    v.Fail(full.lexically_normal().string() + " is a directory, not a file");
  }
  s->resources_from_metrics = full.lexically_normal().string();
  for (ResourceSpec& r :
       ResourcesFromMetricsFile(s->resources_from_metrics, &s->resources_skipped_from_metrics)) {
    const bool listed =
        std::any_of(s->resources.begin(), s->resources.end(), [&](const ResourceSpec& e) {
          return e.resource == r.resource && e.api_group == r.api_group;
        });
    if (!listed) s->resources.push_back(std::move(r));
  }
}

// spec.auditLog: scans the log once and makes a client of each identity it replays, named
// by its user (with "~2", "~3" when one user comes with several sets of groups or the name
// is taken).
void ReadAuditLog(const YamlValue& v, Scenario* s, std::set<std::string>* names) {
  AuditLogSpec& a = s->audit_log;
  a.enabled = true;
  a.where = v.where();
  YamlMap m = v.Map();
  YamlValue file = m.Required("file");
  const fs::path name = file.String();
  const fs::path full = name.is_absolute() ? name : fs::path(s->file).parent_path() / name;
  if (!fs::exists(full)) file.Fail("no such file: " + full.string());
  if (fs::is_directory(full)) {
    file.Fail(full.lexically_normal().string() + " is a directory, not a file");
  }
  a.file = full.lexically_normal().string();
  auto time = [&](const char* key) -> std::optional<apf::Nanos> {
    auto t = m.Optional(key);
    if (!t) return std::nullopt;
    std::optional<apf::Nanos> at = ParseRfc3339(t->String());
    if (!at) t->Fail("expected an RFC 3339 time such as 2026-12-02T10:05:00Z");
    return at;
  };
  a.from = time("from");
  a.to = time("to");
  if (a.from && a.to && *a.to <= *a.from) m.Required("to").Fail("must be after `from`");
  a.speed = m.NumberOr("speed", 1);
  // Bounded both ways: a factor below 1e-6 stretches the log's arrivals past the int64
  // nanoseconds of virtual time (llround would overflow).
  if (!(a.speed >= 1e-6) || a.speed > 1e6) {
    m.Required("speed").Fail("must be a factor between 1e-6 and 1e6");
  }
  a.reorder_window = m.DurationOr("reorderWindow", a.reorder_window);
  if (a.reorder_window < 0) m.Required("reorderWindow").Fail("must not be negative");
  if (auto users = m.Optional("users")) {
    YamlMap um = users->Map();
    if (um.Has("include")) a.include_users = um.Required("include").StringList();
    if (um.Has("exclude")) a.exclude_users = um.Required("exclude").StringList();
    um.Finish();
  }
  ClientGoSpec client_go;
  if (auto cg = m.Optional("clientGo")) ReadClientGo(*cg, &client_go);
  m.Finish();

  const AuditLogScan scan = ScanAuditLog(a);
  if (scan.stats.events == 0) {
    // Skipped lines never stop a replay, but a log of which nothing is replayed is surely
    // the wrong file (or window): say what its lines were.
    std::string reasons;
    for (const auto& [reason, count] : scan.stats.skipped) {
      reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(count);
    }
    file.Fail("no audit event to replay in " + std::to_string(scan.stats.lines) + " lines of " +
              a.file + (reasons.empty() ? "" : " (skipped: " + reasons + ")"));
  }
  a.scan = scan.stats;
  a.origin = a.from ? *a.from : scan.first_received.value_or(0);
  for (const AuditIdentity& id : scan.identities) {
    ClientSpec c;
    c.name = id.user;
    for (int n = 2; names->count(c.name); ++n) c.name = id.user + "~" + std::to_string(n);
    names->insert(c.name);
    c.user = id.user;
    c.groups = id.groups;
    c.client_go = client_go;
    c.where = a.where;
    a.identity_clients.emplace_back(AuditIdentityKey(id), static_cast<int>(s->clients.size()));
    s->clients.push_back(std::move(c));
  }
}

// ---- spec.expect: the assertions `apfsim check` verifies (sim/report/expectations.h).

// One item: {path: P, OP: NUMBER, window: {from, to}, description: TEXT}, with exactly one
// of the comparison keys ==, !=, <, <=, >, >=.
Expectation ReadExpectation(const YamlValue& v, const Scenario& s) {
  YamlMap m = v.Map();
  YamlValue path = m.Required("path");
  const std::string path_text = path.String();
  std::optional<YamlValue> window = m.Optional("window");
  Expectation e;
  const std::string error = ParseExpectationPath(path_text, window.has_value(), &e);
  if (!error.empty()) path.Fail(error);
  e.path = path_text;
  e.where = v.where();
  if (e.section == "clients") {
    bool known = false;
    for (const ClientSpec& c : s.clients) known = known || c.name == e.subject;
    if (!known) {
      std::vector<std::string> names;
      for (const ClientSpec& c : s.clients) names.push_back(c.name);
      path.Fail("no client \"" + e.subject + "\" in spec.clients" + DidYouMean(e.subject, names));
    }
  }
  if (e.section == "gateway" && !s.gateway.enabled) path.Fail("this scenario has no spec.gateway");
  int ops = 0;
  for (const char* op : {"==", "!=", "<", "<=", ">", ">="}) {
    if (auto value = m.Optional(op)) {
      if (++ops > 1) value->Fail("an assertion has exactly one comparison");
      e.op = *ParseExpectationOp(op);
      e.value = value->Number();
      if (!std::isfinite(e.value)) value->Fail("must be a finite number");
    }
  }
  e.description = m.StringOr("description", "");
  if (auto seeds = m.Optional("seeds")) {
    const std::string mode = seeds->String();
    char* end = nullptr;
    const double percent = std::strtod(mode.c_str(), &end);
    const bool share = mode.size() > 1 && mode.back() == '%' &&
                       std::isdigit(static_cast<unsigned char>(mode[0])) &&
                       end == mode.c_str() + mode.size() - 1 && std::isfinite(percent);
    if (mode == "all") {
      e.seeds_mode = Expectation::SeedsMode::kEvery;
    } else if (mode == "mean") {
      e.seeds_mode = Expectation::SeedsMode::kMean;
    } else if (share && percent > 0 && percent <= 100) {
      e.seeds_mode = Expectation::SeedsMode::kShare;
      e.seeds_share = percent / 100;
    } else {
      seeds->Fail(share ? "a share of seeds is above 0% and at most 100%"
                        : "expected all (the default: every seed), mean (the mean over the "
                          "seeds) or a share of the seeds such as \"95%\"");
    }
  }
  if (window) {
    YamlMap w = window->Map();
    e.windowed = true;
    e.window_from = w.DurationOr("from", 0);
    if (e.window_from < 0 || e.window_from >= s.duration) {
      w.Required("from").Fail("must be within the run's duration");
    }
    if (auto to = w.Optional("to")) {
      e.window_to = to->Duration();
      if (e.window_to <= e.window_from || e.window_to > s.duration) {
        to->Fail("must be after `from` and not after the run's duration");
      }
    }
    w.Finish();
  }
  m.Finish();  // first, so that a misspelt comparison ("=<") is named as unknown
  if (ops == 0) v.Fail("needs one comparison: ==, !=, <, <=, > or >= with a number");
  return e;
}

}  // namespace

Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides) {
  return ReadScenarioDocuments(LoadYamlFile(path), InputSourceName(path), overrides);
}

Scenario ParseScenarioText(std::string_view text, const std::string& path,
                           const std::vector<std::string>& overrides) {
  return ReadScenarioDocuments(ParseYamlDocuments(text, path), path, overrides);
}

Scenario ReadScenarioDocuments(std::vector<YAML::Node> docs, const std::string& path,
                               const std::vector<std::string>& overrides) {
  if (docs.size() != 1) {
    throw InputError({path, docs.empty() ? 0 : 1, 0}, "",
                     docs.empty()
                         ? "the file is empty: expected one Scenario"
                         : "expected one Scenario document, found " + std::to_string(docs.size()));
  }
  Scenario s;
  s.file = path;
  YamlValue root(docs[0], path, "");
  if (!root.IsMap())
    root.Fail("expected a Scenario (a mapping with apiVersion, kind, metadata, spec)");
  if (docs[0]["spec"] && docs[0]["spec"].IsMap()) {
    for (const std::string& o : overrides) ApplyOverride(docs[0]["spec"], o, &s);
  } else if (!overrides.empty()) {
    root.Fail("--set needs a `spec` mapping");
  }
  YamlMap top = root.Map();
  YamlValue api_version = top.Required("apiVersion");
  if (api_version.String() != "apfsim/v1alpha1") api_version.Fail("must be apfsim/v1alpha1");
  YamlValue kind = top.Required("kind");
  if (kind.String() != "Scenario") kind.Fail("must be Scenario");
  {
    YamlMap meta = top.Required("metadata").Map();
    YamlValue name = meta.Required("name");
    s.name = name.String();
    if (s.name.empty() || s.name.find_first_of("/\\ ") != std::string::npos || s.name == "." ||
        s.name == "..") {
      name.Fail("must be a plain name (it names the output folder)");
    }
    s.description = meta.StringOr("description", "");
    meta.Ignore({"labels", "annotations"});
    meta.Finish();
  }
  YamlMap spec = top.Required("spec").Map();
  top.Finish();

  YamlValue duration = spec.Required("duration");
  s.duration = duration.Duration();
  if (s.duration <= 0) duration.Fail("must be positive");
  if (auto seed = spec.Optional("seed")) s.seed = seed->Uint64();
  s.interval = spec.DurationOr("interval", apf::kSecond);
  if (s.interval < apf::kMillisecond) spec.Required("interval").Fail("must be at least 1ms");
  if (auto marks = spec.Optional("marks")) {
    for (const YamlValue& mv : marks->Items()) {
      YamlMap mm = mv.Map();
      Mark mark;
      mark.at = mm.Required("at").Duration();
      mark.where = mm.Required("at").where();
      // A mark after the end is only a warning (sim/workflows/run_inputs.cc): cutting a run
      // short with --set duration=2m must not make the scenario's later marks an error.
      if (mark.at < 0)
        mm.Required("at").Fail("must not be negative: a mark before the run marks nothing");
      mark.label = mm.StringOr("label", "");
      mm.Finish();
      s.marks.push_back(mark);
    }
  }
  if (auto dumps = spec.Optional("dumps")) {
    // Each instant's dumps (three files per replica, the requests one as long as the
    // queues) are held in memory until the run's outputs are written together.
    if (dumps->size() > kMaxDumpInstants) {
      dumps->Fail("at most " + std::to_string(kMaxDumpInstants) +
                  " instants (each one's dumps are held until the run ends), got " +
                  std::to_string(dumps->size()));
    }
    for (const YamlValue& dv : dumps->Items()) {
      const apf::Nanos at = dv.Duration();
      if (at < 0 || at >= s.duration) dv.Fail("must be within the run's duration");
      s.dumps.push_back(at);
    }
  }
  if (auto api = spec.Optional("apiservers")) ReadApiservers(*api, &s.apiservers);
  if (auto gw = spec.Optional("gateway")) {
    YamlMap g = gw->Map();
    GatewaySpec& gs = s.gateway;
    gs.enabled = true;
    gs.session_request_rate = g.NumberOr("sessionRequestRate", gs.session_request_rate);
    if (!(gs.session_request_rate > 0)) g.Required("sessionRequestRate").Fail("must be positive");
    if (g.Has("sessionRequestRate")) {
      CheckRateNotTiny(g.Required("sessionRequestRate"), gs.session_request_rate);
    }
    auto positive = [&](const char* key, int* out) {
      if (auto v = g.Optional(key)) {
        const std::int64_t n = v->Int64();
        if (n < 1 || n > 100000000) v->Fail("must be between 1 and 100000000");
        *out = static_cast<int>(n);
      }
    };
    positive("sessionRequestBurst", &gs.session_request_burst);
    positive("maxSessionConcurrentRequests", &gs.max_session_concurrent_requests);
    positive("maxConcurrentRequests", &gs.max_concurrent_requests);
    g.Finish();
  }
  if (auto fc = spec.Optional("flowControl")) {
    YamlMap fm = fc->Map();
    s.flow_control_defaults = fm.BoolOr("defaults", true);
    if (auto files = fm.Optional("files")) {
      const fs::path base = fs::path(path).parent_path();
      for (const YamlValue& f : files->Items()) {
        const std::string name = f.String();
        const fs::path full = fs::path(name).is_absolute() ? fs::path(name) : base / name;
        if (!fs::exists(full)) f.Fail("no such file: " + full.string());
        if (fs::is_directory(full)) {
          f.Fail(full.lexically_normal().string() + " is a directory, not a file");
        }
        s.flow_control_files.push_back(full.lexically_normal().string());
      }
    }
    if (auto objects = fm.Optional("objects")) {
      for (size_t i = 0; i < objects->size(); ++i) {
        const YamlValue o = (*objects)[i];
        s.flow_control_objects.push_back({o.node(), path, o.path()});
      }
    }
    fm.Finish();
  }
  if (auto resources = spec.Optional("resources")) {
    std::set<std::string> seen;
    for (const YamlValue& rv : resources->Items()) {
      ResourceSpec r = ReadResource(rv);
      const std::string key = r.resource + "." + r.api_group;
      if (!seen.insert(key).second) rv.Fail("resource " + key + " is listed twice");
      s.resources.push_back(std::move(r));
    }
  }
  if (auto metrics = spec.Optional("resourcesFromMetrics")) ReadResourcesFromMetrics(*metrics, &s);
  std::set<std::string> names;
  if (auto clients = spec.Optional("clients")) {
    for (const YamlValue& cv : clients->Items()) {
      ClientSpec c = ReadClient(cv, s);
      if (!names.insert(c.name).second) cv.Fail("client name \"" + c.name + "\" is used twice");
      s.clients.push_back(std::move(c));
    }
  }
  if (auto audit = spec.Optional("auditLog")) ReadAuditLog(*audit, &s, &names);
  if (auto expect = spec.Optional("expect")) {
    for (const YamlValue& ev : expect->Items()) s.expectations.push_back(ReadExpectation(ev, s));
  }
  spec.Finish();  // before the check below, so that a misspelt "clients" is named as such
  if (s.clients.empty()) {
    spec.value().Fail("needs at least one client (spec.clients, or identities from spec.auditLog)");
  }

  // Requests that draw a namespace from a resource need that resource to have some.
  for (const ClientSpec& c : s.clients) {
    for (const TrafficSpec& t : c.traffic) {
      for (const RequestTemplate& r : t.calls) {
        if (r.namespace_choice == RequestTemplate::NamespaceChoice::kFixed) continue;
        bool found = false;
        for (const ResourceSpec& res : s.resources) {
          found = found || (res.resource == r.resource && res.api_group == r.api_group &&
                            !res.namespace_names.empty());
        }
        if (!found) {
          throw InputError(r.where, "namespace",
                           "\"" + r.namespace_ + "\" needs a namespaced resource " + r.resource +
                               (r.api_group.empty() ? "" : "." + r.api_group) +
                               " in spec.resources");
        }
      }
    }
  }
  return s;
}

}  // namespace sim
