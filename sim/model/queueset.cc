#include "sim/model/queueset.h"

#include <cmath>
#include <set>
#include <vector>

#include "apf/flow_control.h"
#include "apf/flow_hash.h"
#include "apf/queue_set.h"
#include "sim/engine/event_queue.h"
#include "sim/io/json_input.h"

namespace sim {
namespace {

// Seconds beyond this are surely a mistake, and keep every sum of times far from overflow.
constexpr double kMaxSeconds = 1e9;

apf::Nanos Seconds(const JsonField& field) {
  const double seconds = field.Number();
  if (!(seconds >= 0 && seconds <= kMaxSeconds)) {
    field.Fail("expected seconds in [0, 1e9], got " + field.value().dump());
  }
  return static_cast<apf::Nanos>(std::llround(seconds * 1e9));
}

apf::Nanos SecondsOr(const JsonField& object, std::string_view key, apf::Nanos fallback) {
  return object.Has(key) ? Seconds(object[key]) : fallback;
}

std::int64_t IntInRange(const JsonField& field, std::int64_t low, std::int64_t high) {
  const std::int64_t value = field.Int();
  if (value < low || value > high) {
    field.Fail("expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
               "], got " + std::to_string(value));
  }
  return value;
}

struct ReplayRequest {
  std::int64_t id = 0;
  apf::Nanos arrive_ns = 0;
  apf::Nanos service_ns = 0;
  apf::Nanos wait_limit_ns = 0;
  apf::RequestSeats seats;
  std::uint64_t flow_hash = 0;

  // What happened to it.
  apf::QueueSetHandle handle;
  int queue = -1;
  const char* rejected_reason = nullptr;
  apf::Nanos rejected_ns = -1;
  apf::Nanos dispatch_ns = -1;
  apf::Nanos finish_ns = -1;
  apf::Nanos release_ns = -1;
};

enum EventKind : std::uint32_t { kArrival, kTimeOut, kCompletion, kRelease };

// The replay's world: the event queue, and the listener that schedules completions.
class Replay : public apf::QueueSetListener {
 public:
  explicit Replay(std::vector<ReplayRequest> requests) : requests_(std::move(requests)) {}

  void OnDispatched(apf::Nanos now, apf::QueueSetHandle, std::uint64_t id) override {
    ReplayRequest& r = requests_[id];
    r.dispatch_ns = now;
    events_.Schedule(now + r.service_ns, {kCompletion, static_cast<std::uint32_t>(id), 0});
  }

  void Run(const apf::QueuingConfig& queuing, const apf::DispatchingConfig& dispatching) {
    apf::QueueSet queue_set(0, queuing, dispatching, this, nullptr);
    for (std::uint32_t i = 0; i < requests_.size(); ++i) {
      events_.Schedule(requests_[i].arrive_ns, {kArrival, i, 0});
      events_.Schedule(requests_[i].arrive_ns + requests_[i].wait_limit_ns, {kTimeOut, i, 0});
    }
    while (std::optional<FiredEvent> fired = events_.Pop()) {
      const apf::Nanos now = fired->time;
      ReplayRequest& r = requests_[fired->event.arg32];
      switch (fired->event.kind) {
        case kArrival: {
          // The listener finds requests by their input index, passed as the queue set's id.
          apf::QueueSet::StartResult start =
              queue_set.StartRequest(now, fired->event.arg32, r.seats, r.flow_hash);
          r.handle = start.handle;
          r.queue = start.queue_index;
          if (start.outcome == apf::QueueSet::StartOutcome::kRejectedQueueFull) {
            Reject(r, now, apf::RejectReason::kQueueFull);
          } else if (start.outcome == apf::QueueSet::StartOutcome::kRejectedConcurrencyLimit) {
            Reject(r, now, apf::RejectReason::kConcurrencyLimit);
          }
          break;
        }
        case kTimeOut:
          if (r.dispatch_ns < 0 && r.rejected_reason == nullptr &&
              queue_set.TimeOut(now, r.handle)) {
            Reject(r, now, apf::RejectReason::kTimeOut);
          }
          break;
        case kCompletion:
          r.finish_ns = now;
          r.release_ns = queue_set.Finish(now, r.handle);
          if (r.release_ns > now) events_.Schedule(r.release_ns, {kRelease, fired->event.arg32, 0});
          break;
        case kRelease:
          queue_set.ReleaseSeats(now, r.handle);
          break;
      }
    }
  }

