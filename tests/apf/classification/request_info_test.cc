// Request facts as kube-apiserver derives them: query parsing with Go's url.ParseQuery
// and metav1's conversions, RequestInfoFactory's path rules (doc/model.md#request-info), and field
// selector exact matches (k8s.io/apimachinery fields.ParseSelector).
#include "apf/classification/request_info.h"

#include <catch2/catch.hpp>

TEST_CASE("Query parsing follows url.ParseQuery and the ListOptions conversion", "[requestinfo]") {
  auto q = apf::ParseRequestQuery(
      "limit=500&resourceVersion=0&limit=7&labelSelector=app%3Dweb+tier&continue=a%2Bb");
  CHECK(q.limit == 500);  // the first value wins
  CHECK(q.resource_version == "0");
  CHECK(q.label_selector == "app=web tier");  // '+' is a space, %3D is '='
  CHECK(q.continue_token == "a+b");
  CHECK_FALSE(q.list_options_error);
  // A pair with ';' or a bad escape is dropped; the next pair of that key is used.
  auto dropped = apf::ParseRequestQuery("limit=1;x&fieldSelector=%zz&fieldSelector=a%3Db&&limit=3");
  CHECK(dropped.limit == 3);
  CHECK(dropped.field_selector == "a=b");
}

TEST_CASE("Boolean parameters are false only for 0 and false", "[requestinfo]") {
  CHECK(apf::ParseRequestQuery("watch=true").watch);
  CHECK(apf::ParseRequestQuery("watch=1").watch);
  CHECK(apf::ParseRequestQuery("watch").watch);  // no value is "" which is true
  CHECK(apf::ParseRequestQuery("watch=yes").watch);
  CHECK_FALSE(apf::ParseRequestQuery("watch=0").watch);
  CHECK_FALSE(apf::ParseRequestQuery("watch=FALSE").watch);
  CHECK_FALSE(apf::ParseRequestQuery("").send_initial_events.has_value());
  CHECK(*apf::ParseRequestQuery("sendInitialEvents=true").send_initial_events);
  CHECK_FALSE(*apf::ParseRequestQuery("sendInitialEvents=false").send_initial_events);
  CHECK(apf::ParseRequestQuery("allowWatchBookmarks=true").allow_watch_bookmarks);
  CHECK(apf::ParseRequestQuery("dryRun=All").dry_run);
}

TEST_CASE("limit and timeoutSeconds must be base-10 int64s", "[requestinfo]") {
  CHECK(apf::ParseRequestQuery("limit=-5").limit == -5);
  CHECK(apf::ParseRequestQuery("limit=%2B5").limit == 5);
  CHECK(apf::ParseRequestQuery("limit=+5").list_options_error);  // '+' is a space
  CHECK(apf::ParseRequestQuery("limit=9223372036854775807").limit == INT64_MAX);
  for (const char* bad : {"limit=", "limit=1e3", "limit=0x10", "limit=1_000", "limit= 5",
                          "limit=9223372036854775808", "timeoutSeconds=abc"}) {
    INFO(bad);
    CHECK(apf::ParseRequestQuery(bad).list_options_error);
  }
  CHECK(*apf::ParseRequestQuery("timeoutSeconds=300").timeout_seconds == 300);
  CHECK(apf::ParseRequestQuery("timeout=10s").timeout == "10s");
}

