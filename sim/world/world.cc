#include "sim/world/world.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>

#include "apf/classification/long_running.h"
#include "apf/estimation/work_estimator.h"
#include "sim/io/duration.h"
#include "sim/world/world_state.h"

namespace sim {

// Event arguments by kind:
//   kGenerate        arg32: generator
//   kCallWake        arg32: call slot     (a token wait or a Retry-After sleep ended;
//                                          posted: a waiting call is never cancelled)
//   kCallAbort       arg64: call ref      (the client gives up on its attempt)
//   kWaitTimeout     arg64: attempt ref   (the APF queue-wait deadline)
//   kExecDone        arg64: attempt ref   (the handler returned; no backend model)
//   kBackendDone     arg32: replica       (the backend's earliest completion)
//   kSeatRelease     arg64: attempt ref   (the additional latency ended)
//   kGatewayTimeout  arg64: attempt ref   (the request timeout: 504 to the client)
//   kWatchEnd        arg64: attempt ref   (an open watch ends)
//   kGatewayCut      arg64: attempt ref   (the gateway cuts the response short)
//   kAdjust          arg32: replica       (the 10-second re-division of seats)
//   kInterval        (a report interval ends)
//   kDump            arg32: dump index
//   kObjectPoll      arg32: replica       (the object-count tracker's periodic refresh)
// A ref is (generation << 32 | slot); a stale ref (its slot reused) is ignored.

void World::DispatchListener::OnDispatched(apf::Nanos now, std::uint64_t id) {
  const std::uint32_t slot = static_cast<std::uint32_t>(id);
  Attempt& a = world_->attempts_[slot];
  assert(a.live && a.generation == static_cast<std::uint32_t>(id >> 32));
  world_->engine_.Cancel(a.timeout);
  a.dispatched = now;
  world_->replicas_[replica_]->timelines[a.handle.level].OnDispatched(now - a.arrived, a.seats);
  world_->metrics_.At(replica_, a.handle.level, a.flow_schema).dispatched++;
  world_->metrics_.At(replica_, a.handle.level, a.flow_schema)
      .wait_executed.Observe(now - a.arrived);
  world_->ClientOf(a).timeline.OnQueueWait(now - a.arrived);
  world_->StartExecution(now, a, static_cast<int>(slot));
  world_->NoteLevel(now, replica_, a.handle.level);
}

void World::IssueReplayed(apf::Nanos now, int g) {
  Replay& replay = *generators_[g].replay;
  const int client = replay.client();
  if (client >= 0) {
    ReplayRow& row = replay.pending();
    const ClientSpec& spec = *clients_[client].spec;
    const int process = replay.TakeProcess(clients_[client].first_process, spec.processes);
    ++replayed_calls_;
    const int shape = ReplayShapeOf(replay, row, spec);
    if (shape >= 0) {
      const std::uint32_t names = replay_names_.Acquire();
      replay_names_[names].namespace_name.assign(row.namespace_name);
      replay_names_[names].name.assign(row.name);
      IssueCall(now, process, *requests_[static_cast<std::size_t>(shape)], -1, names, -1);
    } else {
      const std::uint32_t slot = replay_requests_.Acquire();
      ReplayRequest& r = replay_requests_[slot];
      CompileReplayed(replay, row, spec, &r.tmpl, &r.compiled);
      IssueCall(now, process, r.compiled, -1, 0, static_cast<int>(slot));
    }
  }
  if (replay.Next()) ScheduleGenerator(g, replay.pending().at);
}

// The pending row's request, taken into `tmpl` and compiled with its client's options.
void World::CompileReplayed(Replay& replay, ReplayRow& row, const ClientSpec& spec,
                            RequestTemplate* tmpl, CompiledRequest* compiled) {
  if (row.request_deferred) replay.source().FillRequest(&row);
  std::swap(*tmpl, row.request);
  CompileRequest(*tmpl, scenario_, service_time_, compiled);
  compiled->call_options.max_retries = spec.client_go.max_retries;
  compiled->call_options.timeout_ns = spec.client_go.timeout;
}

// A replayed row with a shape (ReplayRow::shape) sends the world's request of that shape,
// compiled at its first row; its namespace and name are the call's (ReplayNames). -1: the
// row has none, or the replay's shapes are all taken, and it compiles on its own.
int World::ReplayShapeOf(Replay& replay, ReplayRow& row, const ClientSpec& spec) {
  if (row.shape.empty()) return -1;
  if (const int* id = replay.FindShape(row.shape)) return *id;
  if (replay.shapes_full()) return -1;
  auto shape = std::make_unique<ReplayShape>();
  shape->key.assign(row.shape);
  auto compiled = std::make_unique<CompiledRequest>();
  CompileReplayed(replay, row, spec, &shape->tmpl, compiled.get());
  const int id = static_cast<int>(requests_.size());
  compiled->id = id;
  compiled->names_per_call = true;
  replay.AddShape(shape->key, id);
  requests_.push_back(std::move(compiled));
  free_sent_by_request_.emplace_back();
  replay_shapes_.push_back(std::move(shape));
  return id;
}

void World::OnGenerate(apf::Nanos now, int g) {
  Generator& gen = generators_[g];
  if (gen.replay) {
    IssueReplayed(now, g);
  } else if (gen.informer) {
    ApplyInformer(now, g, gen.informer->OnTimer(now));
  } else {
    ApplyTraffic(now, g, gen.traffic.Generate(now, gen.rng));
  }
}

inline void World::ApplyTraffic(apf::Nanos now, int g, const TrafficStep& step) {
  const Generator& gen = generators_[g];
  if (step.call >= 0) IssueCall(now, gen.process, *gen.calls[step.call], g, step.namespace_draw);
  if (step.next != apf::kNever) ScheduleGenerator(g, step.next);
}

// The informer pattern: a client-go reflector (sim/world/informer.h) whose requests run
// as ordinary calls. Nothing is sent from the pattern's `stop` on.
void World::ApplyInformer(apf::Nanos now, int g, const InformerStep& step) {
  const Generator& gen = generators_[g];
  switch (step.action) {
    case InformerAction::kSend:
      if (now >= gen.spec->stop) return;
      IssueCall(now, gen.process, InformerRequestFor(g, step.request), g, 0, -1, &step.request);
      break;
    case InformerAction::kWakeAt:
      ScheduleGenerator(g, step.wake_at_ns);
      break;
    case InformerAction::kWatching:
      break;
  }
}

const CompiledRequest& World::InformerRequestFor(int g, const InformerRequest& request) {
  const Generator& gen = generators_[g];
  for (const auto& shape : informer_requests_) {
    if (shape->spec == gen.spec && shape->watch == request.watch && shape->query == request.query)
      return *shape->compiled;
  }
  auto shape = std::make_unique<InformerRequestShape>();
  shape->spec = gen.spec;
  shape->watch = request.watch;
  shape->query = request.query;
  shape->tmpl = *gen.calls[0]->tmpl;  // the pattern's resource (the loader's LIST)
  shape->tmpl.verb = request.watch ? "watch" : "list";
  shape->tmpl.query = request.query;
  auto compiled = std::make_unique<CompiledRequest>();
  CompileRequest(shape->tmpl, scenario_, service_time_, compiled.get());
  compiled->id = static_cast<int>(requests_.size());
  compiled->call_options.max_retries = gen.calls[0]->call_options.max_retries;
  compiled->call_options.timeout_ns = gen.calls[0]->call_options.timeout_ns;
  shape->compiled = compiled.get();
  requests_.push_back(std::move(compiled));
  free_sent_by_request_.emplace_back();
  informer_requests_.push_back(std::move(shape));
  return *informer_requests_.back()->compiled;
}

int World::IssueCall(apf::Nanos now, int process, const CompiledRequest& request, int generator,
                     std::uint64_t namespace_draw, int replay_request,
                     const InformerRequest* informer) {
  const std::uint32_t slot = calls_.Acquire();
  Call& call = calls_[slot];
  call.process = process;
  call.generator = generator;
  assert(replay_request >= 0 || request.id >= 0);
  call.request = replay_request >= 0 ? -1 - replay_request : request.id;
  ++calls_total_;
  if (tracing_) {
    if (slot >= call_serials_.size()) call_serials_.resize(slot + 1);
    call_serials_[slot] = calls_total_;
  }
  call.issued = now;
  call.attempt = -1;
  call.namespace_index = request.names_per_call
                             ? static_cast<std::uint32_t>(namespace_draw)
                             : NamespaceIndexOf(request, scenario_, namespace_draw);
  if (informer) generators_[generator].informer_request = *informer;
  const Process& proc = processes_[process];
  const CallContext context{request.call_options, proc.bucket.get()};
  std::construct_at(&call.client, context);
  clients_[proc.client].timeline.OnCall();
  ApplyStep(now, call, static_cast<int>(slot), call.client.Start(context, now));
  return static_cast<int>(slot);
}

void World::ApplyStep(apf::Nanos now, Call& call, int c, const CallStep& step) {
  switch (step.action) {
    case CallAction::kWait:
      // Posted, not scheduled: nothing ends a wait early, and a posted event costs a
      // sleeping call 16 bytes instead of 48.
      engine_.Post(std::max(step.wake_at_ns, now), static_cast<std::uint32_t>(c));
      break;
    case CallAction::kSend:
      SendAttempt(now, call, c, step);
      break;
    case CallAction::kDone:
      FinishCall(now, call, c);
      break;
  }
}

inline void World::WriteRequestOf(const Call& call, const CompiledRequest& request,
                                  apf::RequestInfo* out) const {
  WriteCallRequest(request, scenario_, processes_[call.process].index, call.namespace_index, out);
  // Only the informer pattern's generator issues calls with an informer request.
  if (call.generator >= 0) {
    if (generators_[call.generator].informer) {
      const InformerRequest& informer = generators_[call.generator].informer_request;
      out->query.continue_token = informer.continue_token;
      if (informer.watch) out->query.timeout_seconds = informer.timeout_seconds;
    }
  } else if (request.names_per_call) {
    // A replayed shape's call: its row's namespace, and its name, or the one the shape
    // took from a selector (CompileRequest) when the row has none.
    const ReplayNames& names = replay_names_[call.namespace_index];
    out->namespace_name = names.namespace_name;
    out->name = names.name.empty() ? request.info.name : names.name;
  }
}

inline std::uint32_t World::WriteSentRequest(const Call& call, const CompiledRequest& request) {
  std::uint32_t slot;
  if (request.id >= 0 && !free_sent_by_request_[request.id].empty()) {
    slot = free_sent_by_request_[request.id].back();
    free_sent_by_request_[request.id].pop_back();
  } else {
    slot = sent_requests_.Acquire();
    sent_requests_[slot].request_id = request.id;
    sent_requests_[slot].info = request.info;
  }
  WriteRequestOf(call, request, &sent_requests_[slot].info);
  return slot;
}

void World::SendAttempt(apf::Nanos now, Call& call, int c, const CallStep& step) {
  const CompiledRequest& request = RequestOf(call);
  const Process& proc = processes_[call.process];
  const std::uint32_t slot = attempts_.Acquire();
  Attempt& a = attempts_[slot];
  const std::uint32_t generation = a.generation;
  // A fresh attempt built in place: assigning Attempt{} would build a temporary and
  // move every field of it.
  std::destroy_at(&a);
  std::construct_at(&a);
  a.generation = generation;
  a.live = true;
  a.call = c;
  a.call_generation = call.generation;
  a.generator = call.generator;
  a.replica = load_balancer_.Pick(proc.replica, clients_[proc.client].spec->replica >= 0);
  a.arrived = now;
  a.try_number = step.attempt;
  a.watch = request.is_watch;
  a.process = call.process;
  a.call_serial = tracing_ ? call_serials_[c] : 0;
  a.sent = WriteSentRequest(call, request);
  const apf::RequestInfo& sent = SentRequestOf(a);
  // The window and the sample are decided at arrival; an attempt they leave out is not
  // traced at all (trace_info is what OnAdmitted reads as "may be traced at its level").
  if (tracing_ && options_.trace_filter.AtArrival(now, a.call_serial)) {
    a.traced = trace_client_ == proc.client;
    if (a.traced || trace_level_ >= 0) a.trace_info = std::make_unique<Attempt::TracedRequest>();
  }
  call.attempt = static_cast<int>(slot);
  ++attempts_total_;
  clients_[proc.client].timeline.OnAttempt();
  if (step.abort_at_ns != apf::kNever) {
    a.abort =
        engine_.At(std::max(step.abort_at_ns, now), Event{kCallAbort, 0, Ref(c, call.generation)});
  }
  if (clients_[proc.client].spec->via_gateway && !PassGateway(now, static_cast<int>(slot))) return;
  Replica& rep = *replicas_[a.replica];
  load_balancer_.Arrived(a.replica);
  std::optional<apf::Nanos> user_timeout = request.query_timeout;
  if (step.timeout_param_ns > 0) user_timeout = step.timeout_param_ns;
  // client-go's own ?timeout= replaces the template's (Request.URL). A long-running
  // request's ?timeout= is never read (request_deadline.go withRequestDeadline).
  if (request.query_timeout_malformed && step.timeout_param_ns <= 0 && !request.long_running) {
    RefuseInvalidTimeout(now, a, static_cast<int>(slot));
    return;
  }
  a.user_timeout = user_timeout.value_or(0);
  apf::StartHints hints;
  hints.estimate = request.tmpl->seats ? &*request.tmpl->seats : nullptr;
  apf::Classification classification;
  if (rep.flow_control->classifier()) {
    hints.subjects = &proc.subjects;
    if (proc.subject_class >= 0 && request.id >= 0) {
      classification = classification_memo_->Classify(request.id, proc.subject_class, proc.user,
                                                      sent, proc.subjects);
      hints.classification = &classification;
      if (classification.distinguished_by_user) {
        Process& user = processes_[call.process];
        if (user.user_flow_replica != a.replica) {
          user.user_flow_replica = a.replica;
          user.user_flow = apf::FlowRef{};
        }
        hints.flow = &user.user_flow;
      } else if (classification.uses_flow_hash && DrawsNamespace(request, scenario_)) {
        // A drawn namespace: a ByNamespace flow's distinguisher (any other FlowSchema that
        // hashes flows has one distinguisher for all its requests, "").
        hints.flow = NamespaceFlowNote(a.replica, request.resource, call.namespace_index,
                                       classification.flow_schema);
      }
    }
  }
  const apf::Admission admission =
      rep.flow_control->Start(now, Ref(slot, a.generation), proc.user, sent, user_timeout, hints);
  OnAdmitted(now, a, static_cast<int>(slot), admission);
}

// WithRequestDeadline answers a ?timeout= that is not a Go duration 400, before
// authentication and APF (request_deadline.go parseTimeout): nothing is classified or
// counted at a level.
void World::RefuseInvalidTimeout(apf::Nanos now, Attempt& a, int ai) {
  const CompiledRequest& request = RequestOf(calls_[a.call]);
  a.outcome = "rejected";
  a.reason = "invalid-timeout";
  DeliverResponse(now, a, ai,
                  replicas_[a.replica]->server.InvalidTimeout(request.info.query.timeout));
  ReleaseAttempt(a, ai);
}

inline apf::FlowRef* World::NamespaceFlowNote(int replica, int resource,
                                              std::uint32_t namespace_index, int flow_schema) {
  NamespaceFlowNotes& n =
      namespace_flow_notes_[static_cast<std::size_t>(replica) * namespace_notes_per_replica_ +
                            namespace_note_offset_[static_cast<std::size_t>(resource)] +
                            namespace_index];
  if (n.notes[0].flow_schema == flow_schema) return &n.notes[0];
  if (n.notes[1].flow_schema == flow_schema) return &n.notes[1];
  n.notes[1] = n.notes[0];
  n.notes[0] = apf::FlowRef{};  // empty: the filter looks the flow up and fills it in
  return &n.notes[0];
}

bool World::PassGateway(apf::Nanos now, int ai) {
  Attempt& a = attempts_[ai];
  Process& proc = processes_[a.process];
  const bool stream = a.watch && clients_[proc.client].spec->gateway_streams;
  const GatewayVerdict verdict = gateway_.Enter(now, *proc.session_bucket, proc.session, stream);
  if (verdict.passed) {
    a.via_gateway = true;
    a.gateway_stream = stream;
    const GatewayCutAt cut = gateway_.CutOf(now, proc.session, stream);
    if (cut.at != apf::kNever) {
      a.gateway_cut = engine_.At(cut.at, Event{kGatewayCut, static_cast<std::uint32_t>(cut.cut),
                                               Ref(static_cast<std::uint32_t>(ai), a.generation)});
    }
    return true;
  }
  clients_[proc.client].timeline.OnGatewayRefused(static_cast<int>(verdict.why));
  a.answered = false;
  a.handle.level = -1;
  a.outcome = "rejected";
  a.reason = verdict.reason;
  DeliverResponse(now, a, ai, verdict.refusal);
  a.live = true;
  ReleaseAttemptUncounted(ai);
  return false;
}

// The gateway cuts a response short (doc/gateway.md#cutting-a-response-short): it cancels
// its request to the apiserver, which releases the watch (or the request's place in its
// queue) at once, and aborts the response to the browser, which sees a broken connection.
void World::OnGatewayCut(apf::Nanos now, int ai, GatewayCut cut) {
  Attempt& a = attempts_[ai];
  if (!a.via_gateway) return;
  gateway_.CountCut(cut);
  ClientOf(a).timeline.OnGatewayCut(static_cast<int>(cut) - 1);
  if (a.traced) a.reason = GatewayCutName(cut);
  if (a.watch_open) {
    LeaveGateway(a);
    EndWatch(now, ai);
    return;
  }
  // Not answered yet: queued at APF it leaves its queue as a cancelled request does; a
  // handler that runs on holds its seats until it returns (the world cannot stop it).
  int retry_after = 0;
  if (a.handle.valid() && !a.executing &&
      replicas_[a.replica]->flow_control->TimeOut(now, a.handle, &retry_after)) {
    engine_.Cancel(a.timeout);
    RecordRejection(now, a, apf::RejectReason::kTimeOut, /*queued=*/true);
  }
  LeaveGateway(a);
  Call& call = calls_[a.call];
  a.answered = true;
  if (a.traced) {
    a.outcome = "canceled";
    a.answered_at = now;
  }
  if (call.live() && call.generation == a.call_generation && call.attempt == ai) {
    call.attempt = -1;
    engine_.Cancel(a.abort);
    ReleaseAttempt(ai);
    ApplyStep(now, call, a.call,
              call.client.OnTransportError(ContextOf(call), now, TransportError::kConnectionReset));
    return;
  }
  ReleaseAttempt(ai);
}

void World::OnAdmitted(apf::Nanos now, Attempt& a, int ai, const apf::Admission& admission) {
  Replica& rep = *replicas_[a.replica];
  a.handle = admission.handle;
  a.flow_schema = admission.flow_schema;
  a.flow_hash = admission.flow_hash;
  a.seats = static_cast<int>(admission.estimate.MaxSeats());
  const int level = admission.handle.level;
  Client& client = ClientOf(a);
  if (level >= 0) {
    ++client.level_attempts[static_cast<std::size_t>(level) * flow_schema_slots_ +
                            (a.flow_schema + 1)];
  }
  a.queue = admission.queue;
  a.estimate = admission.estimate;
  if (trace_level_ >= 0 && level == trace_level_ && a.trace_info) a.traced = true;
  if (!a.traced) {
    a.trace_info.reset();
  } else if (const apf::Classifier* classifier = rep.flow_control->classifier();
             classifier && a.flow_schema >= 0) {
    // The flow's distinguisher as the classifier gives it (the filter keeps only the hash).
    const Process& proc = processes_[a.process];
    a.trace_info->distinguisher =
        classifier->Classify(apf::MakeRequestDigest(proc.user, SentRequestOf(a)), proc.subjects)
            .distinguisher;
  }
  using Outcome = apf::Admission::Outcome;
  switch (admission.outcome) {
    case Outcome::kRejected: {
      RecordRejection(now, a, admission.reason, /*queued=*/false);
      a.outcome = "rejected";
      DeliverResponse(now, a, ai, Apiserver::TooManyRequests(admission.retry_after_seconds));
      ReleaseAttempt(a, ai);
      return;
    }
    case Outcome::kBypass:
      client.timeline.OnQueueWait(0);
      a.dispatched = now;
      StartExecution(now, a, ai);
      return;
    case Outcome::kExecuting:
      client.timeline.OnQueueWait(0);
      if (level >= 0) {
        rep.timelines[level].OnDispatched(0, a.seats);
        if (rep.flow_control->apf_enabled()) {
          FlowMetrics::Series& m = metrics_.At(a.replica, level, a.flow_schema);
          m.dispatched++;
          m.wait_executed.Observe(0);
        }
        NoteLevel(now, a.replica, level);
      }
      a.dispatched = now;
      StartExecution(now, a, ai);
      return;
    case Outcome::kWaiting:
      a.timeout =
          engine_.At(admission.wait_deadline, Event{kWaitTimeout, 0, Ref(ai, a.generation)});
      NoteLevel(now, a.replica, level);
      return;
  }
}

void World::RecordRejection(apf::Nanos now, Attempt& a, apf::RejectReason why, bool queued) {
  const apf::RejectReason reason = CountedRejectReason(why);
  const int level = a.handle.level;
  if (queued) ClientOf(a).timeline.OnQueueWait(now - a.arrived);
  if (level >= 0) {
    Replica& rep = *replicas_[a.replica];
    rep.timelines[level].OnRejected(reason);
    NoteLevel(now, a.replica, level);
    // A request refused on arrival is counted only by APF's metrics (MaxInFlight has
    // none); one that waited left an APF queue.
    if (queued || rep.flow_control->apf_enabled()) {
      FlowMetrics::Series& m = metrics_.At(a.replica, level, a.flow_schema);
      m.rejected[static_cast<int>(reason)]++;
      // A time-out's wait is labelled execute="true": a quirk (doc/model.md#request-flow).
      if (queued) {
        m.wait_executed.Observe(now - a.arrived);
      } else {
        m.wait_rejected.Observe(0);
      }
    }
  }
  a.handle.level = -1;  // nothing held
  a.reason = apf::RejectReasonName(reason);
}

void World::StartExecution(apf::Nanos now, Attempt& a, int ai) {
  Replica& rep = *replicas_[a.replica];
  const Call& call = calls_[a.call];
  a.executing = true;
  const apf::RequestInfo& sent = SentRequestOf(a);
  if (a.watch) a.registration = rep.flow_control->watches().RegisterWatch(sent);
  const Execution e = rep.server.Execute(now, a.arrived, a.user_timeout, RequestOf(call), sent,
                                         processes_[call.process].user.name);
  a.event_refusal = e.event_refusal;
  const std::uint64_t ref = Ref(ai, a.generation);
  if (rep.backend) {
    rep.backend->Start(now, ref, e.service);
    ScheduleBackend(a.replica);
  } else {
    engine_.At(now + e.service, Event{kExecDone, 0, ref});
  }
  // The queue-wait deadline's handle is spent once dispatched; it now names the 504.
  if (e.timeout_at != apf::kNever)
    a.timeout = engine_.At(e.timeout_at, Event{kGatewayTimeout, 0, ref});
}

void World::ScheduleBackend(int r) {
  Replica& rep = *replicas_[r];
  engine_.Cancel(rep.backend_event);
  const apf::Nanos next = rep.backend->NextCompletionTime();
  if (next != apf::kNever) {
    rep.backend_event = engine_.At(std::max(next, engine_.now()),
                                   Event{kBackendDone, static_cast<std::uint32_t>(r), 0});
  }
}

void World::OnExecDone(apf::Nanos now, Attempt& a, int ai) {
  Replica& rep = *replicas_[a.replica];
  a.executing = false;
  a.finished = now;
  engine_.Cancel(a.timeout);  // a 504 not yet due no longer applies
  if (a.handle.valid() && rep.flow_control->apf_enabled() && a.dispatched >= 0) {
    FlowMetrics::Series& m = metrics_.At(a.replica, a.handle.level, a.flow_schema);
    (a.watch ? m.execution_watch : m.execution_regular).Observe(now - a.dispatched);
  }
  if (a.outcome[0] == '\0') {
    a.outcome = a.event_refusal != nullptr ? "rejected" : "completed";
    if (a.event_refusal != nullptr) a.reason = "EventRateLimit";
  }
  const apf::Nanos release_at = rep.flow_control->Finish(now, a.handle);
  if (a.handle.valid()) NoteLevel(now, a.replica, a.handle.level);
  if (release_at > now) {
    a.pending_release = true;
    engine_.At(release_at, Event{kSeatRelease, 0, Ref(ai, a.generation)});
  }
  const Call& call = calls_[a.call];
  const bool opens_watch = a.watch && a.event_refusal == nullptr && !a.answered;
  if (opens_watch) {
    a.watch_open = true;
    // The handler starts the watch's timeout before its setup (get.go ListResource), so
    // the lifetime counts from the dispatch; setup that outlasts it ends the watch at once.
    apf::Nanos ends_at = std::max(now, a.dispatched + rep.server.WatchLifetime(SentRequestOf(a)));
    // An informer's client closes the stream at its http.Client.Timeout if that comes
    // first (doc/model.md#client-timeouts); the reflector sees a normal end and watches again.
    if (call.generator >= 0 && generators_[call.generator].informer && call.live()) {
      ends_at = std::max(now, std::min(ends_at, call.client.stream_abort_at_ns()));
      // A replica that an event started built its watch cache then, from etcd's current
      // revision: a watch from an older lastSyncResourceVersion gets one event, 410 "too
      // old resource version" (cacher.go Watch: newErrWatcher), and the stream ends.
      if (rep.started_at > 0) {
        const Generator& gen = generators_[call.generator];
        if (gen.informer_request.watch && gen.informer_request.from_last_synced &&
            gen.informer->synced_at_ns() < rep.started_at) {
          a.watch_expired = true;
          ends_at = now;
        }
      }
    }
    engine_.At(ends_at, Event{kWatchEnd, 0, Ref(ai, a.generation)});
  }
  if (!a.answered) {
    DeliverResponse(now, a, ai,
                    a.via_gateway ? GatewayAnswer(now, a, ai)
                                  : Apiserver::Answer(RequestOf(call), a.event_refusal));
  }
  ReleaseAttempt(a, ai);
}

// The apiserver's answer as the gateway passes it on (doc/gateway.md#response-bytes): over
// the byte bound, a 502 when its size is known before it starts, else its response is cut
// short at once (the answer has started; the world counts a watch's initial events as sent
// when they end, and sends no other events).
HttpResponse World::GatewayAnswer(apf::Nanos now, Attempt& a, int ai) {
  const CompiledRequest& request = RequestOf(calls_[a.call]);
  HttpResponse answer = Apiserver::Answer(request, a.event_refusal);
  if (a.event_refusal != nullptr) return answer;
  const apf::RequestInfo& sent = SentRequestOf(a);
  const ListResult list = replicas_[a.replica]->server.ListResultOf(request, sent);
  const std::int64_t known = KnownResponseBytes(request, sent, list, scenario_);
  if (known >= 0 && !request.is_watch) {
    if (!gateway_.OverResponseBytes(known, a.gateway_stream)) {
      gateway_.ObserveBytes(known);  // not a stream: only watches open streams
      return answer;
    }
    ClientOf(a).timeline.OnGatewayRefused(static_cast<int>(GatewayRefusal::kResponseTooLarge));
    if (a.traced) a.reason = "gateway: ResponseTooLarge (response_bytes)";
    return gateway_.ResponseTooLarge();
  }
  if (a.watch_open && !a.gateway_stream) gateway_.ObserveBytes(list.bytes);
  if (a.watch_open && gateway_.OverResponseBytes(list.bytes, a.gateway_stream)) {
    engine_.Cancel(a.gateway_cut);
    a.gateway_cut =
        engine_.At(now, Event{kGatewayCut, static_cast<std::uint32_t>(GatewayCut::kResponseBytes),
                              Ref(static_cast<std::uint32_t>(ai), a.generation)});
  }
  return answer;
}

void World::OnWaitTimeout(apf::Nanos now, int ai) {
  Attempt& a = attempts_[ai];
  Replica& rep = *replicas_[a.replica];
  int retry_after = 1;
  if (!rep.flow_control->TimeOut(now, a.handle, &retry_after)) return;
  RecordRejection(now, a, apf::RejectReason::kTimeOut, /*queued=*/true);
  a.outcome = "rejected";
  DeliverResponse(now, a, ai, Apiserver::TooManyRequests(retry_after));
  ReleaseAttempt(a, ai);
}

void World::DeliverResponse(apf::Nanos now, Attempt& a, int ai, const HttpResponse& response) {
  if (a.answered) return;
  a.answered = true;
  if (a.traced) {
    a.answered_at = now;
    a.status = response.status_code;
    a.retry_after = response.has_retry_after ? response.retry_after_seconds : 0;
  }
  // A watch's response goes on after its start: it holds its place at the gateway until
  // it ends (kWatchEnd or kGatewayCut).
  if (a.via_gateway && !a.watch_open) LeaveGateway(a);
  Call& call = calls_[a.call];
  if (!call.live() || call.generation != a.call_generation || call.attempt != ai) return;
  call.attempt = -1;
  engine_.Cancel(a.abort);
  if (response.status_code == 429) {
    ClientTimeline& timeline = clients_[processes_[call.process].client].timeline;
    timeline.On429();
    // Counted before the call sees it: its first 429 makes it a rejected call.
    if (call.client.http429_responses() == 0) timeline.OnCallRejected();
  }
  ApplyStep(now, call, a.call, call.client.OnResponse(ContextOf(call), now, response));
}

void World::LeaveGateway(Attempt& a) {
  if (!a.via_gateway) return;
  a.via_gateway = false;
  engine_.Cancel(a.gateway_cut);
  // Passed at its arrival (PassGateway), so it has been open since then.
  gateway_.ObserveDuration(engine_.now() - a.arrived);
  // The attempt's process, not its call's: a watch outlives its call.
  gateway_.Leave(processes_[a.process].session, a.gateway_stream);
}

inline void World::ReleaseSentRequest(std::uint32_t slot) {
  const int request_id = sent_requests_[slot].request_id;
  if (request_id >= 0) {
    free_sent_by_request_[request_id].push_back(slot);
  } else {
    sent_requests_.Release(slot);
  }
}

void World::ReleaseAttemptUncounted(int ai) {
  Attempt& a = attempts_[ai];
  if (a.traced) EmitTrace(ai);
  ReleaseSentRequest(a.sent);
  a.live = false;
  ++a.generation;
  attempts_.Release(static_cast<std::uint32_t>(ai));
}

void World::ReleaseAttempt(int ai) { ReleaseAttempt(attempts_[ai], ai); }

void World::ReleaseAttempt(Attempt& a, int ai) {
  if (a.executing || a.pending_release || a.watch_open) return;
  if (!a.live) return;
  if (a.traced) EmitTrace(ai);
  ReleaseSentRequest(a.sent);
  load_balancer_.Left(a.replica);
  a.live = false;
  ++a.generation;
  attempts_.Release(static_cast<std::uint32_t>(ai));
}

void World::OnCallAbort(apf::Nanos now, int c) {
  Call& call = calls_[c];
  if (call.attempt >= 0) {
    Attempt& a = attempts_[call.attempt];
    // The client gives up on the attempt: still queued, it is a time-out at the server.
    int retry_after = 0;
    if (!a.executing && a.handle.valid() &&
        replicas_[a.replica]->flow_control->TimeOut(now, a.handle, &retry_after)) {
      engine_.Cancel(a.timeout);
      RecordRejection(now, a, apf::RejectReason::kTimeOut, /*queued=*/true);
    }
    if (a.traced && !a.answered) {
      a.outcome = "canceled";  // the client gave up (its timeout or context)
      a.answered_at = now;
    }
    a.answered = true;
    LeaveGateway(a);
    const int ai = call.attempt;
    call.attempt = -1;
    ReleaseAttempt(ai);
  }
  ApplyStep(now, call, c, call.client.OnAbortTimer(ContextOf(call), now));
}

std::vector<std::uint64_t> World::PendingCallsByClient() const {
  std::vector<std::uint64_t> pending(clients_.size(), 0);
  for (std::uint32_t c = 0; c < calls_.size(); ++c) {
    if (calls_[c].live()) ++pending[processes_[calls_[c].process].client];
  }
  return pending;
}

void World::FinishCall(apf::Nanos now, Call& call, int c) {
  const CompiledRequest& request = RequestOf(call);
  Client& client = clients_[processes_[call.process].client];
  const bool ok = call.client.outcome() == CallOutcome::kSucceeded;
  client.timeline.OnCallDone(ok, now - call.issued, call.client.token_wait_ns());
  if (!ok) CountCallError(call, client);
  const int g = call.generator;
  if (g >= 0 && generators_[g].informer) return FinishInformerCall(now, call, c, ok);
  const bool was_watch = request.is_watch;
  ReleaseCall(call, c);
  if (g < 0) return;
  Generator& gen = generators_[g];
  const TrafficStep step = gen.traffic.CallDone(now, ok, was_watch, gen.rng);
  if (step.iteration >= 0) client.timeline.OnIteration(step.iteration);
  ApplyTraffic(now, g, step);
}

// The call's request as its attempts sent it, into finished_request_.
void World::WriteFinishedRequest(const Call& call) {
  const CompiledRequest& request = RequestOf(call);
  finished_request_ = request.info;
  WriteRequestOf(call, request, &finished_request_);
}

inline void World::ReleaseCall(Call& call, int c) {
  if (call.generator < 0) {  // a replayed row's call
    if (call.request < 0) {
      replay_requests_.Release(static_cast<std::uint32_t>(-1 - call.request));
    } else {
      replay_names_.Release(call.namespace_index);
    }
  }
  call.process = -1;
  ++call.generation;
  calls_.Release(static_cast<std::uint32_t>(c));
}

// Out of line, as is FinishInformerCall: their strings would give FinishCall a frame that
// every call pays for.
[[gnu::noinline]] void World::CountCallError(const Call& call, Client& client) {
  WriteFinishedRequest(call);  // for the error message
  RequestDescription d;
  d.group = finished_request_.api_group;
  d.resource = finished_request_.resource;
  d.name = finished_request_.name;
  std::string message = call.client.ErrorMessage(ContextOf(call), d);
  auto it = std::find_if(client.errors.begin(), client.errors.end(),
                         [&](const auto& e) { return e.first == message; });
  if (it == client.errors.end()) {
    client.errors.emplace_back(std::move(message), 1);
  } else {
    ++it->second;
  }
}

[[gnu::noinline]] void World::FinishInformerCall(apf::Nanos now, Call& call, int c, bool ok) {
  const CompiledRequest& request = RequestOf(call);
  const int g = call.generator;
  // For the page's continue token, as the apiserver answered it (every replica holds the
  // same objects).
  WriteFinishedRequest(call);
  const InformerCallResult result = InformerCallResultOf(
      call.client, ok && request.is_list
                       ? replicas_[0]->server.ListPageOf(request, finished_request_).continue_token
                       : std::string());
  ReleaseCall(call, c);
  ApplyInformer(now, g, generators_[g].informer->OnCallDone(now, result));
}

inline void World::NoteLevel(apf::Nanos now, int replica, int level) {
  if (level < 0) return;
  Replica& rep = *replicas_[replica];
  const apf::LevelCounts s = rep.flow_control->counts(level);
  rep.timelines[level].SetState(
      now, static_cast<int>(s.executing_requests), static_cast<int>(s.executing_seats),
      static_cast<int>(s.waiting_requests), static_cast<int>(s.waiting_seats));
}

void World::OnInterval(apf::Nanos now) {
  for (auto& rep : replicas_) {
    for (int l = 0; l < rep->flow_control->level_count(); ++l) {
      const apf::LevelState s = rep->flow_control->level(l);
      LevelTimeline& tl = rep->timelines[l];
      tl.SetLimits(s.current_cl, s.nominal_cl);
      tl.SetRetryAfter(s.retry_after_seconds);
      tl.SetMaxSeats(s.max_seats);
      const LevelRow row = tl.CloseInterval(interval_start_, now);
      if (observer_) observer_->OnLevelRow(interval_start_, rep->index, *s.name, row);
    }
  }
  for (Client& c : clients_) {
    const ClientRow row = c.timeline.CloseInterval();
    if (observer_) observer_->OnClientRow(interval_start_, c.spec->name, row);
  }
  interval_start_ = now;
  interval_end_ = now + scenario_.interval;
  if (observer_) observer_->OnIntervalEnd(now);
}

inline int World::AttemptOf(std::uint64_t ref) const {
  const std::uint32_t slot = static_cast<std::uint32_t>(ref);
  const Attempt& a = attempts_[slot];
  return a.live && a.generation == static_cast<std::uint32_t>(ref >> 32) ? static_cast<int>(slot)
                                                                         : -1;
}

void World::HandleEvent(apf::Nanos now, const Event& event) {
  // A dispatcher that only tail-calls, so that it saves no registers and builds no frame:
  // the two kinds every request has go straight to their handlers.
  if (now >= interval_end_) return HandleEventAtIntervalEnd(now, event);
  switch (static_cast<EventKind>(event.kind)) {
    case kGenerate:
      return OnGenerate(now, static_cast<int>(event.arg32));
    case kExecDone:
      if (int ai = AttemptOf(event.arg64); ai >= 0) return OnExecDone(now, attempts_[ai], ai);
      return;
    default:
      return HandleUncommonEvent(now, event);
  }
}

// Not inline: its loop's call would make HandleEvent save registers for every event.
[[gnu::noinline]] void World::HandleEventAtIntervalEnd(apf::Nanos now, const Event& event) {
  // Close every report interval that ends at or before this instant first, so that an
  // interval holds exactly what happened within it whatever else is due at its end.
  while (now >= interval_end_) OnInterval(interval_end_);
  World::HandleEvent(now, event);
}

void World::HandleUncommonEvent(apf::Nanos now, const Event& event) {
  auto call_of = [&](std::uint64_t ref) -> int {
    const std::uint32_t slot = static_cast<std::uint32_t>(ref);
    const Call& c = calls_[slot];
    return c.live() && c.generation == static_cast<std::uint32_t>(ref >> 32)
               ? static_cast<int>(slot)
               : -1;
  };
  switch (static_cast<EventKind>(event.kind)) {
    case kGenerate:
    case kExecDone:
      assert(false && "HandleEvent dispatches these kinds itself");
      break;
    case kCallWake: {
      const int c = static_cast<int>(event.arg32);
      assert(calls_[c].live() && calls_[c].attempt < 0);
      ApplyStep(now, calls_[c], c, calls_[c].client.Wake(ContextOf(calls_[c]), now));
      break;
    }
    case kCallAbort:
      if (int c = call_of(event.arg64); c >= 0) OnCallAbort(now, c);
      break;
    case kWaitTimeout:
      if (int a = AttemptOf(event.arg64); a >= 0) OnWaitTimeout(now, a);
      break;
    case kBackendDone: {
      Replica& rep = *replicas_[event.arg32];
      rep.backend_event = EventHandle{};
      const std::uint64_t ref = rep.backend->CompleteNext(now);
      ScheduleBackend(static_cast<int>(event.arg32));
      if (int ai = AttemptOf(ref); ai >= 0) OnExecDone(now, attempts_[ai], ai);
      break;
    }
    case kSeatRelease:
      if (int ai = AttemptOf(event.arg64); ai >= 0) {
        Attempt& a = attempts_[ai];
        replicas_[a.replica]->flow_control->ReleaseSeats(now, a.handle);
        NoteLevel(now, a.replica, a.handle.level);
        a.pending_release = false;
        ReleaseAttempt(ai);
      }
      break;
    case kGatewayTimeout:
      if (int ai = AttemptOf(event.arg64); ai >= 0 && attempts_[ai].executing) {
        // A client that gave up at this very instant (client-go sends its own timeout as
        // ?timeout=, and its context was started first) was told nothing: its story stays
        // "canceled", and the 504 goes to a closed stream.
        if (!attempts_[ai].answered) {
          attempts_[ai].outcome = "timeout";
          attempts_[ai].reason = "request timeout: 504 while the handler runs on";
        }
        DeliverResponse(now, attempts_[ai], ai, Apiserver::GatewayTimeout());
      }
      break;
    case kWatchEnd:
      if (int ai = AttemptOf(event.arg64); ai >= 0) {
        LeaveGateway(attempts_[ai]);
        EndWatch(now, ai);
      }
      break;
    case kGatewayCut:
      if (int ai = AttemptOf(event.arg64); ai >= 0)
        OnGatewayCut(now, ai, static_cast<GatewayCut>(event.arg32));
      break;
    case kAdjust: {
      Replica& rep = *replicas_[event.arg32];
      if (event.arg64 != static_cast<std::uint64_t>(rep.life)) break;  // an earlier life's
      rep.flow_control->Adjust(now);
      for (int l = 0; l < rep.flow_control->level_count(); ++l) {
        NoteLevel(now, rep.index, l);
        const apf::LevelState s = rep.flow_control->level(l);
        rep.timelines[l].SetLimits(s.current_cl, s.nominal_cl);
        rep.timelines[l].SetMaxSeats(s.max_seats);
      }
      engine_.After(apf::kBorrowingAdjustmentPeriod, event);
      break;
    }
    case kInterval:  // the interval was closed above; this event only makes sure it is
      engine_.After(scenario_.interval, event);
      if (options_.progress && !options_.progress(now)) engine_.RequestStop();
      break;
    case kDump:
      if (observer_) observer_->OnDump(now, static_cast<int>(event.arg32));
      break;
    case kScenarioEvent:
      RunScenarioEvent(now, event.arg32, event.arg64 == 1);
      break;
    case kObjectPoll:
      if (event.arg64 != static_cast<std::uint64_t>(replicas_[event.arg32]->life)) break;
      replicas_[event.arg32]->server.PollObjectCounts(now);
      engine_.After(apf::ObjectCountTracker::kDefaultCountPollPeriod, event);
      break;
  }
}

void World::RunScenarioEvent(apf::Nanos now, std::uint32_t index, bool restart_start) {
  const ScenarioEvent& event = scenario_.events[index];
  if (event.changes_replicas()) {
    // The loader checked that each stop finds its replica up and another one up beside it,
    // and each start finds it down.
    if (event.action == "start" || restart_start) {
      StartReplica(now, event.replica);
    } else {
      StopReplica(now, event.replica);
    }
    return;
  }
  if (event.changes_flow_control()) {
    ReconfigureFlowControl(now, index);
    return;
  }
  if (resources_now_.empty()) {
    resources_now_ = scenario_.resources;
    for (auto& rep : replicas_) rep->server.set_resources(&resources_now_);
  }
  // The loader checked that each names an entry and keeps its namespaces, so the resource
  // indices of the compiled requests and the namespace draws stay valid.
  for (const ResourceSpec& changed : event.resources) {
    for (ResourceSpec& r : resources_now_) {
      if (r.resource == changed.resource && r.api_group == changed.api_group) r = changed;
    }
  }
}

void World::ReconfigureFlowControl(apf::Nanos now, std::uint32_t index) {
  if (!options_.event_configs || !replicas_[0]->flow_control->apf_enabled()) return;
  const apf::FlowControlConfig* next = &(*options_.event_configs)[index];
  config_now_ = next;
  for (auto& rep : replicas_) {
    rep->flow_control->Reconfigure(now, next);
    for (int l = 0; l < rep->flow_control->level_count(); ++l) {
      NoteLevel(now, rep->index, l);  // the queue set may have dispatched
      const apf::LevelState st = rep->flow_control->level(l);
      rep->timelines[l].SetLimits(st.current_cl, st.nominal_cl);
      rep->timelines[l].SetMaxSeats(st.max_seats);
    }
  }
  // The memo remembers FlowSchema choices of the old classifier, and a subject mask names
  // its rules: both are made anew, so every request from now on is classified against the
  // new FlowSchemas (a deleted FlowSchema's flows find their new one at their next request).
  const apf::Classifier* classifier = replicas_[0]->flow_control->classifier();
  classification_memo_ = std::make_unique<ClassificationMemo>(classifier);
  for (Process& proc : processes_) {
    proc.subjects = classifier->SubjectsOf(proc.user.name, proc.user.groups);
    proc.subject_class = classification_memo_->SubjectClassOf(proc.subjects);
  }
}

// An open watch ends, at the server's timeout or cut short by the gateway: its slot in the
// watch tracker is released, and its client watches again.
void World::EndWatch(apf::Nanos now, int ai) {
  Attempt& a = attempts_[ai];
  replicas_[a.replica]->flow_control->watches().ForgetWatch(a.registration);
  a.watch_open = false;
  const int g = a.generator;
  const bool expired = a.watch_expired;
  ReleaseAttempt(ai);
  if (g < 0) return;
  if (Informer* informer = generators_[g].informer.get()) {
    // Closed at its timeoutSeconds, or broken (a replica stopped: client-go's StreamWatcher
    // closes its channel without an error event on a probable EOF): the reflector resumes
    // alike (the world sends no other events). A watch from before the replica's start
    // gets the watch cache's 410 as its one event.
    WatchEnd end;
    if (expired) {
      end.error_event = true;
      end.error = ReflectorError::kExpired;
    }
    ApplyInformer(now, g, informer->OnWatchEnded(now, end));
  } else {
    ScheduleGenerator(g, now);  // the watch pattern watches again
  }
}

// One line of trace.jsonl: the attempt's story (scenarios/README.md, "--trace").
void World::EmitTrace(int ai) {
  if (!observer_) return;
  const Attempt& a = attempts_[ai];
  const apf::FlowControl& fc = *replicas_[a.replica]->flow_control;
  // The FlowSchema as the configuration in force describes it (spec.events may change it).
  const int fs = a.flow_schema >= 0 && fc.apf_enabled()
                     ? fc.config().FindFlowSchema(fc.flow_schema_name(a.flow_schema))
                     : -1;
  // --trace-flow keeps the lines whose `distinguisher` it names; a line without one has
  // no flow to name.
  if (options_.trace_filter.narrows_flows() &&
      (fs < 0 || !options_.trace_filter.WantsFlow(a.trace_info->distinguisher))) {
    return;
  }
  const Process& proc = processes_[a.process];
  TraceRecord r;
  r.call = a.call_serial;
  r.try_number = a.try_number;
  r.client = clients_[proc.client].spec->name;
  r.process = proc.index;
  r.user = proc.user.name;
  r.request = &SentRequestOf(a);
  r.replica = a.replica;
  if (fs >= 0) {
    DescribeFlow(fc.config(), fs, a.flow_hash, a.trace_info->distinguisher, &r);
  } else if (a.handle.level >= 0 || a.dispatched >= 0) {
    r.priority_level =
        a.handle.level >= 0
            ? std::string_view(*replicas_[a.replica]->flow_control->level(a.handle.level).name)
            : std::string_view();
  }
  r.queue = a.queue;
  r.estimate = a.estimate;
  r.arrived = a.arrived;
  r.dispatched = a.dispatched;
  r.finished = a.finished;
  r.answered = a.answered_at;
  r.released = engine_.now();
  r.outcome = a.outcome;
  r.reason = a.reason;
  r.status = a.status;
  r.retry_after = a.retry_after;
  observer_->OnTrace(TraceJsonLine(r));
}

std::map<FlowMetrics::Key, FlowMetrics::Gauges> World::CurrentFlowGauges() const {
  std::map<FlowMetrics::Key, FlowMetrics::Gauges> gauges;
  for (std::uint32_t slot = 0; slot < attempts_.size(); ++slot) {
    const Attempt& a = attempts_[slot];
    if (!a.live || !a.handle.valid()) continue;
    if (!replicas_[a.replica]->flow_control->apf_enabled()) continue;
    FlowMetrics::Gauges& g = gauges[{a.replica, a.handle.level, a.flow_schema}];
    if (a.executing || a.pending_release) {
      ++g.executing_requests;
      g.executing_seats += a.seats;
    } else if (a.dispatched < 0) {
      ++g.inqueue_requests;
    }
  }
  return gauges;
}

StopReason World::Run() {
  const StopReason reason = engine_.Run(RunLimits{.end_time = scenario_.duration,
                                                  .max_events = options_.max_events,
                                                  .keep_going = options_.keep_going});
  const apf::Nanos end = engine_.now();
  while (interval_start_ + scenario_.interval <= end)
    OnInterval(interval_start_ + scenario_.interval);
  if (end > interval_start_) OnInterval(end);
  for (auto& rep : replicas_) {
    for (LevelTimeline& tl : rep->timelines) tl.EndRun();
  }
  for (Client& c : clients_) c.timeline.EndRun();
  return reason;
}

}  // namespace sim
