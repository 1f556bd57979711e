// A scenario: what `apfsim run` simulates, as loaded from a YAML file in Kubernetes'
// manifest style (apiVersion apfsim/v1alpha1, kind Scenario). These are plain structs with
// the defaults a scenario gets when it leaves a field out; scenarios/README.md documents
// every field, and sim/scenario/loader.h reads and validates them.
#ifndef SIM_SCENARIO_SCENARIO_H_
#define SIM_SCENARIO_SCENARIO_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apf/base/virtual_time.h"
#include "apf/estimation/work_estimator.h"
#include "sim/flowcontrol/loader.h"
#include "sim/io/input_error.h"

namespace sim {

// A random duration (service times, think times).
struct DurationDistribution {
  enum class Kind { kConstant, kExponential, kLognormal, kUniform };
  Kind kind = Kind::kConstant;
  apf::Nanos value = 0;   // constant value, exponential mean, lognormal median, uniform low
  apf::Nanos value2 = 0;  // lognormal p99, uniform high
};

// One request as a client sends it.
struct RequestTemplate {
  std::string verb;  // get list watch create update patch delete deletecollection, or an HTTP verb
                     // for a non-resource path
  std::string api_group;    // "" is the core group
  std::string api_version;  // "v1" when empty
  std::string resource;
  std::string subresource;
  std::string namespace_;  // fixed namespace ("" = cluster scope or all namespaces)
  enum class NamespaceChoice { kFixed, kEach, kRandom };
  NamespaceChoice namespace_choice = NamespaceChoice::kFixed;  // kEach/kRandom draw from the
                                                               // resource's namespaces
  std::string name;
  std::string query;  // URL query, e.g. "limit=500&resourceVersion=0"
  std::string path;   // non-resource path such as /healthz (then resource is empty)
  std::optional<DurationDistribution> service_time;  // overrides the apiserver's rules
  // `seats`: replaces the work estimator's answer (no per-level cap applies).
  std::optional<apf::WorkEstimate> seats;
  SourceLocation where;
};

struct ServiceTimeRule {
  std::vector<std::string> verbs;      // empty = any
  std::vector<std::string> resources;  // empty = any
  enum class Source { kAny, kCache, kEtcd };
  Source source = Source::kAny;  // LIST served from the watch cache or from etcd
  DurationDistribution time;
  apf::Nanos per_object = 0;  // added per object a LIST returns
  apf::Nanos per_kib = 0;     // added per KiB a LIST returns
};

struct EventRateLimitSpec {
  std::string type;  // Server, Namespace, User, SourceAndObject
  double qps = 0;
  std::int64_t burst = 0;
  std::int64_t cache_size = 4096;
};

struct ApiserverSpec {
  int replicas = 1;
  std::string kubernetes_version = "1.36";
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  apf::Nanos request_timeout = 60 * apf::kSecond;
  apf::Nanos min_request_timeout = 1800 * apf::kSecond;
  bool enable_priority_and_fairness = true;
  std::map<std::string, bool> feature_gates;  // SizeBasedListCostEstimate, WatchList
  bool consistent_list_from_cache = true;     // etcd supports watch-progress requests
  std::string load_balancing = "sticky";      // sticky, round-robin, random, least-requests
  double backend_cores = 0;                   // 0: no backend limit
  std::vector<ServiceTimeRule> service_time;  // first match wins; a built-in default follows
  std::vector<EventRateLimitSpec> event_rate_limits;  // empty: EventRateLimit off
};

struct ResourceSpec {
  std::string api_group;
  std::string resource;
  std::int64_t objects = 0;
  std::int64_t average_bytes = 1000;
  int namespaces = 0;  // 0: cluster-scoped
  std::string namespace_prefix = "ns-";
  std::vector<std::string> namespace_names;  // explicit names instead of prefix-NNNN
};

struct ClientGoSpec {
  double qps = 5;  // negative: no client-side limiter
  int burst = 10;
  int max_retries = 10;
  apf::Nanos timeout = 0;  // the client's request timeout (rest.Config.Timeout); 0 = none
};

struct TrafficSpec {
  enum class Kind { kPoisson, kConstant, kSweep, kClosedLoop, kInformer, kWatch, kTrace };
  Kind kind = Kind::kPoisson;
  apf::Nanos start = 0;
  apf::Nanos stop = apf::kNever;
  double rate = 0;         // poisson, constant: calls per second per process
  apf::Nanos every = 0;    // sweep period
  apf::Nanos within = 0;   // sweep: spread over this window
  std::int64_t count = 0;  // sweep: calls per period (0 with namespace each = one per namespace)
  int workers = 0;         // closedLoop
  DurationDistribution think;          // closedLoop
  std::vector<RequestTemplate> calls;  // the call (or closedLoop's sequence)
  std::int64_t page_size = 500;        // informer
  std::string trace_file;              // trace
  SourceLocation where;
};

// What a replay read and what it left out (summary.json's `replay`).
struct ReplayStats {
  std::int64_t lines = 0;                       // lines read
  std::int64_t events = 0;                      // calls replayed
  std::map<std::string, std::int64_t> skipped;  // by reason: not-json, not-an-audit-event, ...
  std::map<int, std::int64_t> recorded_codes;   // responseStatus.code of replayed events
  std::int64_t identities = 0;
};

// spec.auditLog: traffic replayed from a Kubernetes audit log (sim/scenario/audit_log.h). The
// loader scans the file once to turn each identity into a client (named by its user).
struct AuditLogSpec {
  bool enabled = false;
  std::string file;                    // resolved against the scenario's folder
  std::optional<apf::Nanos> from, to;  // requestReceivedTimestamp window, ns since the epoch
  double speed = 1;                    // arrivals come `speed` times faster
  std::vector<std::string> include_users, exclude_users;
  apf::Nanos reorder_window = 60 * apf::kSecond;  // how far events may be out of order
  apf::Nanos origin = 0;  // the epoch time that is virtual time 0 (from, or the first event)
  // The identity key (sim/scenario/audit_log.h AuditIdentityKey) of each replayed client, with the
  // client's index in Scenario::clients.
  std::vector<std::pair<std::string, int>> identity_clients;
  ReplayStats scan;  // what the loader's scan found
  SourceLocation where;
};

struct ClientSpec {
  std::string name;
  std::string user;  // may hold "{process}", replaced by the process index
  std::vector<std::string>
      groups;  // as the authenticator gives them (system:authenticated included)
  int processes = 1;
  int replica = -1;  // pins every process's connection to this apiserver; -1: the balancer's choice
  bool via_gateway = false;  // each process is a browser session behind spec.gateway
  // Behind the gateway (the client's `gateway:`, doc/gateway.md): its watches are streams
  // on /stream/v1 rather than native watches through /k8s, and how each session ends.
  bool gateway_streams = false;
  apf::Nanos session_lifetime = apf::kNever;  // from the login, at the run's start
  apf::Nanos session_logout_at = apf::kNever;
  apf::Nanos session_checks_hang_from = apf::kNever;
  apf::Nanos session_stops_reading_at = apf::kNever;
  ClientGoSpec client_go;
  std::vector<TrafficSpec> traffic;
  SourceLocation where;
};

// A browser gateway in front of the apiservers (seed 003's krm-foyer): each process of a
// client that goes `via: gateway` is one browser session, bounded on its own before
// anything reaches Kubernetes.
struct GatewaySpec {
  bool enabled = false;
  double session_request_rate = 20;          // -session-request-rate
  int session_request_burst = 100;           // -session-request-burst
  int max_session_concurrent_requests = 64;  // -max-session-concurrent-requests
  int max_concurrent_requests = 2000;        // -max-concurrent-requests (per gateway replica)
  int max_session_streams = 32;              // -max-session-streams
  int max_streams = 2000;                    // -max-streams (per gateway replica)
  apf::Nanos max_response_duration = 30 * 60 * apf::kSecond;  // -max-response-duration
  std::int64_t max_response_bytes = 32 * 1024 * 1024;         // -max-response-bytes, decoded
  apf::Nanos session_check_interval = 5 * apf::kSecond;       // -session-check-interval
  apf::Nanos stream_write_timeout = 10 * apf::kSecond;        // -stream-write-timeout
};

struct Mark {
  apf::Nanos at = 0;
  std::string label;
  SourceLocation where;  // its `at`, for the warning about a mark after the run's end
};

// One assertion of `spec.expect` (checked by `apfsim check`, sim/report/expectations.h): the
// summary.json field at `path` compared with `value`, over the whole run or, with a
// window, over the report intervals that start within [window_from, window_to).
struct Expectation {
  std::string path;  // "priorityLevels.workload-low.rejected.queue-full"
  // Where `path` splits (see ParseExpectationPath in sim/report/expectations.h): "priorityLevels",
  // "clients" or "gateway"; the level or client name; the field below it.
  std::string section, subject, field;
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };
  Op op = Op::kEq;
  double value = 0;
  // The digits after the decimal point of `value` as written ("600": 0, "0.25": 2); -1
  // when written with an exponent. The measured value is printed to as many.
  int value_decimals = -1;
  std::string description;
  bool windowed = false;
  apf::Nanos window_from = 0;
  apf::Nanos window_to = apf::kNever;  // the end of the run
  SourceLocation where;                // the list item, for messages and JUnit
  // How `apfsim check --seeds` reaches one verdict from the seeds' (`seeds:` in the item):
  // the assertion holds in every seed (kEvery, the default), its mean over the seeds
  // satisfies it (kMean, `seeds: mean`), or it holds in at least `seeds_share` of them
  // (kShare, `seeds: "95%"`).
  enum class SeedsMode { kEvery, kMean, kShare };
  SeedsMode seeds_mode = SeedsMode::kEvery;
  double seeds_share = 1.0;
};

