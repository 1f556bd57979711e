// Loading flow-control manifests: the shapes users have (a kubectl List from a live
// cluster, multi-document files, single objects, typed lists, inline scenario lists), v1
// and v1beta3, defaulting, and strict errors located at file:line:column with the field
// path. Line numbers in the expectations are counted in the inline documents.
#include "sim/flowcontrol/loader.h"

#include <catch2/catch.hpp>
#include <string>

#include "apf/config/bootstrap_ensurer.h"
#include "sim/flowcontrol/manifest.h"

using sim::FlowControlManifests;
using sim::InputError;
using sim::ParseFlowControlYaml;

namespace {

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// What `kubectl get prioritylevelconfigurations,flowschemas -o yaml` prints from a live
// cluster, trimmed to one object of each kind.
const char kLiveList[] = R"(apiVersion: v1
items:
- apiVersion: flowcontrol.apiserver.k8s.io/v1
  kind: PriorityLevelConfiguration
  metadata:
    annotations:
      apf.kubernetes.io/autoupdate-spec: "true"
    creationTimestamp: "2026-05-01T09:12:44Z"
    generation: 1
    name: workload-low
    resourceVersion: "73"
    uid: 6f1d9c1e-4c4b-4f5e-9d7e-0e7d1f0b8a11
    managedFields:
    - apiVersion: flowcontrol.apiserver.k8s.io/v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata: {}
      manager: api-priority-and-fairness-config-producer-v1
      operation: Update
      time: "2026-05-01T09:12:44Z"
  spec:
    limited:
      lendablePercent: 90
      limitResponse:
        queuing:
          handSize: 6
          queueLengthLimit: 50
          queues: 128
        type: Queue
      nominalConcurrencyShares: 100
    type: Limited
  status: {}
- apiVersion: flowcontrol.apiserver.k8s.io/v1
  kind: FlowSchema
  metadata:
    annotations:
      apf.kubernetes.io/autoupdate-spec: "true"
    generation: 1
    name: service-accounts
    uid: 0a8e9d43-17a5-4a3c-8f6b-2d9c4b7e6f10
  spec:
    distinguisherMethod:
      type: ByUser
    matchingPrecedence: 9000
    priorityLevelConfiguration:
      name: workload-low
    rules:
    - nonResourceRules:
      - nonResourceURLs:
        - '*'
        verbs:
        - '*'
      resourceRules:
      - apiGroups:
        - '*'
        clusterScope: true
        namespaces:
        - '*'
        resources:
        - '*'
        verbs:
        - '*'
      subjects:
      - group:
          name: system:serviceaccounts
        kind: Group
  status:
    conditions:
    - lastTransitionTime: "2026-05-01T09:12:45Z"
      message: This FlowSchema references the PriorityLevelConfiguration object named "workload-low" and it exists
      reason: Found
      status: "False"
      type: Dangling
kind: List
metadata:
  resourceVersion: ""
)";

}  // namespace

TEST_CASE("a kubectl List from a live cluster loads and its bookkeeping is ignored", "[loader]") {
  const FlowControlManifests m = ParseFlowControlYaml(kLiveList, "live.yaml");
  REQUIRE(m.priority_levels.size() == 1);
  REQUIRE(m.flow_schemas.size() == 1);
  const auto& pl = m.priority_levels[0].object;
  CHECK(pl.metadata.name == "workload-low");
  CHECK(pl.metadata.generation == 1);
  CHECK(pl.metadata.annotations.at("apf.kubernetes.io/autoupdate-spec") == "true");
  CHECK(pl.spec.limited->nominal_concurrency_shares == 100);
  CHECK(pl.spec.limited->limit_response.queuing->queues == 128);
  const auto& fs = m.flow_schemas[0].object;
  CHECK(fs.spec.matching_precedence == 9000);
  CHECK(fs.spec.rules[0].subjects[0].group->name == "system:serviceaccounts");
  CHECK(m.flow_schemas[0].source.where.line == 33);
  CHECK(m.flow_schemas[0].source.path == "items[1]");
  CHECK(sim::ValidateManifests(m).empty());
  // The dump is exactly the 1.36 suggested objects.
  const apf::BootstrapObjects boot = apf::Bootstrap({1, 36});
  CHECK(pl.spec == boot.suggested_priority_levels[4].spec);
}

