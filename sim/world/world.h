// The simulated cluster: apiserver replicas behind a load balancer (and, for browser
// sessions, a gateway), the objects, and the client-go clients with their traffic, all
// driven by one virtual-time engine. A World runs one scenario once and keeps the
// per-level and per-client timelines that the report writes.
//
// The world dispatches events and owns the pools; the decisions are made by clock-free
// parts beside it, each told the virtual time: sim/world/apiserver.h (one replica),
// load_balancer.h, gateway.h and traffic.h. sim/world/world_build.cc assembles a world
// from a scenario; world.cc handles its events.
//
// Memory is bounded by what is in flight: calls and attempts come from pools that are
// reused, and statistics are fixed-size histograms.
#ifndef SIM_WORLD_WORLD_H_
#define SIM_WORLD_WORLD_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apf/base/rate_limiter.h"
#include "apf/config/flow_control_config.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/filter/flow_control.h"
#include "sim/clients/client_call.h"
#include "sim/engine/engine.h"
#include "sim/engine/random.h"
#include "sim/engine/slot_pool.h"
#include "sim/scenario/replay_source.h"
#include "sim/scenario/scenario.h"
#include "sim/world/apiserver.h"
#include "sim/world/backend.h"
#include "sim/world/classification_memo.h"
#include "sim/world/compiled_request.h"
#include "sim/world/flow_metrics.h"
#include "sim/world/gateway.h"
#include "sim/world/informer.h"
#include "sim/world/level_timeline.h"
#include "sim/world/load_balancer.h"
#include "sim/world/service_time.h"
#include "sim/world/trace_filter.h"
#include "sim/world/trace_record.h"
#include "sim/world/traffic.h"

namespace sim {

// Receives what the world produces while it runs (rows of the timelines, dumps), so that
// memory does not grow with the length of the run.
class WorldObserver {
 public:
  virtual ~WorldObserver() = default;
  // One report interval [start, end) closed for one replica's level.
  virtual void OnLevelRow(apf::Nanos start, int replica, const std::string& level,
                          const LevelRow& row) = 0;
  virtual void OnClientRow(apf::Nanos start, const std::string& client, const ClientRow& row) = 0;
  // Every row of the interval that ends at `end` was handed over; the world's counters and
  // gauges are those of that instant (`apfsim run --openmetrics` takes its snapshot).
  virtual void OnIntervalEnd(apf::Nanos end) { (void)end; }
  // A debug dump instant: the observer reads the replicas' filters.
  virtual void OnDump(apf::Nanos now, int dump_index) = 0;
  // A traced request's story (only when tracing is on for it).
  virtual void OnTrace(const std::string& json_line) { (void)json_line; }
};

struct WorldOptions {
  std::uint64_t max_events = UINT64_MAX;
  // Called now and then with the virtual time reached; returning false stops the run.
  std::function<bool(apf::Nanos now)> progress;
  // Asked every few thousand events whether to go on (sim/engine/engine.h RunLimits::keep_going).
  std::function<bool()> keep_going;
  // Trace every request of this client or priority level ("" for none), or those of its
  // requests `trace_filter` keeps.
  std::string trace;
  TraceFilter trace_filter;
  // FlowControlSetup::event_configs of the scenario (by spec.events index; must outlive
  // the world); null when no event changes the flow-control objects.
  const std::vector<apf::FlowControlConfig>* event_configs = nullptr;
  // Take the SHA-256 of every trace file as it is read, for InputSha256s (a run's
  // provenance); off where no provenance is written.
  bool input_sha256 = false;
};

class World : public EventHandler {
 public:
  // `scenario` and `flow_control` must outlive the world.
  World(const Scenario& scenario, const apf::FlowControlConfig* flow_control,
        const WorldOptions& options, WorldObserver* observer);
  ~World() override;
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs to the scenario's end (or a limit). Returns why it stopped.
  StopReason Run();

  apf::Nanos now() const { return engine_.now(); }
  std::uint64_t events_handled() const { return engine_.events_handled(); }
  std::uint64_t attempts_total() const { return attempts_total_; }
  // Calls issued from replayed rows (trace traffic and spec.auditLog).
  std::int64_t replayed_calls() const { return replayed_calls_; }
  // With WorldOptions::input_sha256: (file, SHA-256) of each file a replay took its digest
  // of as it read, the rest of the file read now. Once, after the run: the replays are spent.
  std::vector<std::pair<std::string, std::string>> InputSha256s();
  // The call slots made so far: at least the most calls that were pending at once (issued
  // and not finished: waiting in a client's rate limiter, in flight, or backing off). The
  // world's memory grows with it.
  std::uint64_t call_slots() const { return calls_.size(); }
  // The calls pending now, by client index.
  std::vector<std::uint64_t> PendingCallsByClient() const;

