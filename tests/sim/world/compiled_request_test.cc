// A request's RequestInfo is the one requestinfo.go RequestInfoFactory.NewRequestInfo
// derives, whichever way the scenario spells the request (sim/world/compiled_request.h):
// a URL, a row of a `trace` CSV, a traffic entry of a client, an audit event. Then what the
// name changes downstream: the LIST work estimator's seats for a named list
// (list_work_estimator.go) and the watch count a write sees (watch_tracker.go
// GetInterestedWatchCount), each figure worked out by hand in its comment.
#include "sim/world/compiled_request.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "apf/classification/request_info.h"
#include "apf/estimation/watch_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/trace_replay.h"
#include "tests/support/test_support.h"

namespace {

// One request as a case spells it: the verb and the URL a client sends, and what an audit
// log records of it (objectRef.name is RequestInfo.Name, or a created object's name).
struct Spelling {
  std::string verb;  // the kube verb, as a trace row, a traffic entry and an audit event write it
  std::string method;
  std::string resource;
  std::string namespace_name;
  std::string path_name;  // the name in the URL path, "" for a collection
  std::string query;
  std::string audit_object_name;
};

std::string UrlPath(const Spelling& s) {
  std::string path = "/api/v1/namespaces/" + s.namespace_name + "/" + s.resource;
  if (!s.path_name.empty()) path += "/" + s.path_name;
  return path;
}

// Every field of the RequestInfo but `path`: the URL path, which a template of a resource
// request does not write (and which APF reads only for non-resource requests).
void CheckSameInfo(const apf::RequestInfo& url, const apf::RequestInfo& got) {
  CHECK(got.is_resource_request == url.is_resource_request);
  CHECK(got.verb == url.verb);
  CHECK(got.api_prefix == url.api_prefix);
  CHECK(got.api_group == url.api_group);
  CHECK(got.api_version == url.api_version);
  CHECK(got.namespace_name == url.namespace_name);
  CHECK(got.resource == url.resource);
  CHECK(got.subresource == url.subresource);
  CHECK(got.name == url.name);
  CHECK(got.query.field_selector == url.query.field_selector);
  CHECK(got.query.watch == url.query.watch);
  CHECK(got.query.limit == url.query.limit);
  CHECK(got.query.resource_version == url.query.resource_version);
  CHECK(got.query.list_options_error == url.query.list_options_error);
}

sim::CompiledRequest Compile(const sim::RequestTemplate& t, const sim::Scenario& s) {
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::CompiledRequest c;
  sim::CompileRequest(t, s, service_time, &c);
  return c;
}

// The request as a traffic entry of a scenario's client.
sim::RequestTemplate FromTrafficEntry(const Spelling& s, const std::string& dir) {
  const std::string text =
      "apiVersion: apfsim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
      "  duration: 10s\n  clients:\n  - name: c\n    user: alice\n    traffic:\n"
      "    - constant:\n        rate: 1\n        request: {verb: " +
      s.verb + ", resource: " + s.resource + ", namespace: " + s.namespace_name +
      (s.path_name.empty() ? "" : ", name: " + s.path_name) + ", query: \"" + s.query + "\"}\n";
  const sim::Scenario scenario = sim::ParseScenarioText(text, dir + "/s.yaml");
  return scenario.clients.at(0).traffic.at(0).calls.at(0);
}

// The request as the row of a trace.
sim::RequestTemplate FromTraceRow(const Spelling& s, const std::string& dir) {
  const std::string file = dir + "/trace.csv";
  std::ofstream(file) << "time,client,verb,apiGroup,resource,namespace,name,query,serviceTime\n"
                      << "0.5,c," << s.verb << ",," << s.resource << "," << s.namespace_name << ","
                      << s.path_name << ",\"" << s.query << "\",0.01\n";
  sim::CsvTraceReader reader(file, "c", 0);
  sim::ReplayRow row;
  REQUIRE(reader.Next(&row));
  REQUIRE(row.request_deferred);
  reader.FillRequest(&row);
  return row.request;
}

// The request as the audit event the log backend writes for it.
sim::RequestTemplate FromAuditEvent(const Spelling& s, const std::string& dir) {
  const std::string file = dir + "/audit.log";
  const std::string stage = s.verb == "watch" ? "ResponseStarted" : "ResponseComplete";
  std::ofstream(file)
      << R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":")" << stage
      << R"(","requestURI":")" << UrlPath(s) << (s.query.empty() ? "" : "?") << s.query
      << R"(","verb":")" << s.verb << R"(","user":{"username":"alice"},"objectRef":{"resource":")"
      << s.resource << R"(","namespace":")" << s.namespace_name << R"(","name":")"
      << s.audit_object_name << R"(","apiVersion":"v1"},"responseStatus":{"code":200},)"
      << R"("requestReceivedTimestamp":"2026-12-02T10:00:00Z",)"
      << R"("stageTimestamp":"2026-12-02T10:00:00.01Z"})"
      << "\n";
  sim::AuditLogSpec spec;
  spec.enabled = true;
  spec.file = file;
  const std::map<std::string, int> clients;
  sim::AuditLogReader reader(spec, 0, &clients);
  sim::ReplayRow row;
  REQUIRE(reader.Next(&row));
  return row.request;
}

}  // namespace