// One figure of `spec.reference`: a number the incident's own write-up states (a level's
// rejections, a client's latency), which `apfsim run` and `compare` set beside the run's
// (sim/report/reference_figures.h). `subject` names a priority level (section
// "priorityLevels") or a client ("clients"); `metric` is that summary.json field as
// spec.expect names it ("waitSeconds.max"), or "rejected" for a level's three reasons summed.
struct ReferenceFigure {
  std::string section;
  std::string subject;
  std::string metric;
  double value = 0;
  bool approx = false;  // the write-up says "about", "roughly", "~"
  // How far the run may be from `value`, in percent of it, before the run "differs";
  // the default is kReferenceTolerancePercent or, when approx, kApproxTolerancePercent.
  double tolerance_percent = 0;
  std::string reason;  // why the run differs, printed with the difference ("" for none)
  // `window: {from, to}`: the run's figure over the report intervals that start within
  // [window_from, window_to), as a windowed spec.expect measures it (one sweep of several).
  bool windowed = false;
  apf::Nanos window_from = 0;
  apf::Nanos window_to = apf::kNever;
  SourceLocation where;  // the list item
};

// The defaults of ReferenceFigure::tolerance_percent (scenarios/README.md#specreference).
inline constexpr double kReferenceTolerancePercent = 10;
inline constexpr double kApproxTolerancePercent = 25;

