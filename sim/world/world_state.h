// The world's private state: the elements of its pools (calls and attempts), its
// clients, processes, traffic generators and apiserver replicas. Shared by
// sim/world/world.cc (event dispatch) and sim/world/world_build.cc (the world assembled
// from a scenario); nothing else includes it. Tested through whole runs (tests/cli/).
#ifndef SIM_WORLD_WORLD_STATE_H_
#define SIM_WORLD_WORLD_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/world/world.h"

namespace sim {

// A replayed row's request: its template and compiled form live together in a pool slot
// that is reused when the call finishes.
struct World::ReplayRequest {
  RequestTemplate tmpl;
  CompiledRequest compiled;
};

// The template of rows of one shape (ReplayRow::shape): the first row's, for the request
// the shape compiles to in requests_, and the shape's text (the replay's cache key).
struct World::ReplayShape {
  RequestTemplate tmpl;
  std::string key;
};

// A replayed shape's call: its row's namespace and name, which the shape leaves out.
struct World::ReplayNames {
  std::string namespace_name;
  std::string name;
};

class World::DispatchListener : public apf::FlowControlListener {
 public:
  DispatchListener(World* world, int replica) : world_(world), replica_(replica) {}
  void OnDispatched(apf::Nanos now, std::uint64_t id) override;

