// The world assembled from a scenario: its apiserver replicas, clients, processes and
// traffic generators, and the first events; and what the report reads of it afterwards.
// The events are handled in sim/world/world.cc. Tested through whole runs (tests/cli/).
#include <algorithm>
#include <memory>

#include "sim/clients/rest_config.h"
#include "sim/io/yaml_input.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/trace_replay.h"
#include "sim/world/world.h"
#include "sim/world/world_state.h"

namespace sim {

World::World(const Scenario& scenario, const apf::FlowControlConfig* flow_control,
             const WorldOptions& options, WorldObserver* observer)
    : scenario_(scenario),
      config_(flow_control),
      options_(options),
      observer_(observer),
      engine_(this, kCallWake),
      service_time_(scenario.apiservers.service_time),
      load_balancer_(LoadBalancingOf(scenario.apiservers.load_balancing),
                     scenario.apiservers.replicas, scenario.seed),
      gateway_(scenario.gateway) {
  Build();
}

World::~World() = default;

apf::FlowControl& World::flow_control(int replica) { return *replicas_[replica]->flow_control; }
const apf::FlowControl& World::flow_control(int replica) const {
  return *replicas_[replica]->flow_control;
}
const LevelTimeline& World::level_timeline(int replica, int level) const {
  return replicas_[replica]->timelines[level];
}
int World::client_count() const { return static_cast<int>(clients_.size()); }
const ClientSpec& World::client_spec(int client) const { return *clients_[client].spec; }
const ClientTimeline& World::client_timeline(int client) const { return clients_[client].timeline; }
Apiserver::EventRefusals World::event_refusals() const {
  Apiserver::EventRefusals total;
  for (const auto* list : {&replicas_, &retired_replicas_}) {
    for (const auto& rep : *list) {
      const Apiserver::EventRefusals& r = rep->server.event_refusals();
      total.events += r.events;
      for (size_t t = 0; t < total.by_type.size(); ++t) total.by_type[t] += r.by_type[t];
    }
  }
  return total;
}

const std::vector<std::pair<std::string, std::uint64_t>>& World::client_errors(int client) const {
  return clients_[client].errors;
}

std::vector<World::LevelAttempts> World::client_levels(int client) const {
  std::vector<LevelAttempts> out;
  const std::vector<std::uint64_t>& counts = clients_[client].level_attempts;
  const apf::FlowControl& fc0 = *replicas_[0]->flow_control;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const int level = static_cast<int>(i) / flow_schema_slots_;
    const int flow_schema = static_cast<int>(i) % flow_schema_slots_ - 1;
    LevelAttempts row;
    row.level = *fc0.level(level).name;
    if (flow_schema >= 0) row.flow_schema = fc0.flow_schema_name(flow_schema);
    row.attempts = counts[i];
    out.push_back(row);
  }
  return out;
}

