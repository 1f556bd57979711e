// The world's replica events (spec.events `stop`, `start`, `restart`;
// doc/model.md#replica-restarts): a replica stopping under its clients and one starting
// with empty state. Nothing here runs in a scenario without such events.
// Tested by tests/sim/world/replica_events_test.cc.
#include <cassert>
#include <memory>
#include <utility>
#include <vector>

#include "sim/world/world.h"
#include "sim/world/world_state.h"

namespace sim {

void World::RenewReplica(apf::Nanos now, int r) {
  std::unique_ptr<Replica>& slot = replicas_[static_cast<std::size_t>(r)];
  const int life = slot->life + 1;
  auto fresh = std::make_unique<Replica>(this, r, scenario_, config_, &service_time_, now, life);
  fresh->life = life;
  fresh->up = slot->up;
  fresh->started_at = slot->started_at;
  fresh->timelines = std::move(slot->timelines);
  // The same indices for its levels and FlowSchemas as every other replica's (World::Build),
  // then the configuration in force, digested at once as a starting config controller
  // does: a level of the first configuration that is gone by now is idle, so it goes.
  if (options_.event_configs) {
    std::vector<const apf::FlowControlConfig*> later;
    for (std::size_t e = 0; e < scenario_.events.size(); ++e) {
      if (scenario_.events[e].changes_flow_control())
        later.push_back(&(*options_.event_configs)[e]);
    }
    fresh->flow_control->Foresee(later);
    if (config_now_ != config_ && fresh->flow_control->apf_enabled())
      fresh->flow_control->Reconfigure(now, config_now_);
  }
  if (!resources_now_.empty()) {
    fresh->server.set_resources(&resources_now_);
    fresh->server.PollObjectCounts(now);
  }
  engine_.Cancel(slot->backend_event);
  retired_replicas_.push_back(std::move(slot));
  slot = std::move(fresh);
  Replica& rep = *slot;
  assert(static_cast<int>(rep.timelines.size()) == rep.flow_control->level_count());
  for (int l = 0; l < rep.flow_control->level_count(); ++l) {
    const apf::LevelCounts c = rep.flow_control->counts(l);  // nothing executing or waiting
    rep.timelines[l].SetState(
        now, static_cast<int>(c.executing_requests), static_cast<int>(c.executing_seats),
        static_cast<int>(c.waiting_requests), static_cast<int>(c.waiting_seats));
    const apf::LevelState st = rep.flow_control->level(l);
    rep.timelines[l].SetLimits(st.current_cl, st.nominal_cl);
    rep.timelines[l].SetMaxSeats(st.max_seats);
  }
  // The filter's notes about its flows are of the filter replaced.
  const std::size_t first = static_cast<std::size_t>(r) * namespace_notes_per_replica_;
  for (std::size_t i = 0; i < namespace_notes_per_replica_; ++i)
    namespace_flow_notes_[first + i] = NamespaceFlowNotes{};
  for (Process& proc : processes_) {
    if (proc.user_flow_replica == r) {
      proc.user_flow_replica = -1;
      proc.user_flow = apf::FlowRef{};
    }
  }
}

void World::StopReplica(apf::Nanos now, int r) {
  Replica& rep = *replicas_[static_cast<std::size_t>(r)];
  assert(rep.up && load_balancer_.up_count() > 1);
  rep.up = false;
  load_balancer_.SetUp(r, false);
  // Its clients' HTTP/2 connections break; each dials again through the balancer and
  // keeps the new connection (it does not come back when the replica starts again).
  // A client pinned to the replica (spec.clients[].replica) moves alike.
  if (!reconnect_rng_) reconnect_rng_ = std::make_unique<Random>(scenario_.seed, "reconnect");
  for (Process& proc : processes_) {
    if (proc.replica == r) proc.replica = load_balancer_.Reconnect(*reconnect_rng_);
  }
  // Its attempts, in slot order; a call's retry is never sent at once (Retry-After 1), and
  // a watch started again goes to another replica, so the list does not change as it is
  // handled.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> held;  // (slot, generation)
  for (std::uint32_t slot = 0; slot < attempts_.size(); ++slot) {
    const Attempt& a = attempts_[slot];
    if (a.live && a.replica == r) held.emplace_back(slot, a.generation);
  }
  for (const auto& [slot, generation] : held) {
    Attempt& a = attempts_[slot];
    if (!a.live || a.generation != generation) continue;
    const int ai = static_cast<int>(slot);
    engine_.Cancel(a.timeout);  // its queue-wait deadline, or its 504
    // The filter is replaced below: nothing is handed back to it (the seats and queue
    // places go with it).
    a.executing = false;
    a.pending_release = false;
    if (a.watch_open) {
      // The stream breaks; the watcher sees it end (EndWatch starts its client again).
      if (a.traced) a.reason = "replica stopped: the watch stream broke";
      LeaveGateway(a);
      EndWatch(now, ai);
      continue;
    }
    if (a.answered) {  // a handler that ran on past its 504
      ReleaseAttempt(a, ai);
      continue;
    }
    // Queued or executing: the client reads a broken connection, "connection reset by
    // peer", which client-go's Request.request retries only for a GET (as a synthetic 500
    // with Retry-After 1) and Request.Watch for any watch (doc/model.md#retryable).
    a.answered = true;
    a.outcome = "broken";
    a.reason = "replica stopped: connection reset";
    a.answered_at = now;
    ClientOf(a).timeline.OnBrokenConnection();
    LeaveGateway(a);
    Call& call = calls_[a.call];
    if (call.live() && call.generation == a.call_generation && call.attempt == ai) {
      call.attempt = -1;
      engine_.Cancel(a.abort);
      ReleaseAttempt(a, ai);
      ApplyStep(
          now, call, a.call,
          call.client.OnTransportError(ContextOf(call), now, TransportError::kConnectionReset));
      continue;
    }
    ReleaseAttempt(a, ai);
  }
  // Down, it holds an empty filter: its timelines show nothing executing or waiting, and
  // its periodic work stops until it starts.
  RenewReplica(now, r);
}

void World::StartReplica(apf::Nanos now, int r) {
  // A new process: an empty filter built now (a fresh borrowing history, empty queues and
  // watch tracker), the configuration in force, and its watch cache filled from etcd now.
  RenewReplica(now, r);
  Replica& rep = *replicas_[static_cast<std::size_t>(r)];
  rep.up = true;
  rep.started_at = now;
  load_balancer_.SetUp(r, true);
  const std::uint64_t life = static_cast<std::uint64_t>(rep.life);
  if (scenario_.apiservers.enable_priority_and_fairness)
    engine_.At(now, Event{kAdjust, static_cast<std::uint32_t>(r), life});
  engine_.At(now + apf::ObjectCountTracker::kDefaultCountPollPeriod,
             Event{kObjectPoll, static_cast<std::uint32_t>(r), life});
}

}  // namespace sim