TEST_CASE(
    "a request spelled as a URL, a trace row, a traffic entry and an audit event compiles to "
    "the RequestInfo of requestinfo.go NewRequestInfo",
    "[compiled-request][requestinfo]") {
  // NewRequestInfo: a GET of a collection without a name is a list, or a watch when
  // ?watch is true; its name is X of a fieldSelector term metadata.name=X (or ==X) when
  // ListOptions decode and X is a valid path segment name. `!=` names nothing; of several
  // terms only metadata.name is read; a failed decode (limit=x) takes no name.
  struct Case {
    Spelling spelling;
    std::string verb, name;  // what NewRequestInfo gives
  };
  const std::vector<Case> cases = {
      {{"list", "GET", "configmaps", "shop", "", "fieldSelector=metadata.name%3Dsettings&limit=500",
        "settings"},
       "list",
       "settings"},
      {{"watch", "GET", "configmaps", "shop", "",
        "fieldSelector=metadata.name%3Dsettings&resourceVersion=100&watch=true", "settings"},
       "watch",
       "settings"},
      {{"list", "GET", "pods", "shop", "",
        "fieldSelector=status.phase%3DRunning%2Cmetadata.name%3D%3Dweb-1", "web-1"},
       "list",
       "web-1"},
      {{"list", "GET", "configmaps", "shop", "", "fieldSelector=metadata.name!%3Dsettings", ""},
       "list",
       ""},
      {{"list", "GET", "configmaps", "shop", "", "fieldSelector=metadata.name%3Dsettings&limit=x",
        ""},
       "list",
       ""},
      {{"watch", "GET", "pods", "shop", "", "fieldSelector=spec.nodeName%3Dnode-1&watch=true", ""},
       "watch",
       ""},
      // A create's audit event names the created object (audit.LogRequestObject), but
      // RequestInfo has no name: the POST went to the collection.
      {{"create", "POST", "configmaps", "shop", "", "", "new-cm"}, "create", ""},
      {{"update", "PUT", "configmaps", "shop", "settings", "", "settings"}, "update", "settings"},
  };
  test_support::ScratchDir dir("apfsim-compiled-request");
  const std::string d = dir.path().string();
  const sim::Scenario scenario;
  for (const Case& c : cases) {
    const Spelling& s = c.spelling;
    INFO(s.verb << " " << UrlPath(s) << "?" << s.query);
    const apf::RequestInfo url = apf::NewRequestInfo(s.method, UrlPath(s), s.query);
    CHECK(url.verb == c.verb);
    CHECK(url.name == c.name);
    CHECK(url.namespace_name == "shop");
    CHECK(url.resource == s.resource);
    CHECK(url.api_version == "v1");
    {
      INFO("trace row");
      CheckSameInfo(url, Compile(FromTraceRow(s, d), scenario).info);
    }
    {
      INFO("traffic entry");
      CheckSameInfo(url, Compile(FromTrafficEntry(s, d), scenario).info);
    }
    {
      INFO("audit event");
      CheckSameInfo(url, Compile(FromAuditEvent(s, d), scenario).info);
    }
  }
}

TEST_CASE(
    "a template's get or delete without a name is the factory's list, watch or deletecollection",
    "[compiled-request][requestinfo]") {
  // NewRequestInfo: GET of a collection is list (watch with ?watch=true), and DELETE of a
  // collection is deletecollection; a DELETE never takes its name from a selector.
  const sim::Scenario scenario;
  sim::RequestTemplate t;
  t.resource = "configmaps";
  t.namespace_ = "shop";
  t.verb = "get";
  t.query = "fieldSelector=metadata.name%3Dsettings";
  sim::CompiledRequest c = Compile(t, scenario);
  CHECK(c.info.verb == "list");
  CHECK(c.info.name == "settings");
  CHECK(c.is_list);
  t.query = "watch=1";
  c = Compile(t, scenario);
  CHECK(c.info.verb == "watch");
  CHECK(c.is_watch);
  CHECK(c.info.name.empty());
  t.verb = "delete";
  t.query = "fieldSelector=metadata.name%3Dsettings";
  c = Compile(t, scenario);
  CHECK(c.info.verb == "deletecollection");
  CHECK(c.info.name.empty());
  // A name in the template (the path's) wins over the selector, as in the factory, which
  // reads the selector only when the path names nothing.
  t.verb = "list";
  t.name = "other";
  CHECK(Compile(t, scenario).info.name == "other");
}

namespace {

struct FixedStats final : apf::ObjectStatsSource {
  apf::ObjectStatsResult result;
  apf::ObjectStatsResult GetStats(std::string_view, std::string_view, apf::Nanos) const override {
    return result;
  }
};

}  // namespace

