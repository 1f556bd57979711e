#include "apf/config/bootstrap_ensurer.h"

#include <algorithm>
#include <set>

#include "apf/config/defaults.h"

namespace apf {
namespace {

// shouldUpdateSpec. An object with no generation did not come from a cluster; it is
// taken as the live object the user wants (see the header), so only an explicit "true"
// lets the producer overwrite it.
bool ShouldAutoUpdateSpec(const ObjectMeta& meta) {
  auto it = meta.annotations.find(kAutoUpdateAnnotation);
  if (it != meta.annotations.end()) {
    if (std::optional<bool> b = ParseGoBool(it->second)) return *b;
  }
  return meta.generation == 1;
}

// The specEqualish functions: compare with the defaulted bootstrap spec; for the exempt
// level, the `exempt` member is the admin's to set.
bool SpecEqualish(const PriorityLevelConfiguration& boot, const PriorityLevelConfiguration& have) {
  PriorityLevelConfiguration expected = boot;
  SetPriorityLevelConfigurationDefaults(expected);
  if (boot.metadata.name == kPriorityLevelNameExempt) {
    if (!have.spec.exempt) return false;
    expected.spec.exempt = have.spec.exempt;
  }
  return expected.spec == have.spec;
}

bool SpecEqualish(const FlowSchema& boot, const FlowSchema& have) {
  FlowSchema expected = boot;
  SetFlowSchemaDefaults(expected);
  return expected.spec == have.spec;
}

void ReplaceSpec(PriorityLevelConfiguration& into, const PriorityLevelConfiguration& from) {
  into.spec = from.spec;
}
void ReplaceSpec(FlowSchema& into, const FlowSchema& from) { into.spec = from.spec; }

template <typename Object>
void Ensure(const char* kind, const std::vector<Object>& boots, bool mandatory,
            std::vector<Object>& objects, std::vector<ConfigNote>* notes) {
  for (const Object& boot : boots) {
    auto it = std::find_if(objects.begin(), objects.end(),
                           [&](const Object& o) { return o.metadata.name == boot.metadata.name; });
    if (it == objects.end()) {
      objects.push_back(boot);
      continue;
    }
    const bool auto_update = mandatory || ShouldAutoUpdateSpec(it->metadata);
    if (auto_update && !SpecEqualish(boot, *it)) {
      ReplaceSpec(*it, boot);
      if (notes) {
        notes->push_back(
            {kind, boot.metadata.name, "metadata.annotations",
             mandatory ? std::string("mandatory object: the apiserver restores its fixed spec")
                       : std::string("the suggested spec of this version replaces this one "
                                     "(auto-update is on: annotation ") +
                             kAutoUpdateAnnotation + " is true, or generation is 1)"});
      }
    }
    it->metadata.annotations[kAutoUpdateAnnotation] = auto_update ? "true" : "false";
  }
}

template <typename Object>
void RemoveUnwanted(const char* kind, const std::set<std::string>& wanted,
                    std::vector<Object>& objects, std::vector<ConfigNote>* notes) {
  std::erase_if(objects, [&](const Object& o) {
    if (wanted.count(o.metadata.name)) return false;
    auto it = o.metadata.annotations.find(kAutoUpdateAnnotation);
    if (it == o.metadata.annotations.end()) return false;
    std::optional<bool> b = ParseGoBool(it->second);
    if (!b || !*b) return false;
    if (notes) {
      notes->push_back({kind, o.metadata.name, "metadata.annotations",
                        std::string("deleted by the apiserver: annotated ") +
                            kAutoUpdateAnnotation +
                            ": \"true\" but not a bootstrap object of this version"});
    }
    return true;
  });
}

}  // namespace

std::optional<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False")
    return false;
  return std::nullopt;
}

FlowControlObjects EnsureBootstrapObjects(KubernetesVersion version,
                                          const FlowControlObjects& applied,
                                          std::vector<ConfigNote>* notes) {
  const BootstrapObjects boot = Bootstrap(version);
  FlowControlObjects out = applied;
  // The producer's order: suggested first, then the mandatory ones (every minute).
  Ensure("PriorityLevelConfiguration", boot.suggested_priority_levels, false, out.priority_levels,
         notes);
  Ensure("FlowSchema", boot.suggested_flow_schemas, false, out.flow_schemas, notes);
  Ensure("PriorityLevelConfiguration", boot.mandatory_priority_levels, true, out.priority_levels,
         notes);
  Ensure("FlowSchema", boot.mandatory_flow_schemas, true, out.flow_schemas, notes);

  std::set<std::string> wanted_levels, wanted_schemas;
  for (const auto& v : {&boot.mandatory_priority_levels, &boot.suggested_priority_levels}) {
    for (const auto& pl : *v) wanted_levels.insert(pl.metadata.name);
  }
  for (const auto& v : {&boot.mandatory_flow_schemas, &boot.suggested_flow_schemas}) {
    for (const auto& fs : *v) wanted_schemas.insert(fs.metadata.name);
  }
  RemoveUnwanted("PriorityLevelConfiguration", wanted_levels, out.priority_levels, notes);
  RemoveUnwanted("FlowSchema", wanted_schemas, out.flow_schemas, notes);
  return out;
}

FlowControlObjects EnsureMandatoryObjects(KubernetesVersion version,
                                          const FlowControlObjects& applied,
                                          std::vector<ConfigNote>* notes) {
  const BootstrapObjects boot = Bootstrap(version);
  FlowControlObjects out = applied;
  Ensure("PriorityLevelConfiguration", boot.mandatory_priority_levels, true, out.priority_levels,
         notes);
  Ensure("FlowSchema", boot.mandatory_flow_schemas, true, out.flow_schemas, notes);
  return out;
}

}  // namespace apf
