// `apfsim explain`: how the apiserver would classify one request: the FlowSchemas tried
// in order and why each did or did not match, the one chosen, its priority level, the
// flow distinguisher, the flow hash, the hand of queues and the level's seats, and the
// seats the work estimator charges the request, from object counts given as flags or
// taken from a scenario (--scenario: its objects, version, limits, gates and resources).
// With --collisions LEVEL it explains a scenario's flows instead: which of them land at the
// level, each one's hand of queues, and which pairs of flows share queues.
#include "sim/flowcontrol/explain.h"

#include <iostream>

#include "apf/classification/user_info.h"
#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"
#include "sim/scenario/feature_gates.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"
#include "sim/world/scenario_calls.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

// What the command line gives, before it is checked.
struct ExplainFlags {
  std::vector<std::string> files, groups;
  std::string version_text, user, service_account, verb, resource, subresource, api_group, ns, name,
      path, output, query, scenario_path;
  bool anonymous = false;
  int server_cl = kDefaultServerConcurrencyLimit;
  std::int64_t objects = 0, object_bytes = 0, watchers = 0;
};

po::options_description ExplainOptionsOf(ExplainFlags& f) {
  po::options_description opts("options");
  opts.add_options()(
      "config", po::value(&f.files)->composing()->multitoken(),
      "a file of FlowSchemas and PriorityLevelConfigurations (repeatable; - reads standard "
      "input, e.g. kubectl get ... -o yaml)")("kubernetes-version",
                                              po::value(&f.version_text)->default_value("1.36"),
                                              "whose default objects to start from (1.29 to 1.37)")(
      "user", po::value(&f.user), "an authenticated user (system:authenticated is added)")(
      "group", po::value(&f.groups)->composing(), "a group of the user (repeatable)")(
      "service-account", po::value(&f.service_account),
      "NAMESPACE/NAME: the service account's user and groups")(
      "anonymous", po::bool_switch(&f.anonymous), "an unauthenticated request")(
      "verb", po::value(&f.verb),
      "get, list, watch, create, update, patch, delete, ...; for --path, the lowercased HTTP "
      "method (default get)")("resource", po::value(&f.resource),
                              "the resource, or resource/subresource (pods/log)")(
      "subresource", po::value(&f.subresource), "the subresource")(
      "api-group", po::value(&f.api_group), "the API group (\"\" is the core group)")(
      "namespace", po::value(&f.ns), "the namespace (none: cluster-scoped or all namespaces)")(
      "name", po::value(&f.name), "the object's name")("path", po::value(&f.path),
                                                       "a non-resource URL path such as /healthz")(
      "query", po::value(&f.query),
      "the request's query string, as the work estimator reads it "
      "(\"limit=500&resourceVersion=0\")")("objects", po::value(&f.objects),
                                           "objects of the request's resource (work estimate)")(
      "object-bytes", po::value(&f.object_bytes),
      "their average size in bytes (work estimate; default 1000)")(
      "watchers", po::value(&f.watchers)->default_value(0),
      "watches a write to this resource fans out to (work estimate)")(
      "scenario", po::value(&f.scenario_path),
      "take the objects, Kubernetes version, in-flight limits, feature gates and resource "
      "counts from this scenario (--config files are applied after its objects)")(
      "server-concurrency-limit", po::value(&f.server_cl)->default_value(f.server_cl),
      "max-requests-inflight plus max-mutating-requests-inflight")(
      "output,o", po::value(&f.output)->default_value("text"), "text or json");
  // Not in sim/cli/flags.cc's table: explain's flags are declared here, and a table row
  // would make the completion and man page list --collisions as explain's only flag.
  opts.add_options()("collisions", po::value<std::string>(),
                     "LEVEL: instead of one request, the scenario's flows (--scenario) that land "
                     "at this priority level, each flow's hand of queues, and the queues each "
                     "pair of flows shares");
  return opts;
}

// The user the request is made as: exactly one of --user, --service-account, --anonymous.
apf::UserInfo IdentityOf(const ExplainFlags& f) {
  const int identities = !f.user.empty() + !f.service_account.empty() + f.anonymous;
  if (identities != 1) {
    throw InputError({}, "--user", "give exactly one of --user, --service-account, --anonymous");
  }
  apf::UserInfo who;
  if (!f.service_account.empty()) {
    std::string why;
    std::optional<apf::UserInfo> sa = apf::ParseServiceAccount(f.service_account, &why);
    if (!sa) throw InputError({}, "--service-account", why);
    who = *sa;
    // Extra groups go before the authenticator's system:authenticated.
    who.groups.insert(who.groups.end() - 1, f.groups.begin(), f.groups.end());
  } else if (f.anonymous) {
    who = apf::AnonymousUser();
    who.groups.insert(who.groups.end(), f.groups.begin(), f.groups.end());
  } else {
    who = apf::AuthenticatedUser(f.user, f.groups);
  }
  return who;
}