  nlohmann::json Results() const {
    nlohmann::json results = nlohmann::json::array();
    for (const ReplayRequest& r : requests_) {
      nlohmann::json out = {{"id", r.id}, {"queue", r.queue}};
      if (r.rejected_reason) {
        out["outcome"] = "rejected";
        out["reason"] = r.rejected_reason;
        out["rejectedAtNs"] = r.rejected_ns;
      } else {
        out["outcome"] = "executed";
        out["dispatchNs"] = r.dispatch_ns;
        out["finishNs"] = r.finish_ns;
        out["releaseNs"] = r.release_ns;
      }
      results.push_back(std::move(out));
    }
    return results;
  }

 private:
  static void Reject(ReplayRequest& r, apf::Nanos now, apf::RejectReason reason) {
    r.rejected_reason = apf::RejectReasonName(reason);
    r.rejected_ns = now;
    if (reason == apf::RejectReason::kQueueFull) r.queue = -1;  // it was never enqueued
  }

  std::vector<ReplayRequest> requests_;
  EventQueue events_;
};

nlohmann::json ReplayCase(const JsonField& c) {
  c.ExpectObject({"queueset", "requests"});
  const JsonField config = c["queueset"];
  config.ExpectObject({"concurrencyLimit", "queues", "handSize", "queueLengthLimit"});
  apf::QueuingConfig queuing;
  apf::DispatchingConfig dispatching;
  dispatching.concurrency_limit =
      static_cast<int>(IntInRange(config["concurrencyLimit"], 0, 1 << 30));
  dispatching.concurrency_denominator = dispatching.concurrency_limit;
  queuing.desired_num_queues = static_cast<int>(IntInRange(config["queues"], -1, 1 << 26));
  if (queuing.desired_num_queues > 0) {
    queuing.hand_size = static_cast<int>(IntInRange(config["handSize"], 1, 1 << 26));
    queuing.queue_length_limit =
        static_cast<int>(IntInRange(config["queueLengthLimit"], 0, 1 << 30));
  } else {
    if (config.Has("handSize")) {
      queuing.hand_size = static_cast<int>(IntInRange(config["handSize"], 0, 1 << 26));
    }
    if (config.Has("queueLengthLimit")) {
      queuing.queue_length_limit =
          static_cast<int>(IntInRange(config["queueLengthLimit"], 0, 1 << 30));
    }
  }
  if (apf::Status status = apf::QueueSet::CheckQueuingConfig(queuing); !status.ok()) {
    config.Fail(status.message());
  }

  const JsonField list = c["requests"];
  list.ExpectArray();
  std::vector<ReplayRequest> requests;
  std::set<std::int64_t> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonField item = list.At(i);
    item.ExpectObject({"id", "arrive", "flowSchema", "distinguisher", "initialSeats", "finalSeats",
                       "additionalLatency", "service", "waitLimit"});
    ReplayRequest r;
    r.id = item["id"].Int();
    if (!ids.insert(r.id).second) item["id"].Fail("duplicate request id " + std::to_string(r.id));
    r.arrive_ns = Seconds(item["arrive"]);
    r.service_ns = Seconds(item["service"]);
    r.wait_limit_ns = SecondsOr(item, "waitLimit", 15 * apf::kSecond);
    r.seats.initial_seats =
        item.Has("initialSeats") ? IntInRange(item["initialSeats"], 0, 1 << 30) : 1;
    r.seats.final_seats = item.Has("finalSeats") ? IntInRange(item["finalSeats"], 0, 1 << 30) : 0;
    r.seats.additional_latency = SecondsOr(item, "additionalLatency", 0);
    if (queuing.desired_num_queues > 1) {
      r.flow_hash =
          apf::HashFlowID(item.StringOr("flowSchema", ""), item.StringOr("distinguisher", ""));
    }
    requests.push_back(r);
  }
  Replay replay(std::move(requests));
  replay.Run(queuing, dispatching);
  return {{"results", replay.Results()}};
}

}  // namespace

nlohmann::json ReplayQueueSetCases(const nlohmann::json& cases, const std::string& source) {
  JsonField all(cases, source, "");
  all.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) out.push_back(ReplayCase(all.At(i)));
  return out;
}

}  // namespace sim