TEST_CASE("multi-document files and typed lists load in order", "[loader]") {
  const FlowControlManifests m = ParseFlowControlYaml(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: a}
spec: {type: Limited, limited: {limitResponse: {type: Reject}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchemaList
items:
- apiVersion: flowcontrol.apiserver.k8s.io/v1
  kind: FlowSchema
  metadata: {name: f1}
  spec: {priorityLevelConfiguration: {name: a}}
- apiVersion: flowcontrol.apiserver.k8s.io/v1
  kind: FlowSchema
  metadata: {name: f2}
  spec: {priorityLevelConfiguration: {name: a}, matchingPrecedence: 7}
)",
                                                      "multi.yaml");
  REQUIRE(m.flow_schemas.size() == 2);
  CHECK(m.flow_schemas[0].object.metadata.name == "f1");
  CHECK(m.flow_schemas[0].object.spec.matching_precedence == 1000);  // defaulted
  CHECK(m.flow_schemas[1].object.spec.matching_precedence == 7);
  CHECK(m.priority_levels[0].object.spec.limited->nominal_concurrency_shares == 30);
  CHECK(m.priority_levels[0].object.spec.limited->lendable_percent == 0);
}

TEST_CASE("queuing defaults fill zero sizes", "[loader]") {
  const FlowControlManifests m = ParseFlowControlYaml(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: q}
spec: {type: Limited, limited: {nominalConcurrencyShares: 5, limitResponse: {type: Queue, queuing: {}}}}
)",
                                                      "q.yaml");
  const auto& q = *m.priority_levels[0].object.spec.limited->limit_response.queuing;
  CHECK(q.queues == 64);
  CHECK(q.hand_size == 8);
  CHECK(q.queue_length_limit == 50);
}

TEST_CASE("v1beta3 objects are converted as the apiserver converts them", "[loader]") {
  auto level = [](const std::string& limited, const std::string& annotations = "") {
    const FlowControlManifests m = ParseFlowControlYaml(
        "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\n"
        "kind: PriorityLevelConfiguration\n"
        "metadata: {name: old" +
            annotations +
            "}\n"
            "spec: {type: Limited, limited: " +
            limited + "}\n",
        "beta.yaml");
    return m.priority_levels.at(0);
  };
  // v1beta3's shares are a plain int: 0, written or not, means the default 30.
  CHECK(level("{nominalConcurrencyShares: 0, limitResponse: {type: Reject}}")
            .object.spec.limited->nominal_concurrency_shares == 30);
  CHECK(level("{limitResponse: {type: Reject}}").object.spec.limited->nominal_concurrency_shares ==
        30);
  CHECK(level("{nominalConcurrencyShares: 7, limitResponse: {type: Reject}}")
            .object.spec.limited->nominal_concurrency_shares == 7);
  // ...unless the round-trip annotation keeps the zero; the conversion drops the annotation
  // and validation then refuses the zero.
  const auto kept = level("{nominalConcurrencyShares: 0, limitResponse: {type: Reject}}",
                          ", annotations: {flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-"
                          "shares: \"\"}");
  CHECK(kept.object.spec.limited->nominal_concurrency_shares == 0);
  CHECK(kept.object.metadata.annotations.empty());
  CHECK(kept.source.api_version == "flowcontrol.apiserver.k8s.io/v1beta3");
  FlowControlManifests m;
  m.priority_levels.push_back(kept);
  CHECK(ErrorOf([&] { sim::ThrowIfInvalid(m); }) ==
        "beta.yaml:4:59: spec.limited.nominalConcurrencyShares: PriorityLevelConfiguration "
        "\"old\" is invalid: Invalid value: 0: must be positive");
  // In v1 the field is a pointer: an explicit 0 stays 0 (and is refused); absent is 30.
  const FlowControlManifests v1 = ParseFlowControlYaml(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: new}
spec: {type: Limited, limited: {nominalConcurrencyShares: 0, limitResponse: {type: Reject}}}
)",
                                                       "v1.yaml");
  CHECK(v1.priority_levels[0].object.spec.limited->nominal_concurrency_shares == 0);
}

