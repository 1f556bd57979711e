#include "apf/watch_tracker.h"

#include <cassert>

namespace apf {
namespace {

// getBuiltinIndexes: the watch cache indexes pods by spec.nodeName (keyed by resource
// name only, whatever the group). getIndexValue reads the watch's field selector; when
// the options do not decode, or nothing pins the field, the value is "<unset>". A watch
// is counted when the value is unset or "" (updateIndexLocked).
bool CountedUnderIndex(const RequestInfo& watch) {
  if (watch.resource != "pods") return true;
  if (watch.query.list_options_error) return true;  // DecodeParameters failed: unset
  FieldSelectorMatch node = FieldSelectorExactMatch(watch.query.field_selector, "spec.nodeName");
  if (node.parse_error || !node.found) return true;
  return node.value.empty();
}

}  // namespace

WatchTracker::Registration WatchTracker::RegisterWatch(const RequestInfo& watch) {
  Registration registration;
  if (watch.verb != "watch") return registration;
  registration.registered_ = true;
  registration.counted_ = CountedUnderIndex(watch);
  if (!registration.counted_) return registration;
  KeyView key{watch.api_group, watch.resource, watch.namespace_name, watch.name};
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    it = counts_.emplace(Key{watch.api_group, watch.resource, watch.namespace_name, watch.name}, 0)
             .first;
  }
  ++it->second;
  registration.entry_ = it;
  return registration;
}

void WatchTracker::ForgetWatch(Registration& registration) {
  if (!registration.registered_) return;
  registration.registered_ = false;
  if (!registration.counted_) return;
  assert(registration.entry_->second > 0);
  if (--registration.entry_->second == 0) counts_.erase(registration.entry_);
}

int WatchTracker::WatchCount(std::string_view api_group, std::string_view resource,
                             std::string_view namespace_name, std::string_view name) const {
  auto it = counts_.find(KeyView{api_group, resource, namespace_name, name});
  return it == counts_.end() ? 0 : it->second;
}

std::int64_t WatchTracker::InterestedWatchCount(const RequestInfo& request) const {
  const std::string_view verb = request.verb;  // length tests and inline compares
  if (verb == "get" || verb == "list" || verb == "watch" || verb == "proxy") return 0;
  // Keys are ordered by resource first, and the three keys below are at or after this
  // one: when the next key is another resource's, none of them has a watch. Most writes
  // are to resources nobody watches, and this is one lookup instead of three.
  const auto next = counts_.lower_bound(KeyView{request.api_group, request.resource, "", ""});
  if (next == counts_.end() || next->first.resource != request.resource) return 0;
  // The lower bound is the (group, resource) key itself when that has watches.
  const Key& first = next->first;
  std::int64_t result =
      first.namespace_name.empty() && first.name.empty() && first.api_group == request.api_group
          ? next->second
          : 0;
  if (!request.namespace_name.empty()) {
    result += WatchCount(request.api_group, request.resource, request.namespace_name, "");
  }
  if (!request.name.empty()) {
    // The real code keeps the namespace set above, so for a cluster-scoped object this is
    // (group, resource, "", name).
    result += WatchCount(request.api_group, request.resource, request.namespace_name, request.name);
  }
  return result;
}

}  // namespace apf