// The request as RequestInfoFactory would give it: a resource request or a path.
apf::RequestInfo RequestOf(const ExplainFlags& f) {
  apf::RequestInfo request;
  if (!f.path.empty()) {
    if (!f.resource.empty()) throw InputError({}, "--path", "give --path or --resource, not both");
    request.is_resource_request = false;
    request.path = f.path;
    request.verb = f.verb.empty() ? "get" : f.verb;
  } else {
    if (f.resource.empty()) throw InputError({}, "--resource", "give --resource or --path");
    if (f.verb.empty()) throw InputError({}, "--verb", "a resource request needs a verb");
    request.is_resource_request = true;
    request.verb = f.verb;
    if (const size_t slash = f.resource.find('/'); slash != std::string::npos) {
      request.resource = f.resource.substr(0, slash);
      request.subresource = f.resource.substr(slash + 1);
      if (!f.subresource.empty()) {
        throw InputError({}, "--subresource", "already given in --resource " + f.resource);
      }
    } else {
      request.resource = f.resource;
      request.subresource = f.subresource;
    }
    request.api_group = f.api_group;
    request.namespace_name = f.ns;
    request.name = f.name;
  }
  return request;
}

// The objects, limits and counts the request is explained against: a scenario's, or the
// version's defaults with the --config files, and the object counts of the flags.
FlowControlSetup SetupOf(const ExplainFlags& f, const po::variables_map& vm,
                         const apf::RequestInfo& request, ExplainOptions& options) {
  const bool objects_given = vm.count("objects") > 0, bytes_given = vm.count("object-bytes") > 0;
  for (const auto& [flag, value] :
       {std::pair{"--objects", f.objects}, std::pair{"--object-bytes", f.object_bytes},
        std::pair{"--watchers", f.watchers}}) {
    if (value < 0) throw InputError({}, flag, "must not be negative");
  }
  // kube-apiserver refuses a negative --max-requests-inflight or
  // --max-mutating-requests-inflight (server_run_options.go), so their sum is never negative.
  if (f.server_cl < 0) {
    throw InputError({}, "--server-concurrency-limit", "must not be negative");
  }
  options.server_concurrency_limit = f.server_cl;
  options.watch_count = f.watchers;
  const FlowControlManifests files_manifests = LoadFlowControlFiles(f.files);
  ThrowIfInvalid(files_manifests);
  FlowControlSetup setup;
  if (!f.scenario_path.empty()) {
    if (!vm["kubernetes-version"].defaulted()) {
      throw InputError({}, "--kubernetes-version",
                       "the scenario gives the version (spec.apiservers.kubernetesVersion)");
    }
    const Scenario scenario = LoadScenario(f.scenario_path);
    setup = BuildScenarioFlowControl(scenario, &files_manifests);
    if (vm["server-concurrency-limit"].defaulted()) {
      options.server_concurrency_limit = scenario.apiservers.max_requests_inflight +
                                         scenario.apiservers.max_mutating_requests_inflight;
    }
    options.estimator = WorkEstimatorConfigOf(scenario.apiservers);
    for (const ResourceSpec& r : scenario.resources) {
      if (r.api_group == request.api_group && r.resource == request.resource) {
        options.object_stats = {r.objects, r.average_bytes};
        options.object_stats_given = true;
      }
    }
  } else {
    const apf::KubernetesVersion version =
        ParseKubernetesVersionOrThrow(f.version_text, "--kubernetes-version");
    setup = BuildFlowControl(version, files_manifests);
    options.estimator = WorkEstimatorConfigOf(version);
  }
  if (objects_given) {
    options.object_stats.object_count = f.objects;
    options.object_stats_given = true;
  }
  if (bytes_given) {
    options.object_stats.estimated_average_object_size_bytes = f.object_bytes;
  } else if (objects_given && f.scenario_path.empty()) {
    options.object_stats.estimated_average_object_size_bytes = 1000;  // ResourceSpec's default
  }
  for (const std::string& w : setup.reset_warnings) std::cerr << "apfsim explain: " << w << "\n";
  for (const apf::ConfigNote& n : setup.notes) {
    // A spec put back is the warning above, with its fields and remedy.
    if (n.message.rfind("mandatory object:", 0) == 0 ||
        n.message.rfind("the suggested spec of this version replaces", 0) == 0) {
      continue;
    }
    std::cerr << "apfsim explain: note: " << n.object_kind << " " << n.name << ": " << n.message
              << "\n";
  }
  return setup;
}

