// The configuration one apiserver's APF filter runs with, digested from the
// PriorityLevelConfiguration and FlowSchema objects it sees, as
// k8s.io/apiserver pkg/util/flowcontrol/apf_controller.go digests them
// (lockAndDigestConfigObjects; doc/model.md#flowschema-order, #mandatory-objects):
//   - a level whose spec the queue set cannot use is ignored;
//   - a FlowSchema naming a missing or ignored level is dangling: it is skipped (its
//     status would say Dangling=True, reason NotFound), which is reported as a note;
//   - the rest are sorted by (matchingPrecedence, name);
//   - a missing `exempt` FlowSchema is put first and a missing `catch-all` last, and a
//     missing exempt or catch-all level is "imagined" from the built-in prototype.
#ifndef APF_CONFIG_FLOW_CONTROL_CONFIG_H_
#define APF_CONFIG_FLOW_CONTROL_CONFIG_H_

#include <string>
#include <vector>

#include "apf/config/flow_schema.h"
#include "apf/config/priority_level.h"
#include "apf/config/priority_level_configuration.h"

namespace apf {

// Something a user should know about their objects that is not a validation error.
struct ConfigNote {
  std::string object_kind;  // "FlowSchema" or "PriorityLevelConfiguration"
  std::string name;
  std::string field;  // the field the note is about, "" for the whole object
  std::string message;
};

struct FlowControlObjects {
  std::vector<PriorityLevelConfiguration> priority_levels;
  std::vector<FlowSchema> flow_schemas;
};

struct FlowControlConfig {
  // In matching order: ascending (matchingPrecedence, name), mandatory ones supplied.
  std::vector<FlowSchema> flow_schemas;
  // flow_schema_level[i] is the index in priority_levels of flow_schemas[i]'s level.
  std::vector<int> flow_schema_level;
  // Sorted by name (the apiserver keeps them in a map).
  std::vector<PriorityLevel> priority_levels;
  // FlowSchemas skipped because their level is missing, in input order.
  std::vector<std::string> dangling_flow_schemas;
  std::vector<ConfigNote> notes;

  int FindPriorityLevel(std::string_view name) const;  // -1 if absent
  int FindFlowSchema(std::string_view name) const;     // -1 if absent
};

// Digests defaulted, validated objects. Names must be unique within each kind; a later
// object of a repeated name replaces an earlier one (with a note).
FlowControlConfig DigestConfig(const FlowControlObjects& objects);

// Why the queue set could not use this level's spec (queueSetCompleterForPL and the
// dealer's limits), or "" if it can.
std::string BrokenPriorityLevelReason(const PriorityLevelConfiguration& pl);

}  // namespace apf

#endif  // APF_CONFIG_FLOW_CONTROL_CONFIG_H_