  int replica_count() const { return static_cast<int>(replicas_.size()); }
  apf::FlowControl& flow_control(int replica);
  const apf::FlowControl& flow_control(int replica) const;
  const LevelTimeline& level_timeline(int replica, int level) const;
  int client_count() const;
  const ClientSpec& client_spec(int client) const;
  const ClientTimeline& client_timeline(int client) const;
  // Call errors by message, as client-go builds them, with counts (for the summary).
  const std::vector<std::pair<std::string, std::uint64_t>>& client_errors(int client) const;
  // Event writes EventRateLimit refused, over every replica (Apiserver::event_refusals).
  Apiserver::EventRefusals event_refusals() const;
  // A client's attempts that reached a priority level, by level and FlowSchema (""
  // when none classified it: MaxInFlight, or APF's mandatory exempt path), in level then
  // FlowSchema order, over every replica.
  struct LevelAttempts {
    std::string_view level, flow_schema;
    std::uint64_t attempts = 0;
  };
  std::vector<LevelAttempts> client_levels(int client) const;
  // What a dump_requests row needs about a request the filter holds: who sent what.
  struct RequestDetails {
    const apf::UserInfo* user = nullptr;
    const apf::RequestInfo* request = nullptr;
    int flow_schema = -1;
    std::uint64_t flow_hash = 0;
  };
  std::optional<RequestDetails> DetailsOf(std::uint64_t request_id) const;
  const FlowMetrics& flow_metrics() const { return metrics_; }
  const Scenario& scenario() const { return scenario_; }
  // The current per-flow-schema gauges of every (replica, level, flow schema) holding a
  // request now (APF only): executing (seats held through the additional latency
  // included, as queueset.go counts them until finishRequestLocked) or waiting.
  std::map<FlowMetrics::Key, FlowMetrics::Gauges> CurrentFlowGauges() const;

 private:
  struct Replica;
  struct Client;
  struct Process;
  struct Generator;
  struct Call;
  struct Attempt;
  struct ReplayRequest;
  struct ReplayShape;
  struct ReplayNames;
  struct SentRequest;
  struct InformerRequestShape;
  class DispatchListener;

  // Event kinds; arg32 and arg64 are documented per kind in world.cc.
  enum EventKind : std::uint32_t {
    kGenerate,
    kCallWake,
    kCallAbort,
    kWaitTimeout,
    kExecDone,
    kBackendDone,
    kSeatRelease,
    kGatewayTimeout,
    kWatchEnd,
    kAdjust,
    kInterval,
    kDump,
    kObjectPoll,
    kGatewayCut,
    kScenarioEvent,  // spec.events[arg32]; arg64 1: a restart's start
  };

  void HandleEvent(apf::Nanos now, const Event& event) override;
  // HandleEvent's parts: the events of an instant that ends report intervals, and the
  // kinds other than a generator's turn and a handler's return (see HandleEvent).
  void HandleEventAtIntervalEnd(apf::Nanos now, const Event& event);
  void HandleUncommonEvent(apf::Nanos now, const Event& event);
  // spec.events[index] at `now`: a `resources` event replaces the named entries of the
  // resources, an `apply` or `delete` reconfigures the filters; on every replica.
  void RunScenarioEvent(apf::Nanos now, std::uint32_t index, bool restart_start);
  // The filters take event `index`'s configuration (FlowControl::Reconfigure); the
  // processes' subject masks and the classification memo are made anew for the new
  // classifier, and the timelines take the new limits.
  void ReconfigureFlowControl(apf::Nanos now, std::uint32_t index);
  // `stop`, `start` and `restart` (doc/model.md#replica-restarts). A stop fails the
  // replica's attempts in flight as a broken connection (each call's client-go retry
  // decides what follows), ends its watches, moves its sticky connections and leaves it
  // with an empty filter; a start gives it a new filter built at that instant from the
  // configuration in force.
  void StopReplica(apf::Nanos now, int r);
  void StartReplica(apf::Nanos now, int r);
  // Replica `r` is replaced by a new one built at `now` (its earlier self is kept, as
  // answers may point into it), with the timelines carried over.
  void RenewReplica(apf::Nanos now, int r);
  // The attempt slot a reference names, or -1 when it is gone or reused.
  int AttemptOf(std::uint64_t ref) const;

