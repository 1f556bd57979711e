// Loading FlowSchema and PriorityLevelConfiguration objects from YAML, the way users have
// them: what `kubectl get flowschemas,prioritylevelconfigurations -o yaml` prints (a
// `List` with `items`, with uid, resourceVersion, managedFields, status and the rest of
// a live object's bookkeeping, all accepted and ignored), multi-document files with
// `---`, single objects, and typed lists (FlowSchemaList, ...). Both
// flowcontrol.apiserver.k8s.io/v1 and v1beta3 are read; v1beta3 is converted to v1 as the
// apiserver converts it. Objects are defaulted as the apiserver defaults them.
//
// Reading is strict (sim/io/yaml_input.h): an unknown or misspelt field, a duplicate field
// or a value of the wrong type is an InputError with file, line, column and field path.
// Validation (the apiserver's rules, apf/config/validation.h) is a separate step so
// that `apfsim lint` can report every invalid object; ThrowIfInvalid() is the usual call.
//
// Then BuildFlowControl() applies the objects to a cluster of a Kubernetes version (the
// bootstrap objects and the config producer, apf/config/bootstrap_ensurer.h) and digests the
// result into the configuration the classifier and the queue sets use.
#ifndef SIM_FLOWCONTROL_LOADER_H_
#define SIM_FLOWCONTROL_LOADER_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "apf/config/bootstrap.h"
#include "apf/config/flow_control_config.h"
#include "sim/io/input_error.h"
#include "sim/io/yaml_input.h"

namespace sim {

// Where an object came from, for messages about it.
struct ManifestSource {
  SourceLocation where;     // the object's start
  std::string path;         // its field path in the document ("items[3]", "" at the top)
  std::string api_version;  // as written: ".../v1" or ".../v1beta3"
  // Where each field read was, keyed by its path inside the object ("spec.limited").
  std::map<std::string, SourceLocation> fields;
  // Fields written as 0 that the apiserver's defaulting replaced ("spec.limited.
  // limitResponse.queuing.handSize" -> "0, defaulted to 8"), so that a message about the
  // value validation saw can say where it came from.
  std::map<std::string, std::string> defaulted;

  // The location of `field` or of its nearest enclosing field that was read.
  SourceLocation LocationOf(const std::string& field) const;
  // The full field path of `field` ("items[3].spec.limited").
  std::string FullPath(const std::string& field) const;
};

struct LoadedPriorityLevel {
  apf::PriorityLevelConfiguration object;
  ManifestSource source;
};

struct LoadedFlowSchema {
  apf::FlowSchema object;
  ManifestSource source;
};

struct FlowControlManifests {
  std::vector<LoadedPriorityLevel> priority_levels;
  std::vector<LoadedFlowSchema> flow_schemas;

  void Append(FlowControlManifests other);
  // The objects, in order; an object of a name seen before replaces the earlier one, as
  // applying the files in order to a cluster would (noted in `notes`, which may be null).
  apf::FlowControlObjects Objects(std::vector<apf::ConfigNote>* notes = nullptr) const;
  const ManifestSource* FindSource(std::string_view kind, std::string_view name) const;
};

// Reads one YAML value holding an object, a List of objects, or a sequence of either
// (scenarios embed manifests as a list). `value` carries the source name and the field
// path used in messages.
FlowControlManifests ReadFlowControlObjects(const YamlValue& value);
// The same for an already-parsed node of the file `source`.
FlowControlManifests ReadFlowControlNode(const YAML::Node& node, const std::string& source);
// Every document of `text`.
FlowControlManifests ParseFlowControlYaml(std::string_view text, const std::string& source);
FlowControlManifests LoadFlowControlFile(const std::string& path);
FlowControlManifests LoadFlowControlFiles(const std::vector<std::string>& paths);

// A --kubernetes-version value (or a scenario's kubernetesVersion); an unsupported or
// malformed one throws an InputError naming `field`.
apf::KubernetesVersion ParseKubernetesVersionOrThrow(const std::string& text,
                                                     const std::string& field);

// Validation errors of every object, one InputError per field error, located at the
// offending field.
std::vector<InputError> ValidateManifests(const FlowControlManifests& manifests);
// Throws the first validation error, if any.
void ThrowIfInvalid(const FlowControlManifests& manifests);

struct FlowControlSetup {
  apf::KubernetesVersion version;
  apf::FlowControlObjects objects;  // as the cluster holds them after the config producer
  apf::FlowControlConfig config;    // as the APF filter digests them
  std::vector<apf::ConfigNote> notes;
  // One warning per object whose spec the config producer put back (a suggested object
  // annotated autoupdate-spec "true", or a mandatory one): "FILE:LINE:COLUMN: warning: ...",
  // naming the fields put back with both values and the remedy
  // (doc/config-loading.md#specs-put-back). Every command that loads objects prints them.
  std::vector<std::string> reset_warnings;
  // By spec.events index: the configuration from that event's instant for an `apply` or
  // `delete`, an empty one (no levels) for other events (sim/scenario/flowcontrol.h).
  std::vector<apf::FlowControlConfig> event_configs;
};

// The configuration of a cluster of `version` to which `manifests` (valid) were applied.
// With `with_bootstrap` false the version's mandatory and suggested objects are not
// created (the APF filter still supplies the mandatory ones it cannot run without).
FlowControlSetup BuildFlowControl(apf::KubernetesVersion version,
                                  const FlowControlManifests& manifests,
                                  bool with_bootstrap = true);

inline constexpr const char* kFlowControlV1 = "flowcontrol.apiserver.k8s.io/v1";
inline constexpr const char* kFlowControlV1beta3 = "flowcontrol.apiserver.k8s.io/v1beta3";

}  // namespace sim

#endif  // SIM_FLOWCONTROL_LOADER_H_
