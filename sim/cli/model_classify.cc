// `apfsim model classify`: classifies each authenticated request on stdin against a
// Kubernetes version's default objects plus the given files, and writes
// [{"flowSchema", "priorityLevel", "distinguisher", "hash"}] in the same order.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"
#include "sim/io/json_input.h"
#include "sim/model/classify.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunClassify(const Args& args) {
  std::vector<std::string> files;
  std::string version_text;
  po::options_description opts("options");
  opts.add_options()("config", po::value(&files)->composing()->multitoken(),
                     "a file of FlowSchemas and PriorityLevelConfigurations (repeatable); an "
                     "object replaces the default of the same name")(
      "kubernetes-version", po::value(&version_text)->default_value("1.36"),
      "whose default objects to start from (1.29 to 1.37)");
  po::variables_map vm;
  if (!ParseCommandLine(args,
                        "apfsim model classify [--config FILE]... [--kubernetes-version V] "
                        "< requests.json",
                        opts, nullptr, vm)) {
    return kExitOk;
  }
  const apf::KubernetesVersion version =
      ParseKubernetesVersionOrThrow(version_text, "--kubernetes-version");
  const FlowControlManifests manifests = LoadFlowControlFiles(files);
  ThrowIfInvalid(manifests);
  const FlowControlSetup setup = BuildFlowControl(version, manifests);
  for (const apf::ConfigNote& n : setup.notes) {
    std::cerr << "apfsim model classify: note: " << n.object_kind << " " << n.name << ": "
              << n.message << "\n";
  }
  const apf::Classifier classifier(setup.config);
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  std::cout << ClassifyCases(classifier, cases, "<stdin>").dump() << "\n";
  return kExitOk;
}

const Registration kClassify({"model", "classify",
                              "the FlowSchema, level, distinguisher and flow hash of each request",
                              RunClassify});

}  // namespace
}  // namespace sim::cli