  void Build();
  void BuildClients();
  inline void ScheduleGenerator(int g, apf::Nanos after);  // in world_state.h
  void OnGenerate(apf::Nanos now, int g);
  // Issues what a traffic pattern decided and schedules its next run.
  void ApplyTraffic(apf::Nanos now, int g, const TrafficStep& step);
  // The informer pattern: issues what its reflector decided (sim/world/informer.h), or
  // schedules its wake.
  void ApplyInformer(apf::Nanos now, int g, const InformerStep& step);
  const CompiledRequest& InformerRequestFor(int g, const InformerRequest& request);

  // Calls.
  // `informer`: what an informer's request writes into the call (its continue token or
  // watch timeout). `namespace_draw` is a traffic pattern's draw, or for a replayed
  // shape's call (CompiledRequest::names_per_call) its slot in replay_names_.
  int IssueCall(apf::Nanos now, int process, const CompiledRequest& request, int generator,
                std::uint64_t namespace_draw, int replay_request = -1,
                const InformerRequest* informer = nullptr);
  // Replay (trace traffic, spec.auditLog): a generator that issues a source's rows.
  void AddReplay(std::unique_ptr<ReplaySource> source, const TrafficSpec* traffic, int client);
  void IssueReplayed(apf::Nanos now, int g);
  int ReplayShapeOf(Replay& replay, ReplayRow& row, const ClientSpec& spec);
  void CompileReplayed(Replay& replay, ReplayRow& row, const ClientSpec& spec,
                       RequestTemplate* tmpl, CompiledRequest* compiled);
  // --trace: whether an attempt is traced, and its line when it ends.
  void EmitTrace(int attempt);
  // A call's steps take the call with its slot `c`, as the attempt's do.
  void ApplyStep(apf::Nanos now, Call& call, int c, const CallStep& step);
  void SendAttempt(apf::Nanos now, Call& call, int c, const CallStep& step);
  // The request a call sends, written out for one attempt into a slot of sent_requests_
  // (the attempt holds it until released), or into `out`.
  std::uint32_t WriteSentRequest(const Call& call, const CompiledRequest& request);
  void WriteRequestOf(const Call& call, const CompiledRequest& request,
                      apf::RequestInfo* out) const;
  const apf::RequestInfo& SentRequestOf(const Attempt& attempt) const;
  void ReleaseSentRequest(std::uint32_t slot);
  // The server-side steps take the attempt found by its slot `ai` (it is looked up once
  // per event, not at every step).
  void DeliverResponse(apf::Nanos now, Attempt& a, int ai, const HttpResponse& response);
  void FinishCall(apf::Nanos now, Call& call, int c);
  // FinishCall's parts: a failed call's error counted by its message, the end of an
  // informer's call, and the call's slot given back.
  void CountCallError(const Call& call, Client& client);
  void FinishInformerCall(apf::Nanos now, Call& call, int c, bool ok);
  void ReleaseCall(Call& call, int c);
  void WriteFinishedRequest(const Call& call);
  void OnCallAbort(apf::Nanos now, int call);

  // Server side.
  void OnAdmitted(apf::Nanos now, Attempt& a, int ai, const apf::Admission& admission);
  void RefuseInvalidTimeout(apf::Nanos now, Attempt& a, int ai);
  void StartExecution(apf::Nanos now, Attempt& a, int ai);
  void OnExecDone(apf::Nanos now, Attempt& a, int ai);
  void OnWaitTimeout(apf::Nanos now, int attempt);
  void ReleaseAttempt(Attempt& a, int ai);
  void ReleaseAttempt(int attempt);
  void ReleaseAttemptUncounted(int attempt);  // an attempt that never reached a replica
  // The gateway's bounds for a session's attempt; false when it refused it (answered).
  bool PassGateway(apf::Nanos now, int attempt);
  void LeaveGateway(Attempt& attempt);
  void OnGatewayCut(apf::Nanos now, int attempt, GatewayCut cut);
  HttpResponse GatewayAnswer(apf::Nanos now, Attempt& attempt, int ai);
  void EndWatch(apf::Nanos now, int attempt);
  // Inline (defined in world.cc, its only user): a request notes its level twice.
  inline void NoteLevel(apf::Nanos now, int replica, int level);
  // The one place a rejection is counted (timelines, metrics) and written on the attempt:
  // refused on arrival, or `queued` and then timed out. Frees the attempt's level.
  void RecordRejection(apf::Nanos now, Attempt& attempt, apf::RejectReason why, bool queued);
  void ScheduleBackend(int replica);
  Client& ClientOf(const Attempt& attempt);
  CallContext ContextOf(const Call& call) const;
  const CompiledRequest& RequestOf(const Call& call) const;

