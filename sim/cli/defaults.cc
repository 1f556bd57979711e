// `apfsim defaults`: prints the flow-control objects a cluster of a Kubernetes version
// starts with (its mandatory and suggested PriorityLevelConfigurations and FlowSchemas)
// as a kubectl-style List, in YAML that `kubectl apply -f` accepts or in JSON.
#include <iostream>

#include "apf/config/bootstrap.h"
#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/manifest.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunDefaults(const Args& args) {
  std::string version_text, output;
  po::options_description opts("options");
  opts.add_options()("kubernetes-version", po::value(&version_text)->default_value("1.36"),
                     "the Kubernetes version whose objects to print (1.29 to 1.37)")(
      "output,o", po::value(&output)->default_value("yaml"), "yaml or json");
  po::variables_map vm;
  if (!ParseCommandLine(args, "apfsim defaults [--kubernetes-version V] [--output yaml|json]", opts,
                        nullptr, vm,
                        "apfsim defaults > defaults.yaml\n"
                        "apfsim defaults --kubernetes-version 1.31 -o json")) {
    return kExitOk;
  }
  const apf::KubernetesVersion version =
      ParseKubernetesVersionOrThrow(version_text, "--kubernetes-version");
  if (output != "yaml" && output != "json") {
    throw InputError({}, "--output", "\"" + output + "\" is not yaml or json");
  }
  const apf::BootstrapObjects boot = apf::Bootstrap(version);
  apf::FlowControlObjects objects;
  objects.priority_levels = boot.mandatory_priority_levels;
  objects.priority_levels.insert(objects.priority_levels.end(),
                                 boot.suggested_priority_levels.begin(),
                                 boot.suggested_priority_levels.end());
  objects.flow_schemas = boot.mandatory_flow_schemas;
  objects.flow_schemas.insert(objects.flow_schemas.end(), boot.suggested_flow_schemas.begin(),
                              boot.suggested_flow_schemas.end());
  const nlohmann::json list = ObjectsToList(objects);
  if (output == "json") {
    std::cout << list.dump(2) << "\n";
  } else {
    std::cout << "# The flow-control objects of Kubernetes " << version.ToString()
              << " (mandatory and suggested), as kube-apiserver creates them.\n"
              << JsonToYaml(list);
  }
  return kExitOk;
}

const Registration kDefaults(
    {"", "defaults", "print a Kubernetes version's default FlowSchemas and priority levels",
     RunDefaults});

}  // namespace
}  // namespace sim::cli