TEST_CASE("a misspelt field is an error at its line and column with its path", "[loader]") {
  CHECK(ErrorOf([] {
          ParseFlowControlYaml(R"(apiVersion: v1
kind: List
items:
- apiVersion: flowcontrol.apiserver.k8s.io/v1
  kind: PriorityLevelConfiguration
  metadata: {name: x}
  spec:
    type: Limited
    limited:
      limitResponse:
        type: Queue
        queuing:
          queus: 8
)",
                               "fence.yaml");
        }) ==
        "fence.yaml:13:11: items[0].spec.limited.limitResponse.queuing.queus: unknown "
        "field (did you mean \"queues\"?)");
  CHECK(ErrorOf([] {
          ParseFlowControlYaml(R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: x, nmespace: y}
)",
                               "f.yaml");
        }) == "f.yaml:3:21: metadata.nmespace: unknown field (did you mean \"namespace\"?)");
  CHECK(ErrorOf([] {
          ParseFlowControlYaml(R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: x}
spec:
  matchingPrecedence: high
)",
                               "f.yaml");
        }) == "f.yaml:5:23: spec.matchingPrecedence: expected an integer, got the string \"high\"");
}

TEST_CASE("wrong kinds and versions are refused with the reason", "[loader]") {
  CHECK(ErrorOf([] {
          ParseFlowControlYaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
                               "d.yaml");
        }) ==
        "d.yaml:2:7: kind: kind \"Deployment\" is not a flow-control object (expected "
        "FlowSchema, PriorityLevelConfiguration or List)");
  CHECK(ErrorOf([] {
          ParseFlowControlYaml(
              "apiVersion: flowcontrol.apiserver.k8s.io/v1beta2\nkind: FlowSchema\n", "b.yaml");
        }) ==
        "b.yaml:1:13: apiVersion: apiVersion \"flowcontrol.apiserver.k8s.io/v1beta2\" is "
        "not supported; use flowcontrol.apiserver.k8s.io/v1 (v1beta2 is no longer served by "
        "any supported Kubernetes version)");
  CHECK(ErrorOf([] { ParseFlowControlYaml("metadata: {name: x}\n", "k.yaml"); }) ==
        "k.yaml:1:1: (top level): kind is missing (expected FlowSchema, "
        "PriorityLevelConfiguration or List)");
}

TEST_CASE("validation errors point at the offending field", "[loader]") {
  const FlowControlManifests m = ParseFlowControlYaml(R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: tenant-sweep
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 20
    lendablePercent: 150
    limitResponse:
      type: Queue
      queuing: {queues: 8, handSize: 9}
)",
                                                      "fence.yaml");
  const std::vector<InputError> errors = sim::ValidateManifests(m);
  REQUIRE(errors.size() == 2);
  CHECK(std::string(errors[0].what()) ==
        "fence.yaml:12:38: spec.limited.limitResponse.queuing.handSize: PriorityLevelConfiguration "
        "\"tenant-sweep\" is invalid: Invalid value: 9: should not be greater than queues (8)");
  CHECK(std::string(errors[1].what()) ==
        "fence.yaml:9:22: spec.limited.lendablePercent: PriorityLevelConfiguration "
        "\"tenant-sweep\" is invalid: Invalid value: 150: must be between 0 and 100, inclusive");
}

