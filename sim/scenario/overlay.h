// An overlay: a change to a scenario kept in its own file, so that `apfsim compare
// SCENARIO --overlay FIX.yaml` can answer "what would this fix have done" without a copy
// of the scenario. The file is multi-document YAML; each document is either
//   - flow-control manifests (FlowSchema, PriorityLevelConfiguration, a List of them, as
//     `spec.flowControl.files` accepts), applied after the scenario's own objects, so an
//     object of the same name replaces the scenario's, or
//   - an apfsim Overlay document holding `--set` values applied after the command line's:
//       apiVersion: apfsim/v1alpha1
//       kind: Overlay
//       set: ["apiservers.maxRequestsInflight=600", ...]
// scenarios/README.md documents the format.
#ifndef SIM_SCENARIO_OVERLAY_H_
#define SIM_SCENARIO_OVERLAY_H_

#include <string>
#include <vector>

#include "sim/flowcontrol/loader.h"

namespace sim {

struct Overlay {
  std::vector<std::string> sets;          // PATH=VALUE, in file order
  std::vector<SourceLocation> set_where;  // where each of `sets` is, to blame it there
  FlowControlManifests manifests;         // in file order
};

// Reads an overlay file strictly; throws InputError naming the file, line and field.
Overlay LoadOverlay(const std::string& path);

}  // namespace sim

#endif  // SIM_SCENARIO_OVERLAY_H_
