// One apiserver replica: its flow-control filter (apf::FlowControl, with the object-count
// tracker it reads), EventRateLimit admission, the service time of a handler, the shared
// backend, the request timeout's 504, watches and the answers the handler gives.
// Clock-free, in the style of the apf/ models: the world tells it the virtual time and
// asks what executing a request costs and what to answer; the world schedules the events
// (k8s.io/apiserver's filters and handlers, as scenarios/README.md "Apiservers" describes).
// Tested by tests/sim/world/apiserver_test.cc.
#ifndef SIM_WORLD_APISERVER_H_
#define SIM_WORLD_APISERVER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include "apf/config/flow_control_config.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/filter/event_rate_limit.h"
#include "apf/filter/flow_control.h"
#include "apf/filter/request_deadline.h"
#include "sim/clients/client_call.h"
#include "sim/engine/random.h"
#include "sim/scenario/scenario.h"
#include "sim/world/backend.h"
#include "sim/world/compiled_request.h"
#include "sim/world/list_page.h"
#include "sim/world/service_time.h"

namespace sim {

// What executing one request costs on a replica.
struct Execution {
  apf::Nanos service = 0;  // how long the handler runs (at full speed on a backend)
  // The refusal's Status message (apf::EventRateLimit::RefusalMessage), kept by the
  // replica for as long as it lives; null when admitted.
  const std::string* event_refusal = nullptr;
  // Refused by EventRateLimit: answered 429, briefly.
  bool event_rejected() const { return event_refusal != nullptr; }
  // When the client gets 504 because the handler still runs at the request timeout
  // (kNever: it does not). The handler goes on holding its seats.
  apf::Nanos timeout_at = apf::kNever;
};

class Apiserver {
 public:
  // `scenario`, `config` and `service_time` must outlive the replica; `listener` hears of
  // the filter's dispatches. A replica started by an event (spec.events) is built at
  // `created_at`, its `life`-th start (0: the one at the run's start), and draws its
  // service times from a stream of its own.
  Apiserver(int index, const Scenario& scenario, const apf::FlowControlConfig* config,
            const ServiceTimeModel* service_time, apf::FlowControlListener* listener,
            apf::Nanos created_at = 0, int life = 0);
  Apiserver(const Apiserver&) = delete;
  Apiserver& operator=(const Apiserver&) = delete;

  int index() const { return index_; }
  apf::FlowControl& flow_control() { return *flow_control_; }
  const apf::FlowControl& flow_control() const { return *flow_control_; }
  Backend* backend() { return backend_.get(); }  // null: no backend limit

  // The object-count tracker's periodic refresh: the scenario's resources, as of `now`.
  void PollObjectCounts(apf::Nanos now);
  // Where the resources are read from from now on (a `resources` event, World): LIST
  // results, pages and service times follow them at once; the work estimator at the next
  // PollObjectCounts, as the real tracker does (doc/model.md#object-count-tracker).
  void set_resources(const std::vector<ResourceSpec>* resources) { resources_ = resources; }

  // The handler of an admitted request starts at `now` (the request arrived at
  // `arrived` with the parsed ?timeout= `user_timeout`, 0 for none; `user` sent it):
  // EventRateLimit's verdict, then the service time, then its 504's time.
  // Inline: it runs for every request.
  Execution Execute(apf::Nanos now, apf::Nanos arrived, apf::Nanos user_timeout,
                    const CompiledRequest& request, const apf::RequestInfo& info,
                    const std::string& user) {
    Execution e;
    if (event_rate_limit_ && apf::EventRateLimitApplies(info)) {
      e.event_refusal = EventRefusal(now, info, user);
    }
    if (e.event_rejected()) {
      e.service = 100 * apf::kMicrosecond;  // admission refuses before storage is touched
    } else if (request.tmpl->service_time) {
      e.service = SampleDuration(*request.tmpl->service_time, rng_);
    } else {
      const ListResult list = ListResultOf(request, info);
      e.service =
          service_time_->SampleRule(request.service_rule[list.from_cache ? 1 : 0], list, rng_);
    }
    e.timeout_at = TimeoutAt(now, arrived, e.service, DeadlineTimeout(user_timeout),
                             request.long_running, backend_ != nullptr);
    return e;
  }
  // The distance from arrival of a non-long-running request's deadline
  // (request_deadline.go withRequestDeadline): its ?timeout= `user_timeout` when that is
  // positive and below --request-timeout, else --request-timeout (0 or a negative
  // ?timeout= included).
  apf::Nanos DeadlineTimeout(apf::Nanos user_timeout) const {
    return apf::RequestDeadlineTimeout(user_timeout, request_timeout_);
  }
  // When the request timeout answers a handler that starts at `now` and runs `service`:
  // `request_timeout` is the request's own (DeadlineTimeout), the timeout filter
  // (server/filters/timeout.go) answering at the context's deadline:
  // at `arrived + request_timeout` if it is still running then (at once if that time has
  // passed), never for a long-running request or one done in time. On a shared backend
  // `service` is full-speed work and a saturated backend stretches it by an amount known
  // only as it happens, so the deadline is always returned: the world cancels it when the
  // handler returns first (the timeout filter answers whatever makes the handler slow).
  static apf::Nanos TimeoutAt(apf::Nanos now, apf::Nanos arrived, apf::Nanos service,
                              apf::Nanos request_timeout, bool long_running,
                              bool shared_backend = false) {
    const apf::Nanos timeout_at = arrived + request_timeout;
    if (long_running) return apf::kNever;
    if (!shared_backend && now + service <= timeout_at) return apf::kNever;
    return timeout_at > now ? timeout_at : now;
  }
  // How long a watch that opened stays open (its ?timeoutSeconds or the server's draw).
  apf::Nanos WatchLifetime(const apf::RequestInfo& info);
  // What a LIST (or a watch's initial events) returns, from the scenario's objects.
  // Inline: most requests are neither, and return nothing without a call.
  ListResult ListResultOf(const CompiledRequest& request, const apf::RequestInfo& info) const {
    if (!request.is_list && !request.is_watch) return ListResult{};
    return ListOrWatchResultOf(request, info);
  }
  // The page a LIST returns, with its continue token (sim/world/list_page.h).
  ListPage ListPageOf(const CompiledRequest& request, const apf::RequestInfo& info) const;

