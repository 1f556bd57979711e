#include "apf/filter/event_rate_limit.h"

namespace apf {

std::string_view EventLimitTypeName(EventLimitType type) {
  switch (type) {
    case EventLimitType::kServer:
      return "Server";
    case EventLimitType::kNamespace:
      return "Namespace";
    case EventLimitType::kUser:
      return "User";
    case EventLimitType::kSourceAndObject:
      return "SourceAndObject";
  }
  return "";
}

Status ValidateEventRateLimitConfig(const EventRateLimitConfig& config) {
  if (config.limits.empty()) return Status::Invalid("limits: must not be empty");
  for (size_t i = 0; i < config.limits.size(); ++i) {
    const EventRateLimitConfig::Limit& limit = config.limits[i];
    const std::string at = "limits[" + std::to_string(i) + "]";
    if (limit.burst <= 0) return Status::Invalid(at + ".burst: must be positive");
    if (limit.qps <= 0) return Status::Invalid(at + ".qps: must be positive");
    if (limit.type != EventLimitType::kServer && limit.cache_size < 0) {
      return Status::Invalid(at + ".cacheSize: must not be negative");
    }
  }
  return Status::OK();
}

bool EventRateLimitApplies(const RequestInfo& request) {
  if (!request.is_resource_request || !request.api_group.empty()) return false;
  if (request.resource != "events" || !request.subresource.empty()) return false;
  if (request.query.dry_run) return false;
  const std::string& v = request.verb;
  return v == "create" || v == "update" || v == "patch";
}

EventRateLimit::LimitEnforcer::LimitEnforcer(const EventRateLimitConfig::Limit& limit)
    : limit_(limit),
      capacity_(static_cast<size_t>(limit.cache_size == 0 ? kDefaultCacheSize : limit.cache_size)),
      server_bucket_(NewTokenBucketRateLimiter(static_cast<float>(limit.qps), limit.burst)) {}

RateLimiter& EventRateLimit::LimitEnforcer::Bucket(const std::string& key) {
  if (limit_.type == EventLimitType::kServer) return server_bucket_;
  auto found = index_.find(key);
  if (found != index_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);  // Get marks it most recently used
    return found->second->bucket;
  }
  // A miss makes a fresh, full bucket; adding it may evict the least recently used.
  lru_.push_front(
      Entry{key, NewTokenBucketRateLimiter(static_cast<float>(limit_.qps), limit_.burst)});
  index_.emplace(key, lru_.begin());
  if (lru_.size() > capacity_) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  return lru_.front().bucket;
}

EventRateLimit::EventRateLimit(const EventRateLimitConfig& config) {
  for (const EventRateLimitConfig::Limit& limit : config.limits) {
    enforcers_.push_back(std::make_unique<LimitEnforcer>(limit));
  }
}

std::string EventRateLimit::KeyOf(EventLimitType type, const EventAttributes& event) {
  switch (type) {
    case EventLimitType::kServer:
      return "";
    case EventLimitType::kNamespace:
      return event.namespace_name;
    case EventLimitType::kUser:
      return event.user_name;
    case EventLimitType::kSourceAndObject:
      // strings.Join(..., ""): the parts run together with no separator.
      return event.source_component + event.source_host + event.involved_object_kind +
             event.involved_object_namespace + event.involved_object_name +
             event.involved_object_uid + event.involved_object_api_version;
  }
  return "";
}

EventRateLimit::Decision EventRateLimit::Admit(const EventAttributes& event, Nanos now) {
  Decision decision;
  std::vector<Refusal> refusals;
  for (size_t i = 0; i < enforcers_.size(); ++i) {
    LimitEnforcer& enforcer = *enforcers_[i];
    std::string key = KeyOf(enforcer.type(), event);
    if (!enforcer.Bucket(key).Allow(now)) {
      decision.admitted = false;
      decision.rejected_limits |= std::uint32_t{1} << (i % 32);
      refusals.push_back(Refusal{enforcer.type(), std::move(key)});
    }
  }
  if (!decision.admitted) decision.message = RefusalMessage(refusals);
  return decision;
}

std::string EventRateLimit::RefusalMessage(const std::vector<Refusal>& refusals) {
  // utilerrors.NewAggregate(...).Error(): a single error's text as is; otherwise the
  // distinct texts in order, joined by ", " and bracketed (one distinct text is not).
  std::vector<std::string> distinct;
  for (const Refusal& r : refusals) {
    std::string text = "limit reached on type ";
    text += EventLimitTypeName(r.type);
    text += " for key ";
    text += r.key;
    bool seen = false;
    for (const std::string& d : distinct) seen = seen || d == text;
    if (!seen) distinct.push_back(std::move(text));
  }
  std::string joined;
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (i > 0) joined += ", ";
    joined += distinct[i];
  }
  if (distinct.size() > 1) joined = "[" + joined + "]";
  return "Too many requests: " + joined;  // apierrors.NewTooManyRequestsError
}

size_t EventRateLimit::cached_buckets(size_t index) const { return enforcers_[index]->size(); }

}  // namespace apf
