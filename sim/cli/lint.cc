// `apfsim lint`: validates flow-control files as the apiserver would, then warns about
// valid configurations that probably do not do what was meant (sim/flowcontrol/lint.h).
// Exit 0 when there are only warnings, 2 when an object is invalid.
#include "sim/flowcontrol/lint.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunLint(const Args& args) {
  std::vector<std::string> files;
  std::string version_text, output;
  LintOptions options;
  po::options_description opts("options");
  opts.add_options()("config", po::value(&files)->composing()->multitoken(),
                     "a file of FlowSchemas and PriorityLevelConfigurations (repeatable)")(
      "kubernetes-version", po::value(&version_text)->default_value("1.36"),
      "the cluster's version, whose default objects the files are applied to (1.29 to 1.37)")(
      "server-concurrency-limit",
      po::value(&options.server_concurrency_limit)->default_value(options.server_concurrency_limit),
      "max-requests-inflight plus max-mutating-requests-inflight")(
      "expected-flows", po::value(&options.expected_flows)->default_value(options.expected_flows),
      "flows assumed for a level whose FlowSchemas do not bound them (collision check)")(
      "collision-threshold",
      po::value(&options.collision_threshold)->default_value(options.collision_threshold),
      "warn when a flow's whole hand is shared with at least this probability")(
      "output,o", po::value(&output)->default_value("text"), "text or json");
  po::positional_options_description positional;
  positional.add("config", -1);
  po::variables_map vm;
  if (!ParseCommandLine(args, "apfsim lint --config FILE... [--kubernetes-version V]", opts,
                        &positional, vm)) {
    return kExitOk;
  }
  if (files.empty()) throw InputError({}, "--config", "give at least one file to lint");
  if (output != "text" && output != "json") {
    throw InputError({}, "--output", "\"" + output + "\" is not text or json");
  }
  const apf::KubernetesVersion version =
      ParseKubernetesVersionOrThrow(version_text, "--kubernetes-version");
  const FlowControlManifests manifests = LoadFlowControlFiles(files);
  const std::vector<InputError> errors = ValidateManifests(manifests);
  if (!errors.empty()) {
    for (const InputError& e : errors) std::cerr << "apfsim lint: error: " << e.what() << "\n";
    std::cerr << "apfsim lint: " << errors.size() << " error(s); the apiserver would refuse "
              << (errors.size() == 1 ? "this object" : "these objects") << "\n";
    return kExitBadInput;
  }
  const FlowControlSetup setup = BuildFlowControl(version, manifests);
  const std::vector<LintWarning> warnings = LintFlowControl(manifests, setup, options);
  if (output == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const LintWarning& w : warnings) {
      out.push_back({{"check", w.check},
                     {"kind", w.object_kind},
                     {"name", w.name},
                     {"field", w.field},
                     {"file", w.where.file},
                     {"line", w.where.line},
                     {"column", w.where.column},
                     {"message", w.message}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    for (const LintWarning& w : warnings) std::cout << FormatLintWarning(w) << "\n";
    std::cout << warnings.size() << " warning(s) for Kubernetes " << version.ToString() << "\n";
  }
  return kExitOk;
}

const Registration kLint({"", "lint", "validate flow-control files and warn about likely mistakes",
                          RunLint});

}  // namespace
}  // namespace sim::cli
