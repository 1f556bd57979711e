// The watches one apiserver is serving, counted for the mutating work estimator
// (APF-SPEC 6.5): k8s.io/apiserver pkg/util/flowcontrol/watch_tracker.go. Watches are
// counted under (apiGroup, resource, namespace, name) from their RequestInfo, selectors
// ignored, with one exception mirroring the watch cache's index: a `pods` watch whose
// field selector pins spec.nodeName to a non-empty value is not counted (the kubelets'
// watches), since an event reaches only the watchers of one node.
//
// A write is charged for the watches that may receive its event: those of the whole
// resource, of its namespace, and of its object. The counts are local to one apiserver
// and include watches of every priority level, exempt ones too.
#ifndef APF_WATCH_TRACKER_H_
#define APF_WATCH_TRACKER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "apf/request_info.h"

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
  struct Key {
    std::string api_group, resource, namespace_name, name;
  };
  struct KeyView {
    std::string_view api_group, resource, namespace_name, name;
  };
  // Orders keys by resource first, "" before any other string: InterestedWatchCount relies
  // on both. Within a field, shorter strings come first and only strings of one length
  // compare their bytes, so most steps of a lookup cost no memcmp call. Nothing iterates
  // the map, so this order shows nowhere.
  struct KeyLess {
    using is_transparent = void;
    static int Compare(std::string_view a, std::string_view b) {
      if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
      return a.compare(b);
    }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if (int c = Compare(a.resource, b.resource); c != 0) return c < 0;
      if (int c = Compare(a.namespace_name, b.namespace_name); c != 0) return c < 0;
      if (int c = Compare(a.name, b.name); c != 0) return c < 0;
      return Compare(a.api_group, b.api_group) < 0;
    }
  };
  using CountMap = std::map<Key, int, KeyLess>;

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
    CountMap::iterator entry_;
  };

  WatchTracker() = default;
  WatchTracker(const WatchTracker&) = delete;
  WatchTracker& operator=(const WatchTracker&) = delete;

  // Called when a watch is dispatched by APF (APF-SPEC 1.5). Requests whose verb is not
  // `watch` are not registered.
  Registration RegisterWatch(const RequestInfo& watch);
  // Called when the watch ends. Forgetting a registration twice is a caller bug.
  void ForgetWatch(Registration& registration);

  std::int64_t InterestedWatchCount(const RequestInfo& request) const override;

  // The count under exactly this key (for tests and dumps).
  int WatchCount(std::string_view api_group, std::string_view resource,
                 std::string_view namespace_name, std::string_view name) const;
  size_t distinct_keys() const { return counts_.size(); }

 private:
  CountMap counts_;
};

}  // namespace apf

#endif  // APF_WATCH_TRACKER_H_
