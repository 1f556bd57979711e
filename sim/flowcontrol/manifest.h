// Flow-control objects written out as Kubernetes manifests: the JSON of
// flowcontrol.apiserver.k8s.io/v1 (field names and omitempty rules of
// k8s.io/api flowcontrol/v1/types.go, keys sorted as kubectl prints them), and the same
// as kubectl-style YAML, which the loader (sim/flowcontrol/loader.h) and
// `kubectl apply -f` both accept.
#ifndef SIM_FLOWCONTROL_MANIFEST_H_
#define SIM_FLOWCONTROL_MANIFEST_H_

#include <nlohmann/json.hpp>
#include <string>

#include "apf/config/flow_control_config.h"

namespace sim {

nlohmann::json FlowSchemaToJson(const apf::FlowSchema& fs);
nlohmann::json PriorityLevelToJson(const apf::PriorityLevelConfiguration& pl);

// A `List` (apiVersion v1) of the priority levels, then the FlowSchemas, as
// `kubectl get prioritylevelconfigurations,flowschemas -o json` lists them.
nlohmann::json ObjectsToList(const apf::FlowControlObjects& objects);

// Block-style YAML of a JSON value, in kubectl's layout (list items at the indentation
// of their key). Strings that would read as another type are quoted.
std::string JsonToYaml(const nlohmann::json& value);

}  // namespace sim

#endif  // SIM_FLOWCONTROL_MANIFEST_H_
