// `apfsim explain`: how the apiserver would classify one request: the FlowSchemas tried
// in order and why each did or did not match, the one chosen, its priority level, the
// flow distinguisher, the flow hash, the hand of queues and the level's seats.
#include "sim/flowcontrol/explain.h"

#include <iostream>

#include "apf/user_info.h"
#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunExplain(const Args& args) {
  std::vector<std::string> files, groups;
  std::string version_text, user, service_account, verb, resource, subresource, api_group, ns, name,
      path, output;
  bool anonymous = false;
  int server_cl = kDefaultServerConcurrencyLimit;
  po::options_description opts("options");
  opts.add_options()("config", po::value(&files)->composing()->multitoken(),
                     "a file of FlowSchemas and PriorityLevelConfigurations (repeatable)")(
      "kubernetes-version", po::value(&version_text)->default_value("1.36"),
      "whose default objects to start from (1.29 to 1.37)")(
      "user", po::value(&user), "an authenticated user (system:authenticated is added)")(
      "group", po::value(&groups)->composing(), "a group of the user (repeatable)")(
      "service-account", po::value(&service_account),
      "NAMESPACE/NAME: the service account's user and groups")(
      "anonymous", po::bool_switch(&anonymous), "an unauthenticated request")(
      "verb", po::value(&verb),
      "get, list, watch, create, update, patch, delete, ...; for --path, the lowercased HTTP "
      "method (default get)")("resource", po::value(&resource),
                              "the resource, or resource/subresource (pods/log)")(
      "subresource", po::value(&subresource), "the subresource")(
      "api-group", po::value(&api_group), "the API group (\"\" is the core group)")(
      "namespace", po::value(&ns), "the namespace (none: cluster-scoped or all namespaces)")(
      "name", po::value(&name), "the object's name")("path", po::value(&path),
                                                     "a non-resource URL path such as /healthz")(
      "server-concurrency-limit", po::value(&server_cl)->default_value(server_cl),
      "max-requests-inflight plus max-mutating-requests-inflight")(
      "output,o", po::value(&output)->default_value("text"), "text or json");
  po::variables_map vm;
  if (!ParseCommandLine(args,
                        "apfsim explain [--config FILE]... [--kubernetes-version V] "
                        "(--user U [--group G]... | --service-account NS/NAME | --anonymous) "
                        "(--verb V --resource R [--api-group G] [--namespace N] [--name N] | "
                        "--path P [--verb get])",
                        opts, nullptr, vm)) {
    return kExitOk;
  }
  const int identities = !user.empty() + !service_account.empty() + anonymous;
  if (identities != 1) {
    throw InputError({}, "--user", "give exactly one of --user, --service-account, --anonymous");
  }
  apf::UserInfo who;
  if (!service_account.empty()) {
    std::string why;
    std::optional<apf::UserInfo> sa = apf::ParseServiceAccount(service_account, &why);
    if (!sa) throw InputError({}, "--service-account", why);
    who = *sa;
    // Extra groups go before the authenticator's system:authenticated.
    who.groups.insert(who.groups.end() - 1, groups.begin(), groups.end());
  } else if (anonymous) {
    who = apf::AnonymousUser();
    who.groups.insert(who.groups.end(), groups.begin(), groups.end());
  } else {
    who = apf::AuthenticatedUser(user, groups);
  }
  apf::RequestInfo request;
  if (!path.empty()) {
    if (!resource.empty()) throw InputError({}, "--path", "give --path or --resource, not both");
    request.is_resource_request = false;
    request.path = path;
    request.verb = verb.empty() ? "get" : verb;
  } else {
    if (resource.empty()) throw InputError({}, "--resource", "give --resource or --path");
    if (verb.empty()) throw InputError({}, "--verb", "a resource request needs a verb");
    request.is_resource_request = true;
    request.verb = verb;
    if (const size_t slash = resource.find('/'); slash != std::string::npos) {
      request.resource = resource.substr(0, slash);
      request.subresource = resource.substr(slash + 1);
      if (!subresource.empty()) {
        throw InputError({}, "--subresource", "already given in --resource " + resource);
      }
    } else {
      request.resource = resource;
      request.subresource = subresource;
    }
    request.api_group = api_group;
    request.namespace_name = ns;
    request.name = name;
  }
  if (output != "text" && output != "json") {
    throw InputError({}, "--output", "\"" + output + "\" is not text or json");
  }
  const apf::KubernetesVersion version =
      ParseKubernetesVersionOrThrow(version_text, "--kubernetes-version");
  const FlowControlManifests manifests = LoadFlowControlFiles(files);
  ThrowIfInvalid(manifests);
  const FlowControlSetup setup = BuildFlowControl(version, manifests);
  for (const apf::ConfigNote& n : setup.notes) {
    std::cerr << "apfsim explain: note: " << n.object_kind << " " << n.name << ": " << n.message
              << "\n";
  }
  ExplainOptions options;
  options.server_concurrency_limit = server_cl;
  const nlohmann::json e = ExplainRequest(setup, who, request, options);
  if (output == "json") {
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
