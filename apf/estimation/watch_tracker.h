// The watches one apiserver is serving, counted for the mutating work estimator
// (doc/model.md#watch-tracker): k8s.io/apiserver pkg/util/flowcontrol/watch_tracker.go. Watches are
// counted under (apiGroup, resource, namespace, name) from their RequestInfo, selectors
// ignored, with one exception mirroring the watch cache's index: a `pods` watch whose
// field selector pins spec.nodeName to a non-empty value is not counted (the kubelets'
// watches), since an event reaches only the watchers of one node.
//
// A write is charged for the watches that may receive its event: those of the whole
// resource, of its namespace, and of its object. The counts are local to one apiserver
// and include watches of every priority level, exempt ones too.
#ifndef APF_ESTIMATION_WATCH_TRACKER_H_
#define APF_ESTIMATION_WATCH_TRACKER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "apf/classification/request_info.h"

namespace apf {

// Where the mutating work estimator reads watcher counts from: the tracker in a simulated
// apiserver, a fixed number in a replay of recorded cases.
class WatchCountSource {
 public:
  virtual ~WatchCountSource() = default;
  // GetInterestedWatchCount: 0 for get, list, watch and proxy; otherwise the watches of
  // (group, resource), plus those of (group, resource, namespace) when the namespace is
  // set, plus those of (group, resource, namespace, name) when the name is set.
  virtual std::int64_t InterestedWatchCount(const RequestInfo& request) const = 0;
};

// The same interested-watch count for every write: a recorded case or a user's figure.
class FixedWatchCount final : public WatchCountSource {
 public:
  explicit FixedWatchCount(std::int64_t count) : count_(count) {}
  std::int64_t InterestedWatchCount(const RequestInfo&) const override { return count_; }

 private:
  std::int64_t count_;
};

class WatchTracker final : public WatchCountSource {
  // Two levels of hashed keys: (group, resource), then (namespace, name) within it. A write
  // needs one lookup when its resource has no watches or only resource-wide ones, which
  // is most writes; only a resource with namespace- or name-scoped watches costs more.
  struct ResourceKey {
    std::string api_group, resource;
  };
  struct ResourceView {
    std::string_view api_group, resource;
  };
  struct ScopeKey {
    std::string namespace_name, name;
  };
  struct ScopeView {
    std::string_view namespace_name, name;
  };
  // Hashes two string fields without a loop for strings of up to 16 bytes, most resource,
  // group and namespace names; keys are still compared exactly. Transparent, so lookups
  // hash the request's strings in place.
  struct FieldHash {
    using is_transparent = void;
    static std::size_t Hash(std::string_view a, std::string_view b);
    template <class K>
    std::size_t operator()(const K& k) const {
      if constexpr (requires { k.resource; }) {
        return Hash(k.resource, k.api_group);
      } else {
        return Hash(k.namespace_name, k.name);
      }
    }
  };
  struct FieldEqual {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if constexpr (requires { a.resource; }) {
        return std::string_view(a.resource) == std::string_view(b.resource) &&
               std::string_view(a.api_group) == std::string_view(b.api_group);
      } else {
        return std::string_view(a.namespace_name) == std::string_view(b.namespace_name) &&
               std::string_view(a.name) == std::string_view(b.name);
      }
    }
  };
  // The watches of one (group, resource): its resource-wide count and the counts of its
  // (namespace, name) keys with at least one watch.
  using ScopeMap = std::unordered_map<ScopeKey, int, FieldHash, FieldEqual>;
  struct ResourceWatches {
    int resource_wide = 0;
    ScopeMap scoped;
  };
  // Node-based: the entries a Registration points to stay put when the tables rehash.
  using ResourceMap = std::unordered_map<ResourceKey, ResourceWatches, FieldHash, FieldEqual>;

 public:
  // What RegisterWatch hands back, to be passed to ForgetWatch when the watch ends (the
  // real ForgetWatchFunc). It stays valid while the tracker lives.
  class Registration {
   public:
    Registration() = default;
    bool registered() const { return registered_; }  // false: not a watch (nil ForgetWatchFunc)
    bool counted() const { return counted_; }        // false: a pods watch pinned to one node

   private:
    friend class WatchTracker;
    bool registered_ = false;
    bool counted_ = false;
    ResourceMap::value_type* resource_ = nullptr;
    ScopeMap::value_type* scope_ = nullptr;  // null for a resource-wide watch
  };

  WatchTracker() = default;
  WatchTracker(const WatchTracker&) = delete;
  WatchTracker& operator=(const WatchTracker&) = delete;

  // Called when a watch is dispatched by APF (doc/model.md#watch-flow). Requests whose verb is not
  // `watch` are not registered.
  Registration RegisterWatch(const RequestInfo& watch);
  // Called when the watch ends. Forgetting a registration twice is a caller bug.
  void ForgetWatch(Registration& registration);

  std::int64_t InterestedWatchCount(const RequestInfo& request) const override;

  // The count under exactly this key (for tests and dumps).
  int WatchCount(std::string_view api_group, std::string_view resource,
                 std::string_view namespace_name, std::string_view name) const;
  // The keys with at least one watch.
  size_t distinct_keys() const;

 private:
  ResourceMap resources_;
};

}  // namespace apf

#endif  // APF_ESTIMATION_WATCH_TRACKER_H_