void World::Build() {
  const ApiserverSpec& api = scenario_.apiservers;
  // Scheduled first, so that an event runs before everything else due at its instant:
  // requests arriving at `at` see the change (scenarios/README.md#events).
  for (std::size_t e = 0; e < scenario_.events.size(); ++e) {
    engine_.At(scenario_.events[e].at, Event{kScenarioEvent, static_cast<std::uint32_t>(e), 0});
  }
  // A restart's start, after every event of its instant (the loader's checks assume it).
  for (std::size_t e = 0; e < scenario_.events.size(); ++e) {
    const ScenarioEvent& event = scenario_.events[e];
    if (event.action == "restart" && event.at + scenario_.restart_delay < scenario_.duration) {
      engine_.At(event.at + scenario_.restart_delay,
                 Event{kScenarioEvent, static_cast<std::uint32_t>(e), 1});
    }
  }
  for (int r = 0; r < api.replicas; ++r) {
    replicas_.push_back(std::make_unique<Replica>(this, r, scenario_, config_, &service_time_));
    Replica& rep = *replicas_.back();
    // The levels and FlowSchemas later events bring get their indices now, so that the
    // timelines and counters below cover them from the start.
    if (options_.event_configs) {
      std::vector<const apf::FlowControlConfig*> later;
      for (std::size_t e = 0; e < scenario_.events.size(); ++e) {
        if (scenario_.events[e].changes_flow_control())
          later.push_back(&(*options_.event_configs)[e]);
      }
      rep.flow_control->Foresee(later);
    }
    rep.timelines.resize(rep.flow_control->level_count());
    for (int l = 0; l < rep.flow_control->level_count(); ++l) {
      const apf::LevelState s = rep.flow_control->level(l);
      rep.timelines[l].SetLimits(s.current_cl, s.nominal_cl);
      rep.timelines[l].SetMaxSeats(s.max_seats);
    }
    if (api.enable_priority_and_fairness)
      engine_.At(0, Event{kAdjust, static_cast<std::uint32_t>(r), 0});
    engine_.At(apf::ObjectCountTracker::kDefaultCountPollPeriod,
               Event{kObjectPoll, static_cast<std::uint32_t>(r), 0});
  }
  int levels = 0;
  for (const auto& rep : replicas_) levels = std::max(levels, rep->flow_control->level_count());
  const int flow_schemas = replicas_[0]->flow_control->flow_schema_count();
  metrics_.Shape(api.replicas, levels, flow_schemas);
  flow_schema_slots_ = flow_schemas + 1;
  for (const auto& resource : scenario_.resources) {
    namespace_note_offset_.push_back(namespace_notes_per_replica_);
    namespace_notes_per_replica_ += resource.namespace_names.size();
  }
  namespace_flow_notes_.resize(replicas_.size() * namespace_notes_per_replica_);
  BuildClients();
  for (Client& c : clients_)
    c.level_attempts.assign(static_cast<std::size_t>(levels) * flow_schema_slots_, 0);
  if (!options_.trace.empty()) {
    for (size_t c = 0; c < clients_.size(); ++c) {
      if (clients_[c].spec->name == options_.trace) trace_client_ = static_cast<int>(c);
    }
    const apf::FlowControl& fc0 = *replicas_[0]->flow_control;
    for (int l = 0; trace_client_ < 0 && l < fc0.level_count(); ++l) {
      if (*fc0.level(l).name == options_.trace) trace_level_ = l;
    }
    if (trace_client_ < 0 && trace_level_ < 0) {
      std::vector<std::string> names;
      for (const Client& c : clients_) names.push_back(c.spec->name);
      for (int l = 0; l < fc0.level_count(); ++l) names.push_back(*fc0.level(l).name);
      throw InputError({"--trace", 0, 0}, "",
                       "no client or priority level is named \"" + options_.trace + "\"" +
                           DidYouMean(options_.trace, names));
    }
  }
  tracing_ = trace_client_ >= 0 || trace_level_ >= 0;
  engine_.At(scenario_.interval, Event{kInterval, 0, 0});
  for (size_t i = 0; i < scenario_.dumps.size(); ++i) {
    engine_.At(scenario_.dumps[i], Event{kDump, static_cast<std::uint32_t>(i), 0});
  }
}