  void OnInterval(apf::Nanos now);

  std::uint64_t Ref(std::uint32_t slot, std::uint32_t generation) const {
    return (static_cast<std::uint64_t>(generation) << 32) | slot;
  }

  const Scenario& scenario_;
  const apf::FlowControlConfig* config_;
  WorldOptions options_;
  WorldObserver* observer_;
  Engine engine_;
  ServiceTimeModel service_time_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Client> clients_;
  std::vector<Process> processes_;
  std::vector<Generator> generators_;
  std::vector<std::unique_ptr<CompiledRequest>> requests_;
  // The FlowSchema each (request, subject class) chose; null with APF off.
  std::unique_ptr<ClassificationMemo> classification_memo_;
  // The filters' notes (apf::FlowRef) for the flows of drawn namespaces, two per replica,
  // resource and namespace: a flow distinguished by namespace skips the lookup by
  // distinguisher, as a user's ByUser flow does with Process::user_flow. Two, because one
  // namespace is reached through a few FlowSchemas (a controller's, workloads').
  struct NamespaceFlowNotes {
    apf::FlowRef notes[2];
  };
  std::vector<NamespaceFlowNotes> namespace_flow_notes_;  // replica-major
  // spec.resources as changed by the `resources` events so far; the replicas read it once
  // the first such event has run (scenarios/README.md#events). Empty without events.
  std::vector<ResourceSpec> resources_now_;
  std::vector<std::size_t> namespace_note_offset_;  // per resource, within a replica
  std::size_t namespace_notes_per_replica_ = 0;
  // The note for `flow_schema`'s flow of namespace `namespace_index` of `resource` in
  // replica `replica`'s filter; the other FlowSchema's note is kept, an older one dropped.
  apf::FlowRef* NamespaceFlowNote(int replica, int resource, std::uint32_t namespace_index,
                                  int flow_schema);
  std::vector<std::unique_ptr<InformerRequestShape>> informer_requests_;
  SlotPool<Call> calls_;
  SlotPool<Attempt> attempts_;
  // The request each attempt in flight sent. A call does not hold its request written out:
  // most calls at any instant wait (for a token, a Retry-After), and a written request
  // costs half a kilobyte of strings.
  SlotPool<SentRequest> sent_requests_;
  // Free slots by the request they held (CompiledRequest::id): a slot reused for the same
  // request already holds its strings, so sending an attempt copies none of them.
  std::vector<std::vector<std::uint32_t>> free_sent_by_request_;
  apf::RequestInfo finished_request_;  // FinishCall's scratch
  std::uint64_t attempts_total_ = 0;
  std::uint64_t calls_total_ = 0;
  // Each live call's number in the run (by call slot), for --trace's lines; empty unless
  // --trace is on, so that a waiting call does not carry it.
  std::vector<std::uint64_t> call_serials_;
  SlotPool<ReplayRequest> replay_requests_;
  std::vector<std::unique_ptr<ReplayShape>> replay_shapes_;  // compiled in requests_
  SlotPool<ReplayNames> replay_names_;
  std::int64_t replayed_calls_ = 0;
  std::map<std::string, int> audit_clients_;  // identity key -> client (spec.auditLog)
  TrafficSpec audit_traffic_;
  int trace_client_ = -1;  // --trace names this client, or
  int trace_level_ = -2;   // this priority level (index in the configuration); -2: none
  bool tracing_ = false;   // either
  LoadBalancer load_balancer_;
  // The flow-control configuration in force (config_, or an event's).
  const apf::FlowControlConfig* config_now_ = config_;
  // Replicas replaced at a stop or a start (RenewReplica): an answer's body and the
  // event refusals counted point into them.
  std::vector<std::unique_ptr<Replica>> retired_replicas_;
  std::unique_ptr<Random> reconnect_rng_;  // LoadBalancer::Reconnect's, from the first stop
  apf::Nanos interval_start_ = 0;
  // interval_start_ + the scenario's interval, kept so that every event's check for a
  // closed interval reads one field.
  apf::Nanos interval_end_ = scenario_.interval;
  // A client's attempts per (level, flow schema) are counted at level * this + flow schema
  // + 1 (Client::level_attempts).
  int flow_schema_slots_ = 1;
  FlowMetrics metrics_;
  Gateway gateway_;

 public:
  const GatewayCounts& gateway() const { return gateway_.counts(); }
};

}  // namespace sim

#endif  // SIM_WORLD_WORLD_H_