TEST_CASE("a LIST named by metadata.name from a trace row is charged as one object",
          "[compiled-request][estimator]") {
  // list_work_estimator.go: with 5000 configmaps of 10,000 bytes, a LIST with
  // limit=500&resourceVersion=5 goes to etcd (ShouldDelegateExactRV). Size-based
  // (seatsBasedOnObjectSize): unnamed, a selector makes it max(500, 5000 / 2) = 2500
  // objects = 25,000,000 bytes = 250 seats, capped at maximumListSeats 100; named,
  // isListFromCache aside, matchesSingle makes it 1 object = 10,000 bytes = ceil(0.1) = 1
  // seat. Count-based (seatsBasedOnObjectCount): unnamed with a selector 5000 + 500 = 5500
  // objects / 100 = 55, capped at 10; named 1 / 100 rounds up to 1.
  test_support::ScratchDir dir("apfsim-named-list");
  const std::string d = dir.path().string();
  const sim::Scenario scenario;
  FixedStats stats;
  stats.result = {{5000, 10000}, apf::ObjectStatsError::kNone};
  apf::FixedWatchCount watches(0);
  auto seats = [&](const Spelling& s, bool size_based) {
    const sim::CompiledRequest c = Compile(FromTraceRow(s, d), scenario);
    apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(size_based, true, true), &stats,
                                 &watches);
    return estimator.Estimate(&c.info, 0, 0).initial_seats;
  };
  const Spelling named{
      "list", "GET", "configmaps",
      "shop", "",    "fieldSelector=metadata.name%3Dsettings&limit=500&resourceVersion=5",
      ""};
  const Spelling not_named{
      "list", "GET", "configmaps",
      "shop", "",    "fieldSelector=metadata.name!%3Dsettings&limit=500&resourceVersion=5",
      ""};
  CHECK(seats(named, true) == 1);
  CHECK(seats(not_named, true) == 100);
  CHECK(seats(named, false) == 1);
  CHECK(seats(not_named, false) == 10);
}

TEST_CASE("a named watch from a traffic entry is counted only for writes of its object",
          "[compiled-request][watch-tracker]") {
  // watch_tracker.go: RegisterWatch indexes a watch by (group, resource, namespace, name)
  // from its RequestInfo; GetInterestedWatchCount of a write adds the watches of the
  // resource, of its namespace (when set) and of its object (when named). Watches of
  // configmaps: 1 of all namespaces, 4 of namespace shop, 25 of shop/settings and 15 of
  // shop/other, the last two named by fieldSelector=metadata.name=X.
  //   update shop/settings: 1 + 4 + 25 = 30, finalSeats ceil(30 / 10) = 3
  //   update shop/other:    1 + 4 + 15 = 20, finalSeats 2
  //   create in shop:       1 + 4 = 5, under watchesPerSeat 10: finalSeats 0
  // Were the selector ignored (the 40 named watches counted as namespace-wide), every
  // write in shop would see 1 + 44 = 45 (finalSeats 5).
  test_support::ScratchDir dir("apfsim-named-watch");
  const std::string d = dir.path().string();
  const sim::Scenario scenario;
  apf::WatchTracker tracker;
  std::vector<apf::WatchTracker::Registration> registrations;
  auto open = [&](int n, const std::string& ns, const std::string& query) {
    const Spelling s{"watch", "GET", "configmaps", ns, "", query, ""};
    const sim::CompiledRequest c = Compile(FromTrafficEntry(s, d), scenario);
    for (int i = 0; i < n; ++i) registrations.push_back(tracker.RegisterWatch(c.info));
  };
  {  // the watch of all namespaces
    sim::RequestTemplate t;
    t.verb = "watch";
    t.resource = "configmaps";
    registrations.push_back(tracker.RegisterWatch(Compile(t, scenario).info));
  }
  open(4, "shop", "watch=true");
  open(25, "shop", "fieldSelector=metadata.name%3Dsettings&watch=true");
  open(15, "shop", "fieldSelector=metadata.name%3Dother&watch=true");
  CHECK(tracker.WatchCount("", "configmaps", "shop", "settings") == 25);
  CHECK(tracker.WatchCount("", "configmaps", "shop", "other") == 15);
  CHECK(tracker.WatchCount("", "configmaps", "shop", "") == 4);

  FixedStats stats;
  apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(true, true, true), &stats, &tracker);
  auto write = [&](const std::string& verb, const std::string& name) {
    sim::RequestTemplate t;
    t.verb = verb;
    t.resource = "configmaps";
    t.namespace_ = "shop";
    t.name = name;
    const sim::CompiledRequest c = Compile(t, scenario);
    return std::make_pair(tracker.InterestedWatchCount(c.info),
                          estimator.Estimate(&c.info, 0, 0).final_seats);
  };
  CHECK(write("update", "settings") == std::make_pair(std::int64_t{30}, std::uint64_t{3}));
  CHECK(write("update", "other") == std::make_pair(std::int64_t{20}, std::uint64_t{2}));
  CHECK(write("create", "") == std::make_pair(std::int64_t{5}, std::uint64_t{0}));
}
