#include "sim/scenario/client_reader.h"

#include <optional>

#include "apf/classification/user_info.h"
#include "sim/io/duration.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/spec_values.h"
#include "sim/scenario/trace_replay.h"

namespace sim {
namespace {

// The most calls a sweep issues per period (see ReadTraffic).
constexpr std::int64_t kMaxSweepCount = 1'000'000;

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
    t.trace_file = ResolveScenarioFile(file, scenario.file);
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

}  // namespace

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
  }
  const bool stray_groups = !m.Has("user") && m.Has("groups");
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
  if (auto gw = m.Optional("gateway")) {
    // How each of its sessions meets the gateway (doc/gateway.md).
    if (!c.via_gateway) gw->Fail("needs via: gateway");
    YamlMap g = gw->Map();
    if (auto w = g.Optional("watches")) {
      const std::string kind = w->String();
      if (kind != "native" && kind != "stream") {
        w->Fail("must be native (watches through /k8s) or stream (streams on /stream/v1)");
      }
      c.gateway_streams = kind == "stream";
    }
    auto at = [&](const char* key, apf::Nanos* out, bool positive) {
      if (auto v = g.Optional(key)) {
        const apf::Nanos d = v->Duration();
        if (d < 0 || (positive && d == 0))
          v->Fail(positive ? "must be positive" : "must not be negative");
        *out = d;
      }
    };
    at("sessionLifetime", &c.session_lifetime, true);
    at("logoutAt", &c.session_logout_at, false);
    at("checksHangFrom", &c.session_checks_hang_from, false);
    at("stopsReadingAt", &c.session_stops_reading_at, false);
    g.Finish();
  }
  if (auto cg = m.Optional("clientGo")) ReadClientGo(*cg, &c.client_go);
  std::optional<YamlValue> traffic = m.Optional("traffic");
  if (traffic) {
    for (const YamlValue& t : traffic->Items()) c.traffic.push_back(ReadTraffic(t, scenario));
  }
  // Unknown fields before what the client lacks: a misspelt `serviceAcount` is named as an
  // unknown field (with its did-you-mean), not as a client without an identity.
  m.Finish();
  if (stray_groups) m.Required("groups").Fail("groups go with `user`");
  if (identities != 1)
    v.Fail("a client needs exactly one of user, serviceAccount, anonymous: true");
  if (!traffic) m.Required("traffic");  // fails: a client needs traffic
  if (c.traffic.empty()) traffic->Fail("needs at least one traffic pattern");
  return c;
}

void ReadAuditLog(const YamlValue& v, Scenario* s, std::set<std::string>* names) {
  AuditLogSpec& a = s->audit_log;
  a.enabled = true;
  a.where = v.where();
  YamlMap m = v.Map();
  YamlValue file = m.Required("file");
  a.file = ResolveScenarioFile(file, s->file);
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

}  // namespace sim