TEST_CASE("inline manifests keep their scenario path", "[loader]") {
  const std::vector<YAML::Node> docs = sim::ParseYamlDocuments(R"(spec:
  flowControl:
    objects:
    - apiVersion: flowcontrol.apiserver.k8s.io/v1
      kind: PriorityLevelConfiguration
      metadata: {name: ok}
      spec: {type: Limited, limited: {limitResponse: {type: Reject}}}
    - apiVersion: flowcontrol.apiserver.k8s.io/v1
      kind: FlowSchema
      metadata: {name: bad}
      spec: {matchingPrecedense: 5}
)",
                                                               "scenario.yaml");
  const YAML::Node objects = docs[0]["spec"]["flowControl"]["objects"];
  CHECK(ErrorOf([&] {
          sim::ReadFlowControlObjects(
              sim::YamlValue(objects, "scenario.yaml", "spec.flowControl.objects"));
        }) ==
        "scenario.yaml:11:14: spec.flowControl.objects[1].spec.matchingPrecedense: unknown "
        "field (did you mean \"matchingPrecedence\"?)");
  const FlowControlManifests m = sim::ReadFlowControlObjects(
      sim::YamlValue(objects[0], "scenario.yaml", "spec.flowControl.objects[0]"));
  CHECK(m.priority_levels.at(0).source.FullPath("spec.type") ==
        "spec.flowControl.objects[0].spec.type");
}

TEST_CASE("a later object of the same name replaces the earlier one", "[loader]") {
  FlowControlManifests m = ParseFlowControlYaml(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: a}
spec: {type: Limited, limited: {nominalConcurrencyShares: 1, limitResponse: {type: Reject}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: a}
spec: {type: Limited, limited: {nominalConcurrencyShares: 2, limitResponse: {type: Reject}}}
)",
                                                "twice.yaml");
  std::vector<apf::ConfigNote> notes;
  const apf::FlowControlObjects objects = m.Objects(&notes);
  REQUIRE(objects.priority_levels.size() == 1);
  CHECK(objects.priority_levels[0].spec.limited->nominal_concurrency_shares == 2);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].message ==
        "given again (twice.yaml:7); the later object replaces the earlier, as applying both "
        "would");
}

TEST_CASE("the defaults written as YAML load back to the same objects", "[loader][manifest]") {
  for (apf::KubernetesVersion v : {apf::KubernetesVersion{1, 29}, apf::KubernetesVersion{1, 37}}) {
    const apf::BootstrapObjects boot = apf::Bootstrap(v);
    apf::FlowControlObjects objects;
    objects.priority_levels = boot.suggested_priority_levels;
    objects.priority_levels.insert(objects.priority_levels.end(),
                                   boot.mandatory_priority_levels.begin(),
                                   boot.mandatory_priority_levels.end());
    objects.flow_schemas = boot.suggested_flow_schemas;
    objects.flow_schemas.insert(objects.flow_schemas.end(), boot.mandatory_flow_schemas.begin(),
                                boot.mandatory_flow_schemas.end());
    const std::string yaml = sim::JsonToYaml(sim::ObjectsToList(objects));
    const FlowControlManifests back = ParseFlowControlYaml(yaml, "defaults.yaml");
    REQUIRE(back.priority_levels.size() == objects.priority_levels.size());
    REQUIRE(back.flow_schemas.size() == objects.flow_schemas.size());
    for (size_t i = 0; i < objects.priority_levels.size(); ++i) {
      CHECK(back.priority_levels[i].object.spec == objects.priority_levels[i].spec);
      CHECK(back.priority_levels[i].object.metadata == objects.priority_levels[i].metadata);
    }
    for (size_t i = 0; i < objects.flow_schemas.size(); ++i) {
      CHECK(back.flow_schemas[i].object.spec == objects.flow_schemas[i].spec);
    }
    CHECK(sim::ValidateManifests(back).empty());
  }
}

TEST_CASE("strings that would read as other types are quoted in YAML output", "[manifest]") {
  const nlohmann::json j = {{"a", "*"},        {"b", "true"}, {"c", "123"},       {"d", ""},
                            {"e", "/healthz"}, {"f", "yes"},  {"g", "plain-text"}};
  const std::string yaml = sim::JsonToYaml(j);
  CHECK(yaml ==
        "a: \"*\"\nb: \"true\"\nc: \"123\"\nd: \"\"\ne: /healthz\nf: \"yes\"\ng: plain-text\n");
}