TEST_CASE("RequestInfo from method and path", "[requestinfo]") {
  auto list = apf::NewRequestInfo("GET", "/api/v1/namespaces/ns1/pods", "limit=500");
  CHECK(list.is_resource_request);
  CHECK(list.verb == "list");
  CHECK(list.api_group == "");
  CHECK(list.api_version == "v1");
  CHECK(list.namespace_name == "ns1");
  CHECK(list.resource == "pods");
  CHECK(list.name == "");
  CHECK(list.query.limit == 500);

  auto watch = apf::NewRequestInfo("GET", "/apis/apps/v1/deployments", "watch=1");
  CHECK(watch.verb == "watch");
  CHECK(watch.api_group == "apps");
  CHECK(watch.namespace_name == "");  // an all-namespaces list has no namespace

  auto prefixed = apf::NewRequestInfo("GET", "/api/v1/watch/namespaces/a/pods/p1", "");
  CHECK(prefixed.verb == "watch");
  CHECK(prefixed.name == "p1");

  auto log = apf::NewRequestInfo("GET", "/api/v1/namespaces/a/pods/p1/log", "follow=true");
  CHECK(log.verb == "get");
  CHECK(log.resource == "pods");
  CHECK(log.subresource == "log");

  auto create = apf::NewRequestInfo("POST", "/api/v1/namespaces/a/events", "");
  CHECK(create.verb == "create");
  CHECK(create.name == "");
  CHECK(apf::NewRequestInfo("PUT", "/api/v1/namespaces/a/pods/p/status", "").verb == "update");
  CHECK(apf::NewRequestInfo("PATCH", "/api/v1/nodes/n1", "").verb == "patch");
  CHECK(apf::NewRequestInfo("DELETE", "/api/v1/namespaces/a/pods/p", "").verb == "delete");
  CHECK(apf::NewRequestInfo("DELETE", "/api/v1/namespaces/a/pods", "").verb == "deletecollection");

  // The Namespace object: its namespace is its own name, with /status and /finalize too.
  auto ns = apf::NewRequestInfo("PUT", "/api/v1/namespaces/foo/finalize", "");
  CHECK(ns.namespace_name == "foo");
  CHECK(ns.resource == "namespaces");
  CHECK(ns.name == "foo");
  CHECK(ns.subresource == "finalize");

  // proxy never has a subresource.
  auto proxy = apf::NewRequestInfo("GET", "/api/v1/proxy/namespaces/a/services/s/x/y", "");
  CHECK(proxy.verb == "proxy");
  CHECK(proxy.resource == "services");
  CHECK(proxy.name == "s");
  CHECK(proxy.subresource == "");

  auto health = apf::NewRequestInfo("GET", "/readyz", "");
  CHECK_FALSE(health.is_resource_request);
  CHECK(health.verb == "get");
  CHECK(health.path == "/readyz");
  CHECK_FALSE(apf::NewRequestInfo("GET", "/apis/apps", "").is_resource_request);
}

TEST_CASE("A metadata.name field selector names the object of a list or watch", "[requestinfo]") {
  auto named = apf::NewRequestInfo("GET", "/api/v1/namespaces/a/configmaps",
                                   "fieldSelector=metadata.name%3Dbig-1&limit=500");
  CHECK(named.verb == "list");
  CHECK(named.name == "big-1");
  // Not a valid path segment, or options that do not decode: no name.
  CHECK(apf::NewRequestInfo("GET", "/api/v1/configmaps", "fieldSelector=metadata.name%3Da%2Fb")
            .name.empty());
  CHECK(apf::NewRequestInfo("GET", "/api/v1/configmaps", "fieldSelector=metadata.name%3D..")
            .name.empty());
  CHECK(
      apf::NewRequestInfo("GET", "/api/v1/configmaps", "fieldSelector=metadata.name%3Dx&limit=bad")
          .name.empty());
  CHECK(apf::NewRequestInfo("GET", "/api/v1/configmaps", "fieldSelector=metadata.name%21%3Dx")
            .name.empty());
}

TEST_CASE("Field selector exact matches", "[requestinfo]") {
  auto m = apf::FieldSelectorExactMatch("status.phase!=Done,spec.nodeName==n1", "spec.nodeName");
  CHECK(m.found);
  CHECK(m.value == "n1");
  // Terms are sorted before use: the first in byte order wins.
  CHECK(apf::FieldSelectorExactMatch("a=2,a=1", "a").value == "1");
  // Escapes in values, and an escaped comma does not split terms.
  CHECK(apf::FieldSelectorExactMatch("a=x\\,y\\=z\\\\", "a").value == "x,y=z\\");
  CHECK_FALSE(apf::FieldSelectorExactMatch("a!=1", "a").found);
  CHECK(apf::FieldSelectorExactMatch("", "a").parse_error == false);
  CHECK(apf::FieldSelectorExactMatch("a", "a").parse_error);       // no operator
  CHECK(apf::FieldSelectorExactMatch("a=b=c", "a").parse_error);   // unescaped '='
  CHECK(apf::FieldSelectorExactMatch("a=b\\q", "a").parse_error);  // bad escape
  CHECK(apf::FieldSelectorExactMatch("a=1,b", "a").parse_error);   // one bad term spoils all
}