void World::BuildClients() {
  // Compile every request template once.
  auto compile = [&](const RequestTemplate& t) {
    auto c = std::make_unique<CompiledRequest>();
    CompileRequest(t, scenario_, service_time_, c.get());
    c->id = static_cast<int>(requests_.size());
    requests_.push_back(std::move(c));
    free_sent_by_request_.emplace_back();
    return requests_.back().get();
  };

  clients_.resize(scenario_.clients.size());
  for (size_t ci = 0; ci < scenario_.clients.size(); ++ci) {
    const ClientSpec& spec = scenario_.clients[ci];
    clients_[ci].spec = &spec;
    std::vector<std::vector<const CompiledRequest*>> traffic_calls;
    for (const TrafficSpec& t : spec.traffic) {
      std::vector<const CompiledRequest*> calls;
      for (const RequestTemplate& rt : t.calls) {
        CompiledRequest* c = compile(rt);
        c->call_options.max_retries = spec.client_go.max_retries;
        c->call_options.timeout_ns = spec.client_go.timeout;
        calls.push_back(c);
      }
      traffic_calls.push_back(std::move(calls));
    }
    for (int p = 0; p < spec.processes; ++p) {
      Process proc;
      proc.client = static_cast<int>(ci);
      proc.index = p;
      proc.user.name = Substitute(spec.user, p);
      proc.user.groups = spec.groups;
      if (const apf::Classifier* classifier = replicas_[0]->flow_control->classifier()) {
        proc.subjects = classifier->SubjectsOf(proc.user.name, proc.user.groups);
        if (!classification_memo_) {
          classification_memo_ = std::make_unique<ClassificationMemo>(classifier);
        }
        proc.subject_class = classification_memo_->SubjectClassOf(proc.subjects);
      }
      // rest.Config's QPS and Burst become a limiter as client-go makes them: a negative
      // QPS is none, 0 means 5 and a zero burst 10 (sim/clients/rest_config.h).
      if (std::optional<apf::RateLimiter> limiter = NewRestClientRateLimiter(
              static_cast<float>(spec.client_go.qps), spec.client_go.burst)) {
        proc.bucket = std::make_unique<apf::RateLimiter>(std::move(*limiter));
      }
      if (spec.via_gateway) {
        proc.session_bucket = std::make_unique<apf::RateLimiter>(
            scenario_.gateway.session_request_rate, scenario_.gateway.session_request_burst);
        proc.session.ends_at = std::min(spec.session_lifetime, spec.session_logout_at);
        proc.session.checks_hang_from = spec.session_checks_hang_from;
        proc.session.stops_reading_at = spec.session_stops_reading_at;
      }
      proc.replica = spec.replica >= 0 ? spec.replica
                                       : LoadBalancer::ConnectionOf(scenario_.seed, spec.name, p,
                                                                    replica_count());
      const int process_index = static_cast<int>(processes_.size());
      if (p == 0) clients_[ci].first_process = process_index;
      processes_.push_back(std::move(proc));
      for (size_t ti = 0; ti < spec.traffic.size(); ++ti) {
        const TrafficSpec& t = spec.traffic[ti];
        if (t.kind == TrafficSpec::Kind::kTrace) {
          // One reader per trace, whatever the number of processes.
          if (p == 0) {
            AddReplay(
                std::make_unique<CsvTraceReader>(t.trace_file, spec.name, t.start,
                                                 options_.input_sha256 ? LineReader::Digest::kSha256
                                                                       : LineReader::Digest::kNone),
                &t, static_cast<int>(ci));
          }
          continue;
        }
        const int copies = t.kind == TrafficSpec::Kind::kClosedLoop ? t.workers : 1;
        for (int w = 0; w < copies; ++w) {
          Generator g;
          g.process = process_index;
          g.spec = &t;
          g.calls = traffic_calls[ti];
          g.rng = Random(scenario_.seed, spec.name + "/" + std::to_string(p) + "/traffic-" +
                                             std::to_string(ti) + "/" + std::to_string(w));
          std::int64_t per_period = 1;
          if (t.kind == TrafficSpec::Kind::kSweep) {
            const int res = g.calls[0]->resource;
            per_period = SweepCallsPerPeriod(
                t, res >= 0
                       ? static_cast<std::int64_t>(scenario_.resources[res].namespace_names.size())
                       : 0);
          }
          g.traffic = Traffic(t, per_period);
          if (t.kind == TrafficSpec::Kind::kInformer) {
            // The reflector is built at the pattern's start; scenarios/README.md's
            // pageSize is its pager's page size.
            ReflectorOptions options;
            options.pager_page_size = t.page_size;
            g.informer = std::make_unique<Informer>(options, t.start, g.rng);
          }
          const apf::Nanos first = g.traffic.FirstAt(g.rng);
          generators_.push_back(std::move(g));
          const int gi = static_cast<int>(generators_.size()) - 1;
          ScheduleGenerator(gi, first);
        }
      }
    }
  }
  if (scenario_.audit_log.enabled) {
    for (const auto& [key, client] : scenario_.audit_log.identity_clients) {
      audit_clients_.emplace(key, client);
    }
    audit_traffic_.kind = TrafficSpec::Kind::kTrace;
    AddReplay(std::make_unique<AuditLogReader>(scenario_.audit_log, scenario_.audit_log.origin,
                                               &audit_clients_),
              &audit_traffic_, -1);
  }
}

void World::AddReplay(std::unique_ptr<ReplaySource> source, const TrafficSpec* traffic,
                      int client) {
  Generator g;
  g.process = client >= 0 ? clients_[client].first_process : -1;
  g.spec = traffic;
  g.replay = std::make_unique<Replay>(std::move(source), client);
  generators_.push_back(std::move(g));
  const int gi = static_cast<int>(generators_.size()) - 1;
  Replay& replay = *generators_[gi].replay;
  if (replay.Next()) ScheduleGenerator(gi, replay.pending().at);
}

std::vector<std::pair<std::string, std::string>> World::InputSha256s() {
  std::vector<std::pair<std::string, std::string>> digests;
  for (Generator& g : generators_) {
    if (!g.replay) continue;
    std::string sha = g.replay->source().FinishSha256();
    if (!sha.empty()) digests.emplace_back(g.replay->source().file(), std::move(sha));
  }
  return digests;
}

std::optional<World::RequestDetails> World::DetailsOf(std::uint64_t request_id) const {
  const std::uint32_t slot = static_cast<std::uint32_t>(request_id);
  if (slot >= attempts_.size()) return std::nullopt;
  const Attempt& a = attempts_[slot];
  if (!a.live || a.generation != static_cast<std::uint32_t>(request_id >> 32)) return std::nullopt;
  const Call& call = calls_[a.call];
  if (!call.live() || call.generation != a.call_generation) return std::nullopt;
  RequestDetails d;
  d.user = &processes_[call.process].user;
  d.request = &SentRequestOf(a);
  d.flow_schema = a.flow_schema;
  d.flow_hash = a.flow_hash;
  return d;
}

}  // namespace sim
