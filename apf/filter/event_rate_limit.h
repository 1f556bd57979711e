// The EventRateLimit admission plugin (kubernetes/kubernetes
// plugin/pkg/admission/eventratelimit): token buckets that limit how fast Events are
// written, applied in admission, i.e. after flow control has dispatched the request.
// Each configured limit has a type: Server (one bucket), Namespace, User and
// SourceAndObject (one bucket per key, kept in an LRU cache of cacheSize buckets, 4096
// by default: cache.go's hashicorp/golang-lru, where a lookup marks the key most recently
// used and a new key evicts the least recently used; an evicted key comes back with a
// full bucket). Each bucket is golang.org/x/time/rate's Limiter (apf/base/rate_limiter.h) as
// flowcontrol.NewTokenBucketRateLimiter(float32(qps), burst) builds it.
//
// Every configured limit is asked in configuration order and each takes its token when
// it can, so an event rejected by one bucket still spends tokens in the others. The event
// is admitted only if all admit; otherwise the request fails with 429 Too Many Requests,
// which carries no Retry-After header. Its message names every bucket that refused:
// limitEnforcer.accept's "limit reached on type T for key K" per refusal, joined by
// Plugin.Validate through utilerrors.NewAggregate (one message as is; several, with
// duplicates dropped, as "[m1, m2]") and wrapped by apierrors.NewTooManyRequestsError
// ("Too many requests: ...").
//
// The plugin handles Create and Update (a PATCH is an Update) of objects of kind Event in
// the core group, and skips dry-run requests.
#ifndef APF_FILTER_EVENT_RATE_LIMIT_H_
#define APF_FILTER_EVENT_RATE_LIMIT_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apf/base/rate_limiter.h"
#include "apf/base/status.h"
#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"

namespace apf {

enum class EventLimitType { kServer, kNamespace, kUser, kSourceAndObject };

// "Server", "Namespace", "User", "SourceAndObject".
std::string_view EventLimitTypeName(EventLimitType type);

// eventratelimit.k8s.io Configuration.
struct EventRateLimitConfig {
  struct Limit {
    EventLimitType type = EventLimitType::kServer;
    std::int32_t qps = 0;
    std::int32_t burst = 0;
    std::int32_t cache_size = 0;  // 0: 4096; ignored for Server
  };
  std::vector<Limit> limits;
};

// validation.ValidateConfiguration: at least one limit, qps > 0, burst > 0, cacheSize
// not negative. (The same type may appear twice; each is then a separate bucket set.)
Status ValidateEventRateLimitConfig(const EventRateLimitConfig& config);

// What the plugin reads from an admission request for an Event.
struct EventAttributes {
  std::string namespace_name;  // attributes' namespace
  std::string user_name;       // the requesting user
  // event.source and event.involvedObject, for the SourceAndObject key.
  std::string source_component;
  std::string source_host;
  std::string involved_object_kind;
  std::string involved_object_namespace;
  std::string involved_object_name;
  std::string involved_object_uid;
  std::string involved_object_api_version;
};

// Whether admission runs the plugin on this request: a create, update or patch of a
// core-group `events` object that is not a dry run. (events.k8s.io Events have kind
// events.k8s.io/Event and are not limited.)
bool EventRateLimitApplies(const RequestInfo& request);

class EventRateLimit {
 public:
  static constexpr std::int32_t kDefaultCacheSize = 4096;

  // `config` must be valid (ValidateEventRateLimitConfig).
  explicit EventRateLimit(const EventRateLimitConfig& config);
  EventRateLimit(const EventRateLimit&) = delete;
  EventRateLimit& operator=(const EventRateLimit&) = delete;

  struct Decision {
    bool admitted = true;
    // Bit i set: limit i of the configuration rejected the event.
    std::uint32_t rejected_limits = 0;
    // The Status message of the 429 (empty when admitted), as RefusalMessage builds it.
    std::string message;
  };
  // Plugin.Validate for an Event write at `now`.
  Decision Admit(const EventAttributes& event, Nanos now);

  // Buckets currently cached for limit `index` (1 for a Server limit).
  size_t cached_buckets(size_t index) const;
  size_t limit_count() const { return enforcers_.size(); }
  EventLimitType limit_type(size_t index) const { return enforcers_[index]->type(); }

  // The message of a refusal by the buckets `refusals` (type and key of each, in
  // configuration order): "Too many requests: " and utilerrors.NewAggregate's text of the
  // "limit reached on type T for key K" errors.
  struct Refusal {
    EventLimitType type;
    std::string key;
  };
  static std::string RefusalMessage(const std::vector<Refusal>& refusals);

 private:
  // One limit type's buckets: a single one, or an LRU cache by key.
  class LimitEnforcer {
   public:
    explicit LimitEnforcer(const EventRateLimitConfig::Limit& limit);
    RateLimiter& Bucket(const std::string& key);
    EventLimitType type() const { return limit_.type; }
    size_t size() const { return limit_.type == EventLimitType::kServer ? 1 : lru_.size(); }

   private:
    struct Entry {
      std::string key;
      RateLimiter bucket;
    };
    EventRateLimitConfig::Limit limit_;
    size_t capacity_;
    RateLimiter server_bucket_;
    std::list<Entry> lru_;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  };

  static std::string KeyOf(EventLimitType type, const EventAttributes& event);

  std::vector<std::unique_ptr<LimitEnforcer>> enforcers_;
};

}  // namespace apf

#endif  // APF_FILTER_EVENT_RATE_LIMIT_H_