// Every call the scenario's clients can make (sim/world/scenario_calls.h), as
// ExplainCollisions weighs them: a process of a client with several is named "client[N]".
std::vector<CollisionCall> CollisionCallsOf(const Scenario& scenario) {
  std::vector<CollisionCall> calls;
  for (ScenarioCall& call : ScenarioCalls(scenario)) {
    calls.push_back({std::move(call.sender), std::move(call.user), std::move(call.request)});
  }
  return calls;
}

// explain --collisions LEVEL --scenario FILE [--config FILE]...
int RunCollisions(const ExplainFlags& f, const po::variables_map& vm) {
  for (const char* flag :
       {"user", "group", "service-account", "verb", "resource", "subresource", "api-group",
        "namespace", "name", "path", "query", "objects", "object-bytes"}) {
    if (vm.count(flag)) {
      throw InputError({}, std::string("--") + flag,
                       "--collisions explains the scenario's own calls, not one request");
    }
  }
  if (f.anonymous) {
    throw InputError({}, "--anonymous",
                     "--collisions explains the scenario's own calls, not one request");
  }
  if (f.scenario_path.empty()) {
    throw InputError({}, "--collisions", "needs --scenario: the flows are its clients'");
  }
  if (!vm["kubernetes-version"].defaulted()) {
    throw InputError({}, "--kubernetes-version",
                     "the scenario gives the version (spec.apiservers.kubernetesVersion)");
  }
  const FlowControlManifests files_manifests = LoadFlowControlFiles(f.files);
  ThrowIfInvalid(files_manifests);
  const Scenario scenario = LoadScenario(f.scenario_path);
  const FlowControlSetup setup = BuildScenarioFlowControl(scenario, &files_manifests);
  const nlohmann::json e =
      ExplainCollisions(setup, vm["collisions"].as<std::string>(), CollisionCallsOf(scenario));
  std::cout << (f.output == "json" ? e.dump(2) + "\n" : FormatCollisions(e));
  return kExitOk;
}

int RunExplain(const Args& args) {
  ExplainFlags f;
  po::options_description opts = ExplainOptionsOf(f);
  po::variables_map vm;
  if (!ParseCommandLine(
          args,
          "apfsim explain [--config FILE]... [--scenario FILE] [--kubernetes-version V]\n"
          "    (--user U [--group G]... | --service-account NS/NAME | --anonymous)\n"
          "    (--verb V --resource R [--api-group G] [--namespace N] [--name N]\n"
          "     [--query Q] [--objects N] [--object-bytes B] [--watchers N]\n"
          "     | --path P [--verb get])\n"
          "       apfsim explain --collisions LEVEL --scenario FILE [--config FILE]...",
          opts, nullptr, vm,
          "apfsim explain --scenario scenarios/drift-sweep-fenced.yaml \\\n"
          "    --service-account platform/tenant-operator --verb list \\\n"
          "    --api-group platform.example.com --resource tenantbindings --namespace ns-0001\n"
          "apfsim explain --user alice --group system:authenticated --path /healthz\n"
          "apfsim explain --collisions workload-low --scenario scenarios/drift-sweep.yaml\n"
          "kubectl get flowschemas,prioritylevelconfigurations -o yaml | \\\n"
          "    apfsim explain --config - --user alice --verb get --resource pods")) {
    return kExitOk;
  }
  if (f.output != "text" && f.output != "json") {
    throw InputError({}, "--output", "\"" + f.output + "\" is not text or json");
  }
  if (vm.count("collisions")) return RunCollisions(f, vm);
  const apf::UserInfo who = IdentityOf(f);
  apf::RequestInfo request = RequestOf(f);
  if (!f.query.empty()) request.query = apf::ParseRequestQuery(f.query);
  ExplainOptions options;
  const FlowControlSetup setup = SetupOf(f, vm, request, options);
  const nlohmann::json e = ExplainRequest(setup, who, request, options);
  if (f.output == "json") {
    std::cout << e.dump(2) << "\n";
  } else {
    std::cout << FormatExplanation(e);
  }
  return kExitOk;
}

const Registration kExplain({"", "explain", "show how one request is classified, step by step",
                             RunExplain});

}  // namespace
}  // namespace sim::cli