  // The answers. APF's (and MaxInFlight's) 429; the handler's answer when it returns; the
  // timeout filter's 504.
  static HttpResponse TooManyRequests(int retry_after_seconds) {
    HttpResponse response;
    response.status_code = 429;
    response.has_retry_after = true;
    response.retry_after_seconds = retry_after_seconds;
    response.body_message = kTooManyRequestsBody;
    return response;
  }
  // `event_refusal` (non-null: refused by EventRateLimit) must outlive the answer.
  static HttpResponse Answer(const CompiledRequest& request, const std::string* event_refusal) {
    HttpResponse response;
    if (event_refusal != nullptr) {
      response.status_code = 429;  // apierrors.NewTooManyRequestsError: no Retry-After
      response.body_is_status = true;
      response.body_message = *event_refusal;
    } else {
      response.status_code = request.is_create ? 201 : 200;
    }
    return response;
  }
  static HttpResponse GatewayTimeout();
  // WithRequestDeadline's 400 for a ?timeout= `value` that is not a Go duration
  // (request_deadline.go parseTimeout): before authentication and APF. Its message is
  // kept by the replica for as long as it lives.
  HttpResponse InvalidTimeout(std::string_view value);

  // Event writes EventRateLimit refused on this replica, and the refusals by the type of
  // the limit that refused (apf::EventLimitType order; an event refused by two limits
  // counts in both).
  struct EventRefusals {
    std::int64_t events = 0;
    std::array<std::int64_t, 4> by_type{};
  };
  const EventRefusals& event_refusals() const { return event_refusals_; }

 private:
  // EventRateLimit's admission of an event write (apf/filter/event_rate_limit.h): the
  // refusal's message, null if admitted.
  const std::string* EventRefusal(apf::Nanos now, const apf::RequestInfo& info,
                                  const std::string& user);

  ListResult ListOrWatchResultOf(const CompiledRequest& request,
                                 const apf::RequestInfo& info) const;

  // The objects a LIST or a watch's initial events select: the resource's, or one
  // namespace's share, or one object by name.
  std::int64_t MatchingObjects(const ResourceSpec& spec, const apf::RequestInfo& info) const;

  int index_;
  const Scenario& scenario_;
  // The resources as they stand now: spec.resources, or the world's copy once a `resources`
  // event has changed them (set_resources).
  const std::vector<ResourceSpec>* resources_ = &scenario_.resources;
  const ServiceTimeModel* service_time_;
  bool watch_list_gate_;  // the WatchList feature gate (the version's default unless the scenario
                          // says)
  bool consistent_reads_from_cache_;  // ConsistentListFromCache and etcd's support
  apf::Nanos request_timeout_;
  apf::ObjectCountTracker objects_;
  std::unique_ptr<apf::FlowControl> flow_control_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<apf::EventRateLimit> event_rate_limit_;  // null: EventRateLimit off
  // Each distinct refusal message once: a response's body points into it.
  std::unordered_set<std::string> event_refusal_messages_;
  EventRefusals event_refusals_;
  std::unordered_set<std::string> invalid_timeout_messages_;  // InvalidTimeout's bodies
  Random rng_;                                                // service times and watch lifetimes
};

}  // namespace sim

#endif  // SIM_WORLD_APISERVER_H_
