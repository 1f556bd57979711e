// The facts kube-apiserver derives from a request's method, path and query before any
// filter runs: k8s.io/apiserver pkg/endpoints/request/requestinfo.go RequestInfo (verb,
// group, version, resource, subresource, namespace, name), plus the query parameters the
// flow-control models read (metav1.ListOptions as the list work estimator converts it,
// and the `timeout` parameter that pkg/endpoints/filters/request_deadline.go reads).
//
// These are plain values built once per request (by the simulated world or by parsing a
// URL); the work estimator, the watch tracker, MaxInFlight and the deadline rules only
// read them. The classifier's RequestDigest is a separate type; the lead connects them.
#ifndef APF_CLASSIFICATION_REQUEST_INFO_H_
#define APF_CLASSIFICATION_REQUEST_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace apf {

// The query parameters of one request, as Go's url.Values.Get would read them (the first
// value of each key) and as metav1.Convert_url_Values_To_v1_ListOptions converts them.
struct RequestQuery {
  std::string label_selector;
  std::string field_selector;
  bool watch = false;
  bool allow_watch_bookmarks = false;
  std::string resource_version;
  std::string resource_version_match;           // "", "Exact", "NotOlderThan" or anything sent
  std::optional<std::int64_t> timeout_seconds;  // the watch lifetime parameter
  std::int64_t limit = 0;
  std::string continue_token;
  std::optional<bool> send_initial_events;
  // The raw `?timeout=` value (a Go duration such as "10s"), "" when absent. It is not a
  // ListOptions field; WithRequestDeadline parses it (see apf/filter/request_deadline.h).
  std::string timeout;
  // A `dryRun` parameter is present (validation accepts only "All"): admission plugins
  // such as EventRateLimit skip the request.
  bool dry_run = false;
  // True when Convert_url_Values_To_v1_ListOptions would fail: `limit` or
  // `timeoutSeconds` present but not a base-10 int64 (strconv.ParseInt), including an
  // empty value. The list estimator then charges the level's maximum (doc/model.md#list-estimate).
  bool list_options_error = false;
};

// Parses a raw query string ("limit=500&resourceVersion=0") with the rules of Go's
// url.ParseQuery as used by URL.Query(): pairs split on '&', pairs containing ';' or
// with a bad %-escape are dropped, '+' decodes to a space, and the first value of a
// repeated key wins.
RequestQuery ParseRequestQuery(std::string_view raw_query);

// requestinfo.go RequestInfo. `namespace_name` is RequestInfo.Namespace (a C++ keyword).
struct RequestInfo {
  bool is_resource_request = false;
  std::string path;  // the URL path
  std::string verb;  // create, get, list, watch, ... or a lowercase HTTP method for non-resource
  std::string api_prefix;  // "api" or "apis"
  std::string api_group;   // "" for the core group
  std::string api_version;
  std::string namespace_name;
  std::string resource;
  std::string subresource;
  std::string name;
  RequestQuery query;
};

// requestinfo.go RequestInfoFactory.NewRequestInfo with kube-apiserver's prefixes
// (APIPrefixes {api, apis}, GrouplessAPIPrefixes {api}). `method` is the HTTP method
// ("GET", "POST", ...), `path` the decoded URL path, `raw_query` the query string.
// The factory's one error (a /watch/ or /proxy/ prefix with nothing after it) is not
// reported; the info built so far is returned, as the real filter would then answer 500
// without reaching flow control.
RequestInfo NewRequestInfo(std::string_view method, std::string_view path,
                           std::string_view raw_query);

// The HTTP method a resource request of kube verb `verb` is sent with, NewRequestInfo's
// table read backwards: get, list and watch are "GET", create "POST", update "PUT", patch
// "PATCH", delete and deletecollection "DELETE"; any other verb is returned in upper case
// (a non-resource request's verb is its lowercase method).
std::string HttpMethodOfVerb(std::string_view verb);

// The name a collection GET (a LIST or WATCH) takes from its query in NewRequestInfo:
// X of a `fieldSelector` term `metadata.name=X` or `metadata.name==X` (fields.Selector
// RequiresExactMatch; `!=` never names, other fields are ignored, and of several
// metadata.name terms the first in sorted order wins), when the ListOptions decode
// (DecodeParameters into metainternalversion.ListOptions: `limit`, `timeoutSeconds` and the
// field selector itself must parse) and X is a valid path segment name (not "." or "..",
// no '/' or '%'); "" otherwise. A label selector that labels.Parse refuses also spoils the
// decode in Go; it is not checked here (apfsim does not parse label selectors).
std::string CollectionRequestName(const RequestQuery& query);

// NewRequestInfo's last step, for a request whose verb came from its HTTP method: a "get"
// without a name is a collection GET, "watch" when `?watch` is true and "list" otherwise,
// named by CollectionRequestName; a "delete" without a name is "deletecollection". Other
// verbs, and requests that already have a name, are left as they are. Every input path
// (URLs, traces, traffic specs, audit logs) ends with this, so all give the factory's info.
void ResolveCollectionVerb(RequestInfo* info);

// The result of asking a field selector whether it pins `field` to one value:
// fields.ParseSelector(selector).RequiresExactMatch(field) from k8s.io/apimachinery.
struct FieldSelectorMatch {
  bool parse_error = false;  // the selector does not parse; nothing is required
  bool found = false;        // a term `field=value` or `field==value` exists
  std::string value;         // its unescaped value (the first such term in sorted order)
};
FieldSelectorMatch FieldSelectorExactMatch(std::string_view selector, std::string_view field);

}  // namespace apf

#endif  // APF_CLASSIFICATION_REQUEST_INFO_H_