 private:
  World* world_;
  int replica_;
};

struct World::Replica {
  // `created_at` and `life`: a replica an event started (Apiserver's constructor).
  Replica(World* world, int r, const Scenario& scenario, const apf::FlowControlConfig* config,
          const ServiceTimeModel* service_time, apf::Nanos created_at = 0, int life = 0)
      : index(r),
        listener(world, r),
        server(r, scenario, config, service_time, &listener, created_at, life),
        flow_control(&server.flow_control()),
        backend(server.backend()) {}
  int index;
  // spec.events' stops and starts (World::StopReplica, StartReplica): whether it serves,
  // when it last started (0: with the run; its watch cache holds nothing older), and
  // which of its lives this is. `life` is also carried by its periodic events (kAdjust,
  // kObjectPoll, in arg64), so that those of an earlier life stop with it.
  bool up = true;
  apf::Nanos started_at = 0;
  int life = 0;
  DispatchListener listener;
  Apiserver server;
  apf::FlowControl* flow_control;  // the server's
  Backend* backend;                // the server's; null: no backend limit
  EventHandle backend_event;
  std::vector<LevelTimeline> timelines;
};

struct World::Client {
  const ClientSpec* spec = nullptr;
  int first_process = 0;
  ClientTimeline timeline;
  std::vector<std::pair<std::string, std::uint64_t>> errors;
  // Attempts by (level, flow schema), indexed as World::flow_schema_slots_ says.
  std::vector<std::uint64_t> level_attempts;
};

struct World::Process {
  int client = 0;
  int index = 0;  // within its client
  apf::UserInfo user;
  // The policy rules whose subjects name the user (every replica has the same configuration).
  apf::SubjectMask subjects;
  int subject_class = -1;  // the users of its mask in World::classification_memo_; -1: none
  // Where `user_flow_replica`'s filter keeps this user's ByUser flow (of the FlowSchema the
  // note names), so that its next request there skips the lookup by name.
  int user_flow_replica = -1;
  apf::FlowRef user_flow;
  std::unique_ptr<apf::RateLimiter> bucket;  // null: no client-side limiter
  int replica = 0;                           // its connection, for sticky balancing
  // Behind the gateway: the session's request-rate bucket and requests in flight.
  std::unique_ptr<apf::RateLimiter> session_bucket;
  GatewaySession session;
};

struct World::Generator {
  int process = 0;
  // The informer pattern's request in flight (a reflector sends one at a time): what its
  // call writes into each attempt's request (a continue token, a watch timeout).
  InformerRequest informer_request;
  const TrafficSpec* spec = nullptr;
  std::vector<const CompiledRequest*> calls;
  Random rng{0};
  Traffic traffic;                     // every pattern but the informer and replays
  std::unique_ptr<Replay> replay;      // trace traffic and spec.auditLog
  std::unique_ptr<Informer> informer;  // the informer pattern: its reflector
};

// One request shape of an informer pattern (its resource with one query), compiled when
// the reflector first asks for it.
struct World::InformerRequestShape {
  const TrafficSpec* spec = nullptr;
  bool watch = false;
  std::string query;
  RequestTemplate tmpl;
  const CompiledRequest* compiled = nullptr;
};

struct World::Call {
  // A call waiting in its client (a token, a Retry-After) costs its slot and a 16-byte
  // posted wake-up: no field another implies, and nothing kept for --trace
  // alone (its serial number is in World::call_serials_ when tracing).
  //
  // The call's client-go state, built in place by IssueCall while the call is live: a
  // ClientCallState has no empty state, and an optional's flag would pad every call by 8
  // bytes.
  union {
    ClientCallState client;
  };
  apf::Nanos issued = 0;
  // Its request: requests_[request] when 0 or more; else a replayed row's, in slot
  // -1 - request of replay_requests_ (World::RequestOf).
  std::int32_t request = 0;
  // What varies between calls of the request (WriteCallRequest): the namespace drawn, and
  // for a call of the informer pattern its generator's informer_request.
  std::uint32_t namespace_index = 0;
  std::uint32_t generation = 0;
  int process = -1;  // -1: the slot is free
  int generator = -1;
  int attempt = -1;  // the attempt in flight
  bool live() const { return process >= 0; }
  Call() {}  // `client` is left unbuilt
};
// A finished call's ClientCallState is left as it is, which is sound only while it owns nothing.
static_assert(std::is_trivially_destructible_v<ClientCallState>);

struct World::SentRequest {
  int request_id = -1;  // the CompiledRequest's id; -1 for a replayed row's
  apf::RequestInfo info;
};

struct World::Attempt {
  // A user-provided constructor, so that building an attempt in place (SendAttempt) writes
  // each member's initializer and does not first zero the whole object (a rep stos of
  // about 30 words for every attempt).
  Attempt() {}
  std::uint32_t generation = 0;
  bool live = false;
  int call = -1;
  std::uint32_t sent = 0;  // its slot in sent_requests_
  std::uint32_t call_generation = 0;
  int generator = -1;
  int replica = 0;
  apf::FlowHandle handle;
  int flow_schema = -1;
  int seats = 0;  // beside flow_schema, where it fills what would be padding
  std::uint64_t flow_hash = 0;
  apf::Nanos arrived = 0;
  apf::Nanos user_timeout = 0;  // the ?timeout= sent, parsed (0: none); sets the 504's time
  EventHandle timeout;
  EventHandle abort;      // the client gives up on the attempt then (its call's kCallAbort)
  bool answered = false;  // the client has its answer, or gave up
  bool executing = false;
  bool pending_release = false;  // seats held through the additional latency
  bool watch = false;            // the call's request is a WATCH (kept here: the call may be gone)
  bool watch_open = false;
  bool via_gateway = false;     // counted in the gateway's bounds until its response ends
  bool gateway_stream = false;  // counted as a stream (/stream/v1), not a /k8s request
  // --trace writes about the attempt (trace_info below is kept only when `traced`); among
  // the flags, where it fills what would be padding.
  bool traced = false;
  EventHandle gateway_cut;  // its cut short by the gateway (kGatewayCut)
  // EventRateLimit's refusal message when it refused the write at admission (kept by the
  // replica's Apiserver for as long as it lives); null when admitted.
  const std::string* event_refusal = nullptr;
  apf::WatchTracker::Registration registration;
  int try_number = 0;  // 1 for a call's first attempt, 2 for its first retry, ...
  int process = 0;
  std::uint64_t call_serial = 0;
  // The flow's distinguisher as the classifier gives it (the request as sent is the
  // attempt's own, in sent_requests_). Kept only for traced attempts, so that an attempt
  // holds one pointer for them.
  struct TracedRequest {
    std::string distinguisher;
  };
  std::unique_ptr<TracedRequest> trace_info;
  int queue = -1;
  // The watch opened on a replica whose watch cache starts after the informer's
  // lastSyncResourceVersion: its one event is a 410 Expired (World::OnExecDone). Beside
  // `queue`, where it fills what would be padding.
  bool watch_expired = false;
  apf::WorkEstimate estimate;
  apf::Nanos dispatched = -1, finished = -1, answered_at = -1;
  int status = 0, retry_after = 0;
  const char* outcome = "";
  const char* reason = "";
};

// A call's client-go context: its request's options and its process's token bucket.
inline const CompiledRequest& World::RequestOf(const Call& call) const {
  return call.request >= 0
             ? *requests_[static_cast<std::size_t>(call.request)]
             : replay_requests_[static_cast<std::uint32_t>(-1 - call.request)].compiled;
}

inline CallContext World::ContextOf(const Call& call) const {
  return {RequestOf(call).call_options, processes_[call.process].bucket.get()};
}

inline World::Client& World::ClientOf(const Attempt& attempt) {
  return clients_[processes_[attempt.process].client];
}

// Inline: a generator's next turn is scheduled once per request it issues.
inline void World::ScheduleGenerator(int g, apf::Nanos at) {
  const TrafficSpec& t = *generators_[g].spec;
  if (at >= t.stop) return;
  engine_.At(std::max(at, engine_.now()), Event{kGenerate, static_cast<std::uint32_t>(g), 0});
}

inline const apf::RequestInfo& World::SentRequestOf(const Attempt& attempt) const {
  return sent_requests_[attempt.sent].info;
}

}  // namespace sim

#endif  // SIM_WORLD_WORLD_STATE_H_
