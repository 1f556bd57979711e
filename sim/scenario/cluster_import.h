// `apfsim import`: a scenario from what a live cluster shows (scenarios/samples/README.md):
// its FlowSchemas and PriorityLevelConfigurations (`kubectl get -o yaml`), /metrics scrapes,
// optionally an audit log and the APF debug dumps. The result is YAML text that `run`,
// `check` and `compare` load as it is, with a header comment that records what came from
// where, what was guessed, and the flag that overrides each guess.
//
// What is read from where:
//   - spec.flowControl.objects: the exported objects, status and metadata.managedFields
//     dropped, compared with the version's suggested objects (apf/config/bootstrap.h);
//   - spec.apiservers.kubernetesVersion: kubernetes_build_info{major, minor};
//   - the server concurrency limit: the smallest that reproduces every level's
//     apiserver_flowcontrol_nominal_limit_seats through ceil(SCL * shares / sum)
//     (apf_controller.go, plSpecCommons), split 2:1 as the flags' defaults (400/200) are
//     split: under APF only their sum matters;
//   - spec.apiservers.replicas: --replicas, or the distinct process_start_time_seconds of
//     the scrapes (two scrapes of one process are one replica at two instants);
//   - spec.resources: apiserver_storage_objects / apiserver_resource_objects and sizes
//     (sim/scenario/metrics_import.h);
//   - spec.clients: from the audit log, one client per identity (or user agent) with a
//     Poisson pattern per request kind at its recorded rate, or the log itself replayed
//     (spec.auditLog); without a log, one coarse client per (flow schema, priority level)
//     of apiserver_flowcontrol_dispatched_requests_total, its identity and request made
//     up to match the FlowSchema's first rule and checked with the classifier.
//   - the dumps (dump_priority_levels, dump_queues, dump_requests) check the result: the
//     levels and queue counts must match the objects, and each dumped request must
//     classify to the FlowSchema and level the cluster gave it.
#ifndef SIM_SCENARIO_CLUSTER_IMPORT_H_
#define SIM_SCENARIO_CLUSTER_IMPORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

struct ClusterImportOptions {
  std::string objects;               // required: a kubectl List (or any flow-control YAML)
  std::vector<std::string> metrics;  // /metrics scrapes, any number
  std::string audit;                 // an audit.k8s.io/v1 log, "" for none
  std::string dumps;                 // a folder with dump_*.txt, "" for none
  std::string kubernetes_version;    // "" = from kubernetes_build_info
  int replicas = 0;                  // 0 = from the scrapes
  bool clients_by_user_agent = false;
  bool audit_as_trace = false;
  apf::Nanos window = 0;  // 0 = guessed: the time the counters cover
  std::string name = "imported";
  // Where the scenario will be written ("" or "-" for standard output): a replayed audit
  // log is named relative to its folder.
  std::string output;
};

struct ClusterImport {
  std::string scenario_yaml;            // the whole scenario, comments included
  std::vector<std::string> notes;       // what the header says, also printed on stderr
  std::vector<std::string> mismatches;  // where the dumps disagree with the import
};

// Bad input (a scrape that is not Prometheus text, an audit log of another API version,
// a version given by flag that the scrape contradicts, ...) throws an InputError at its
// file:line. Objects of other kinds are left out with a note.
ClusterImport ImportCluster(const ClusterImportOptions& options);

// One row of an APF debug dump, its cells trimmed.
struct DumpRow {
  int line = 0;
  std::vector<std::string> cells;
};

// The rows of a dump as apf_controller_debug.go writes it (cells separated by ",\t" and
// padded by a tabwriter), after its header, which must begin with `first_header` and have
// at least `columns` cells; anything else is an InputError at `source`:line.
std::vector<DumpRow> ParseDebugDump(std::string_view text, const std::string& source,
                                    const std::string& first_header, size_t columns);

}  // namespace sim

#endif  // SIM_SCENARIO_CLUSTER_IMPORT_H_
