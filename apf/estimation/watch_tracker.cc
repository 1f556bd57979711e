#include "apf/estimation/watch_tracker.h"

#include <cassert>
#include <cstring>

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

// A multiply and a shift: enough to spread short strings over the buckets, which are
// taken modulo a prime.
std::uint64_t Mix(std::uint64_t h) {
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

std::uint64_t Load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint64_t Load4(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Every byte reaches the hash, and the length too; strings of up to 8 bytes are read in
// one or two overlapping loads, longer ones a word at a time ending on an overlapping
// last word.
inline std::uint64_t HashField(std::string_view s, std::uint64_t h) {
  const char* p = s.data();
  const std::size_t n = s.size();
  if (n > 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) h = Mix(h ^ Load8(p + i));
    return Mix(h ^ Load8(p + n - 8)) + n;
  }
  std::uint64_t v = 0;
  if (n >= 4) {
    v = Load4(p) << 32 | Load4(p + n - 4);
  } else if (n > 0) {
    v = std::uint64_t{static_cast<unsigned char>(p[0])} << 16 |
        std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
        static_cast<unsigned char>(p[n - 1]);
  }
  return Mix(h ^ v) + n;
}

}  // namespace

std::size_t WatchTracker::FieldHash::Hash(std::string_view a, std::string_view b) {
  // The second field is often empty (the core group, a namespace-wide watch): no hashing.
  const std::uint64_t h = HashField(a, 0);
  return b.empty() ? h : HashField(b, h);
}

WatchTracker::Registration WatchTracker::RegisterWatch(const RequestInfo& watch) {
  Registration registration;
  if (watch.verb != "watch") return registration;
  registration.registered_ = true;
  registration.counted_ = CountedUnderIndex(watch);
  if (!registration.counted_) return registration;
  auto resource = resources_.find(ResourceView{watch.api_group, watch.resource});
  if (resource == resources_.end()) {
    resource =
        resources_.emplace(ResourceKey{watch.api_group, watch.resource}, ResourceWatches{}).first;
  }
  registration.resource_ = &*resource;
  ResourceWatches& watches = resource->second;
  if (watch.namespace_name.empty() && watch.name.empty()) {
    ++watches.resource_wide;
    return registration;
  }
  auto scope = watches.scoped.find(ScopeView{watch.namespace_name, watch.name});
  if (scope == watches.scoped.end()) {
    scope = watches.scoped.emplace(ScopeKey{watch.namespace_name, watch.name}, 0).first;
  }
  ++scope->second;
  registration.scope_ = &*scope;
  return registration;
}

void WatchTracker::ForgetWatch(Registration& registration) {
  if (!registration.registered_) return;
  registration.registered_ = false;
  if (!registration.counted_) return;
  auto& [resource_key, watches] = *registration.resource_;
  if (auto* scope = registration.scope_) {
    assert(scope->second > 0);
    if (--scope->second == 0) {
      watches.scoped.erase(
          watches.scoped.find(ScopeView{scope->first.namespace_name, scope->first.name}));
    }
  } else {
    assert(watches.resource_wide > 0);
    --watches.resource_wide;
  }
  if (watches.resource_wide == 0 && watches.scoped.empty()) {
    resources_.erase(resources_.find(ResourceView{resource_key.api_group, resource_key.resource}));
  }
  registration.resource_ = nullptr;
  registration.scope_ = nullptr;
}

int WatchTracker::WatchCount(std::string_view api_group, std::string_view resource,
                             std::string_view namespace_name, std::string_view name) const {
  const auto it = resources_.find(ResourceView{api_group, resource});
  if (it == resources_.end()) return 0;
  const ResourceWatches& watches = it->second;
  if (namespace_name.empty() && name.empty()) return watches.resource_wide;
  const auto scope = watches.scoped.find(ScopeView{namespace_name, name});
  return scope == watches.scoped.end() ? 0 : scope->second;
}

size_t WatchTracker::distinct_keys() const {
  size_t keys = 0;
  for (const auto& [key, watches] : resources_) {
    keys += (watches.resource_wide > 0 ? 1 : 0) + watches.scoped.size();
  }
  return keys;
}

std::int64_t WatchTracker::InterestedWatchCount(const RequestInfo& request) const {
  const std::string_view verb = request.verb;  // length tests and inline compares
  if (verb == "get" || verb == "list" || verb == "watch" || verb == "proxy") return 0;
  // Most writes are to resources nobody watches, or watched only resource-wide: one
  // lookup answers those.
  const auto it = resources_.find(ResourceView{request.api_group, request.resource});
  if (it == resources_.end()) return 0;
  const ResourceWatches& watches = it->second;
  std::int64_t result = watches.resource_wide;
  if (watches.scoped.empty()) return result;
  const auto count = [&](std::string_view name) -> int {
    const auto scope = watches.scoped.find(ScopeView{request.namespace_name, name});
    return scope == watches.scoped.end() ? 0 : scope->second;
  };
  if (!request.namespace_name.empty()) result += count("");
  if (!request.name.empty()) {
    // The real code keeps the namespace set above, so for a cluster-scoped object this is
    // (group, resource, "", name).
    result += count(request.name);
  }
  return result;
}

}  // namespace apf