// spec.reference: where the figures come from ("seeds/000 (the incident write-up)") and
// the figures; empty `figures` when the scenario has none.
struct ScenarioReference {
  std::string source;
  std::vector<ReferenceFigure> figures;
};

// An object a `delete` event removes.
struct DeletedObject {
  std::string kind;  // "FlowSchema" or "PriorityLevelConfiguration"
  std::string name;
  SourceLocation where;  // the list item
  std::string path;      // its field path, "spec.events[N].delete[M]"
};

// One entry of spec.events (scenarios/README.md#events).
struct ScenarioEvent {
  apf::Nanos at = 0;
  // "resources", "apply", "delete", "stop", "start" or "restart"
  std::string action;
  int replica = -1;                     // stop, start, restart: apiserver-N's N
  std::vector<ResourceSpec> resources;  // replace the spec.resources entries of the same name
  FlowControlManifests apply;           // validated objects, created or replaced by name
  std::vector<DeletedObject> deletes;
  SourceLocation where;  // the entry, for messages
  // Whether the event changes the flow-control objects (apply, delete).
  bool changes_flow_control() const { return action == "apply" || action == "delete"; }
  // Whether it stops or starts a replica (stop, start, restart).
  bool changes_replicas() const { return replica >= 0; }
};

// spec.restartDelay's default: how long a restarted kube-apiserver takes to serve again
// (scenarios/README.md#events, "restartDelay").
inline constexpr apf::Nanos kDefaultRestartDelay = 30 * apf::kSecond;

struct Scenario {
  std::string name;
  std::string description;
  std::string file;  // where it was loaded from
  apf::Nanos duration = 0;
  std::uint64_t seed = 1;
  apf::Nanos interval = apf::kSecond;
  std::vector<Mark> marks;
  std::vector<apf::Nanos> dumps;
  ApiserverSpec apiservers;
  GatewaySpec gateway;
  bool flow_control_defaults = true;
  // Flow-control manifests: files (resolved against the scenario's folder) and inline
  // objects, kept as YAML nodes with their origin for the flow-control loader.
  std::vector<std::string> flow_control_files;
  struct InlineObject {
    YAML::Node node;
    std::string source;  // the scenario file
    std::string path;    // its field path, "spec.flowControl.objects[2]"
  };
  std::vector<InlineObject> flow_control_objects;
  // `--set flowControl.priorityLevels.NAME.FIELD=VALUE` and `...flowSchemas...`: applied to
  // the named object after the defaults and files are loaded.
  struct ObjectOverride {
    std::string kind;  // "priorityLevels" or "flowSchemas"
    std::string name;
    std::string field;
    std::string value;
  };
  std::vector<ObjectOverride> flow_control_overrides;
  std::vector<ResourceSpec> resources;
  std::string resources_from_metrics;  // the /metrics scrape the counts came from, if any
  // Resources of that scrape left out because their count was -1 (not fetched).
  std::vector<std::string> resources_skipped_from_metrics;
  std::vector<ClientSpec> clients;
  AuditLogSpec audit_log;
  std::vector<Expectation> expectations;  // spec.expect
  ScenarioReference reference;            // spec.reference
  std::vector<ScenarioEvent> events;      // spec.events, in the order of `at`
  // spec.restartDelay: a `restart` event's start follows its stop by this much.
  apf::Nanos restart_delay = kDefaultRestartDelay;
  bool has_replica_events = false;  // some event stops or starts a replica

  // The events' instants, in order: what an event window (`event:N:FROM..TO`) resolves
  // against.
  std::vector<apf::Nanos> EventTimes() const {
    std::vector<apf::Nanos> times;
    for (const ScenarioEvent& e : events) times.push_back(e.at);
    return times;
  }
};

}  // namespace sim

#endif  // SIM_SCENARIO_SCENARIO_H_
