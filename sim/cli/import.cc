// `apfsim import`: a scenario from a live cluster's exports (sim/scenario/cluster_import.h).
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/output_file.h"
#include "sim/scenario/cluster_import.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunImport(const Args& args) {
  ClusterImportOptions options;
  std::string window_text;
  po::options_description opts("options");
  opts.add_options()(
      "objects", po::value(&options.objects)->required(),
      "`kubectl get flowschemas,prioritylevelconfigurations -o yaml` output (or the first "
      "argument)")(
      "metrics", po::value(&options.metrics)->composing(),
      "a `kubectl get --raw /metrics` scrape (repeatable: one per replica, or two of one "
      "replica for the counters' window)")("audit", po::value(&options.audit),
                                           "an audit.k8s.io/v1 log: one client per identity")(
      "dumps", po::value(&options.dumps),
      "a folder with dump_priority_levels.txt, dump_queues.txt, dump_requests.txt to check "
      "the import against")("kubernetes-version", po::value(&options.kubernetes_version),
                            "the cluster's version (default: kubernetes_build_info)")(
      "replicas", po::value(&options.replicas),
      "apiserver replicas (default: one per scraped process)")(
      "by-user-agent", po::bool_switch(&options.clients_by_user_agent),
      "one client per identity and user agent instead of per identity")(
      "audit-as-trace", po::bool_switch(&options.audit_as_trace),
      "replay the audit events as they are (spec.auditLog) instead of Poisson rates")(
      "window", po::value(&window_text),
      "the time the rates are taken over (default: the audit log's span, or guessed)")(
      "name", po::value(&options.name)->default_value("imported"), "the scenario's metadata.name")(
      "output,o", po::value(&options.output)->default_value("-"),
      "where to write the scenario (- for standard output)");
  po::positional_options_description positional;
  positional.add("objects", 1);
  po::variables_map vm;
  if (!ParseCommandLine(
          args,
          "apfsim import --objects FILE [--metrics FILE]... [--audit FILE] [--dumps DIR]\n"
          "                     [--kubernetes-version V] [--replicas N] -o scenario.yaml",
          opts, &positional, vm,
          "apfsim import --objects scenarios/samples/objects.yaml \\\n"
          "    --metrics scenarios/samples/metrics.prom -o imported.yaml\n"
          "apfsim import --objects scenarios/samples/objects.yaml \\\n"
          "    --metrics scenarios/samples/metrics.prom --audit scenarios/samples/audit.log \\\n"
          "    --dumps scenarios/samples -o imported.yaml")) {
    return kExitOk;
  }
  if (vm.count("replicas") && options.replicas < 1) {
    throw InputError({"--replicas", 0, 0}, "", "must be at least 1");
  }
  if (!window_text.empty()) {
    std::string error;
    const auto window = ParseDuration(window_text, &error);
    if (!window || *window <= 0) {
      throw InputError({"--window", 0, 0}, "",
                       "\"" + window_text + "\" is not a positive duration");
    }
    options.window = *window;
  }
  if (options.audit_as_trace && options.audit.empty()) {
    throw InputError({"--audit-as-trace", 0, 0}, "", "needs --audit");
  }
  const ClusterImport imported = ImportCluster(options);
  for (const std::string& note : imported.notes) std::cerr << "apfsim import: " << note << "\n";
  if (options.output == "-") {
    std::cout << imported.scenario_yaml;
  } else {
    WriteOutputFile(options.output, imported.scenario_yaml);
    std::cerr << "apfsim import: wrote " << options.output << "\n";
  }
  return kExitOk;
}

const Registration kImport({"", "import",
                            "write a scenario from a live cluster's objects, metrics, audit log "
                            "and dumps",
                            RunImport});

}  // namespace
}  // namespace sim::cli
