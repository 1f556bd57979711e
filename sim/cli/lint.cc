// `apfsim lint`: validates flow-control files (or a scenario's flow-control objects) as the
// apiserver would, then warns about valid configurations that probably do not do what was
// meant (sim/flowcontrol/lint.h). Exit 0 when there are only warnings (1 with --strict),
// 2 when an object or the input is invalid.
#include "sim/flowcontrol/lint.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunLint(const Args& args) {
  std::vector<std::string> files;
  std::string version_text, output, scenario_path;
  bool strict = false, all = false;
  LintOptions options;
  po::options_description opts("options");
  opts.add_options()(
      "config", po::value(&files)->composing()->multitoken(),
      "a file of FlowSchemas and PriorityLevelConfigurations (repeatable; - reads standard "
      "input, e.g. kubectl get ... -o yaml)")(
      "scenario", po::value(&scenario_path),
      "lint the flow-control objects of this scenario, with its Kubernetes version and "
      "in-flight limits (its files and inline objects; --config files are applied after)")(
      "strict", po::bool_switch(&strict),
      "exit 1 when there is any warning about what you changed or added")(
      "all", po::bool_switch(&all),
      "also show the informational warnings about objects equal to the version's own "
      "suggested or mandatory spec (never counted by --strict)")(
      "kubernetes-version", po::value(&version_text)->default_value("1.36"),
      "the cluster's version, whose default objects the files are applied to (1.29 to 1.37)")(
      "server-concurrency-limit",
      po::value(&options.server_concurrency_limit)->default_value(options.server_concurrency_limit),
      "max-requests-inflight plus max-mutating-requests-inflight")(
      "expected-flows", po::value(&options.expected_flows)->default_value(options.expected_flows),
      "flows assumed for a level whose FlowSchemas do not bound them (collision check)")(
      "heavy-flows", po::value(&options.heavy_flows)->default_value(options.heavy_flows),
      "flows assumed to keep their queues long (collision check)")(
      "collision-threshold",
      po::value(&options.collision_threshold)->default_value(options.collision_threshold),
      "warn when a flow's whole hand is shared with at least this probability")(
      "output,o", po::value(&output)->default_value("text"), "text or json");
  po::positional_options_description positional;
  positional.add("config", -1);
  po::variables_map vm;
  if (!ParseCommandLine(args, "apfsim lint --config FILE... | --scenario FILE [--strict]", opts,
                        &positional, vm,
                        "apfsim lint --config scenarios/seed000-fence.yaml --strict\n"
                        "apfsim lint --scenario scenarios/drift-sweep-fenced.yaml -o json\n"
                        "kubectl get flowschemas,prioritylevelconfigurations -o yaml | "
                        "apfsim lint --config -")) {
    return kExitOk;
  }
  if (files.empty() && scenario_path.empty()) {
    throw InputError({}, "--config", "give at least one file to lint, or --scenario");
  }
  if (output != "text" && output != "json") {
    throw InputError({}, "--output", "\"" + output + "\" is not text or json");
  }
  apf::KubernetesVersion version =
      ParseKubernetesVersionOrThrow(version_text, "--kubernetes-version");
  FlowControlManifests manifests;
  std::optional<Scenario> scenario;
  if (!scenario_path.empty()) {
    scenario = LoadScenario(scenario_path);
    if (!vm["kubernetes-version"].defaulted()) {
      throw InputError({}, "--kubernetes-version",
                       "the scenario gives the version (spec.apiservers.kubernetesVersion)");
    }
    version = ParseKubernetesVersionOrThrow(scenario->apiservers.kubernetes_version,
                                            "spec.apiservers.kubernetesVersion");
    if (vm["server-concurrency-limit"].defaulted()) {
      options.server_concurrency_limit = scenario->apiservers.max_requests_inflight +
                                         scenario->apiservers.max_mutating_requests_inflight;
    }
    manifests = ScenarioManifests(*scenario);
  }
  const FlowControlManifests file_manifests = LoadFlowControlFiles(files);
  manifests.Append(file_manifests);
  const std::vector<InputError> errors = ValidateManifests(manifests);
  if (!errors.empty()) {
    for (const InputError& e : errors) std::cerr << "apfsim lint: error: " << e.what() << "\n";
    std::cerr << "apfsim lint: " << errors.size() << " error(s); the apiserver would refuse "
              << (errors.size() == 1 ? "this object" : "these objects") << "\n";
    return kExitBadInput;
  }
  // A scenario's own setup honours its `defaults: false` and `--set`-style overrides.
  const FlowControlSetup setup = scenario ? BuildScenarioFlowControl(*scenario, &file_manifests)
                                          : BuildFlowControl(version, manifests);
  std::vector<LintWarning> warnings = LintFlowControl(manifests, setup, options);
  // Kubernetes' own objects, unchanged, hold for every cluster of the version: shown with
  // --all, never failing --strict (doc/config-loading.md#stock-objects).
  const std::size_t stock = static_cast<std::size_t>(std::count_if(
      warnings.begin(), warnings.end(), [](const LintWarning& w) { return w.stock; }));
  if (!all) std::erase_if(warnings, [](const LintWarning& w) { return w.stock; });
  const std::size_t counted = static_cast<std::size_t>(std::count_if(
      warnings.begin(), warnings.end(), [](const LintWarning& w) { return !w.stock; }));
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
                     {"message", w.message},
                     {"informational", w.stock}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    for (const LintWarning& w : warnings) std::cout << FormatLintWarning(w) << "\n";
    std::cout << counted << " warning(s) for Kubernetes " << version.ToString();
    if (stock > 0) {
      std::cout << (all ? "; " : "; not shown: ") << stock
                << " informational about the version's own unchanged objects"
                << (all ? "" : " (--all shows them)");
    }
    std::cout << "\n";
  }
  // --strict: 1, the code `check` gives a failed assertion; 2 stays "bad input".
  return strict && counted > 0 ? kExitExpectationFailed : kExitOk;
}

const Registration kLint({"", "lint", "validate flow-control files and warn about likely mistakes",
                          RunLint});

}  // namespace
}  // namespace sim::cli
