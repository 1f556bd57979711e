#include "sim/world/apiserver.h"

#include <algorithm>

#include "apf/classification/long_running.h"
#include "apf/estimation/work_estimator.h"
#include "sim/io/duration.h"
#include "sim/scenario/feature_gates.h"

namespace sim {
namespace {

apf::EventRateLimitConfig EventRateLimitConfigOf(const ApiserverSpec& api) {
  apf::EventRateLimitConfig erl;
  for (const EventRateLimitSpec& l : api.event_rate_limits) {
    apf::EventRateLimitConfig::Limit limit;
    limit.type = l.type == "Server"      ? apf::EventLimitType::kServer
                 : l.type == "Namespace" ? apf::EventLimitType::kNamespace
                 : l.type == "User"      ? apf::EventLimitType::kUser
                                         : apf::EventLimitType::kSourceAndObject;
    limit.qps = static_cast<std::int32_t>(l.qps);
    limit.burst = static_cast<std::int32_t>(l.burst);
    limit.cache_size = static_cast<std::int32_t>(l.cache_size);
    erl.limits.push_back(limit);
  }
  return erl;
}

constexpr std::string_view kGatewayTimeoutBody =
    "The server was unable to return a response in the time allotted, but may still be "
    "processing the request";

}  // namespace

Apiserver::Apiserver(int index, const Scenario& scenario, const apf::FlowControlConfig* config,
                     const ServiceTimeModel* service_time, apf::FlowControlListener* listener,
                     apf::Nanos created_at, int life)
    : index_(index),
      scenario_(scenario),
      service_time_(service_time),
      watch_list_gate_(FeatureGateEnabled(scenario.apiservers, "WatchList")),
      consistent_reads_from_cache_(ConsistentReadsFromCache(scenario.apiservers)),
      request_timeout_(scenario.apiservers.request_timeout),
      rng_(scenario.seed, "apiserver-" + std::to_string(index) + "/service" +
                              (life > 0 ? "/start-" + std::to_string(life) : std::string())) {
  const ApiserverSpec& api = scenario.apiservers;
  apf::FlowControlOptions fc;
  fc.max_requests_inflight = api.max_requests_inflight;
  fc.max_mutating_requests_inflight = api.max_mutating_requests_inflight;
  fc.enable_priority_and_fairness = api.enable_priority_and_fairness;
  fc.request_timeout = api.request_timeout;
  fc.estimator = WorkEstimatorConfigOf(api);
  PollObjectCounts(created_at);
  flow_control_ = std::make_unique<apf::FlowControl>(created_at, fc, config, &objects_, listener);
  if (api.backend_cores > 0) backend_ = std::make_unique<Backend>(api.backend_cores);
  if (!api.event_rate_limits.empty()) {
    event_rate_limit_ = std::make_unique<apf::EventRateLimit>(EventRateLimitConfigOf(api));
  }
}

void Apiserver::PollObjectCounts(apf::Nanos now) {
  for (const ResourceSpec& r : *resources_) {
    objects_.Set(r.api_group, r.resource, apf::ObjectStats{r.objects, r.average_bytes}, now);
  }
}

const std::string* Apiserver::EventRefusal(apf::Nanos now, const apf::RequestInfo& info,
                                           const std::string& user) {
  apf::EventAttributes event;
  event.namespace_name = info.namespace_name;
  event.user_name = user;
  event.involved_object_name = info.name;
  event.involved_object_namespace = info.namespace_name;
  apf::EventRateLimit::Decision decision = event_rate_limit_->Admit(event, now);
  if (decision.admitted) return nullptr;
  ++event_refusals_.events;
  for (size_t i = 0; i < event_rate_limit_->limit_count(); ++i) {
    if (decision.rejected_limits & (std::uint32_t{1} << (i % 32))) {
      ++event_refusals_.by_type[static_cast<size_t>(event_rate_limit_->limit_type(i))];
    }
  }
  return &*event_refusal_messages_.insert(std::move(decision.message)).first;
}

apf::Nanos Apiserver::WatchLifetime(const apf::RequestInfo& info) {
  return apf::WatchLifetime(info.query.timeout_seconds, scenario_.apiservers.min_request_timeout,
                            rng_.Uniform01());
}

std::int64_t Apiserver::MatchingObjects(const ResourceSpec& spec,
                                        const apf::RequestInfo& info) const {
  std::int64_t objects = spec.objects;
  if (!info.namespace_name.empty() && !spec.namespace_names.empty()) {
    objects = (spec.objects + static_cast<std::int64_t>(spec.namespace_names.size()) - 1) /
              static_cast<std::int64_t>(spec.namespace_names.size());
  }
  if (!info.name.empty()) objects = std::min<std::int64_t>(objects, 1);
  return objects;
}

ListResult Apiserver::ListOrWatchResultOf(const CompiledRequest& request,
                                          const apf::RequestInfo& info) const {
  ListResult result;
  const bool is_list = request.is_list;
  const bool initial_events =
      request.is_watch && apf::WatchSendsInitialEvents(info.query, watch_list_gate_);
  if (!is_list && !initial_events) return result;
  result.from_cache = !apf::ListDelegatedToStorage(info.query, consistent_reads_from_cache_);
  const int res = request.resource;
  if (res < 0) return result;
  const ResourceSpec& spec = (*resources_)[res];
  std::int64_t objects = MatchingObjects(spec, info);
  // A LIST with a limit or a continue token returns one page: the page size or the
  // remainder, or everything when the watch cache ignores the limit of resourceVersion
  // "0" (sim/world/list_page.h). The work estimator has already priced it from `limit`
  // and the object count alone (doc/model.md#list-estimate step 6); the page sets the service time.
  if (is_list && (info.query.limit > 0 || !info.query.continue_token.empty())) {
    objects = ServeListPage(info.query, objects, result.from_cache).objects;
  }
  result.objects = objects;
  result.bytes = objects * spec.average_bytes;
  return result;
}

ListPage Apiserver::ListPageOf(const CompiledRequest& request, const apf::RequestInfo& info) const {
  const int res = request.resource;
  if (!request.is_list || res < 0) return ListPage{};
  const bool from_cache = !apf::ListDelegatedToStorage(info.query, consistent_reads_from_cache_);
  return ServeListPage(info.query, MatchingObjects((*resources_)[res], info), from_cache);
}

HttpResponse Apiserver::GatewayTimeout() {
  HttpResponse response;
  response.status_code = 504;
  response.body_is_status = true;
  response.body_message = kGatewayTimeoutBody;
  return response;
}

HttpResponse Apiserver::InvalidTimeout(std::string_view value) {
  HttpResponse response;
  response.status_code = 400;  // apierrors.NewBadRequest
  response.body_is_status = true;
  response.body_message =
      *invalid_timeout_messages_
           .insert("invalid timeout specified in the request URL - " + GoParseDurationError(value))
           .first;
  return response;
}

}  // namespace sim
