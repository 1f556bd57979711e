#include "apf/config/flow_control_config.h"

#include <algorithm>
#include <map>

#include "apf/config/bootstrap.h"
#include "apf/queueing/shuffle_sharding.h"

namespace apf {

std::string BrokenPriorityLevelReason(const PriorityLevelConfiguration& pl) {
  const PriorityLevelConfigurationSpec& spec = pl.spec;
  if ((spec.type == kPriorityLevelTypeLimited) != spec.limited.has_value()) {
    return "broken union structure at the top, for Limited";
  }
  if ((spec.type == kPriorityLevelTypeExempt) != spec.exempt.has_value()) {
    return "broken union structure at the top, for Exempt";
  }
  if ((spec.type == kPriorityLevelTypeExempt) != (pl.metadata.name == kPriorityLevelNameExempt)) {
    return "non-alignment between name and type";
  }
  if (spec.limited) {
    const LimitResponse& lr = spec.limited->limit_response;
    if ((lr.type == kLimitResponseReject) != !lr.queuing.has_value()) {
      return "broken union structure for limit response";
    }
    if (lr.queuing) {
      // The queue set's dealer refuses what shufflesharding.NewDealer refuses.
      const Status dealer = Dealer::Check(lr.queuing->queues, lr.queuing->hand_size);
      if (!dealer.ok()) return dealer.message();
    }
  }
  return "";
}

int FlowControlConfig::FindPriorityLevel(std::string_view name) const {
  for (size_t i = 0; i < priority_levels.size(); ++i) {
    if (priority_levels[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int FlowControlConfig::FindFlowSchema(std::string_view name) const {
  for (size_t i = 0; i < flow_schemas.size(); ++i) {
    if (flow_schemas[i].metadata.name == name) return static_cast<int>(i);
  }
  return -1;
}

FlowControlConfig DigestConfig(const FlowControlObjects& objects) {
  FlowControlConfig config;
  std::map<std::string, PriorityLevel> levels;  // by name, as the controller's map
  for (const PriorityLevelConfiguration& pl : objects.priority_levels) {
    if (std::string why = BrokenPriorityLevelReason(pl); !why.empty()) {
      config.notes.push_back({"PriorityLevelConfiguration", pl.metadata.name, "spec",
                              "ignored: its spec is broken (" + why + ")"});
      continue;
    }
    if (levels.count(pl.metadata.name)) {
      config.notes.push_back({"PriorityLevelConfiguration", pl.metadata.name, "",
                              "given twice; the later object replaces the earlier"});
    }
    levels[pl.metadata.name] = MakePriorityLevel(pl);
  }

  // digestFlowSchemasLocked: the level references are checked against the levels digested
  // so far, before any mandatory level is imagined.
  std::map<std::string, const FlowSchema*> schemas;
  std::vector<std::string> order;
  for (const FlowSchema& fs : objects.flow_schemas) {
    if (schemas.count(fs.metadata.name)) {
      config.notes.push_back({"FlowSchema", fs.metadata.name, "",
                              "given twice; the later object replaces the earlier"});
    } else {
      order.push_back(fs.metadata.name);
    }
    schemas[fs.metadata.name] = &fs;
  }
  std::vector<const FlowSchema*> usable;
  for (const std::string& name : order) {
    const FlowSchema* fs = schemas[name];
    const std::string& level = fs->spec.priority_level_name;
    if (!levels.count(level)) {
      config.dangling_flow_schemas.push_back(name);
      config.notes.push_back({"FlowSchema", name, "spec.priorityLevelConfiguration.name",
                              "dangling: it references the PriorityLevelConfiguration \"" + level +
                                  "\" but there is no such object, so the apiserver skips this "
                                  "FlowSchema (status Dangling=True, reason NotFound)"});
      continue;
    }
    usable.push_back(fs);
  }
  std::stable_sort(usable.begin(), usable.end(), [](const FlowSchema* a, const FlowSchema* b) {
    if (a->spec.matching_precedence != b->spec.matching_precedence) {
      return a->spec.matching_precedence < b->spec.matching_precedence;
    }
    return a->metadata.name < b->metadata.name;
  });
  const bool have_exempt =
      schemas.count(kFlowSchemaNameExempt) &&
      std::find(usable.begin(), usable.end(), schemas[kFlowSchemaNameExempt]) != usable.end();
  const bool have_catch_all =
      schemas.count(kFlowSchemaNameCatchAll) &&
      std::find(usable.begin(), usable.end(), schemas[kFlowSchemaNameCatchAll]) != usable.end();
  if (!have_exempt) {
    config.flow_schemas.push_back(*MandatoryFlowSchema(kFlowSchemaNameExempt));
    config.notes.push_back({"FlowSchema", kFlowSchemaNameExempt, "",
                            "missing; the built-in mandatory FlowSchema is used"});
  }
  for (const FlowSchema* fs : usable) config.flow_schemas.push_back(*fs);
  if (!have_catch_all) {
    config.flow_schemas.push_back(*MandatoryFlowSchema(kFlowSchemaNameCatchAll));
    config.notes.push_back({"FlowSchema", kFlowSchemaNameCatchAll, "",
                            "missing; the built-in mandatory FlowSchema is used"});
  }

  for (const char* name : {kPriorityLevelNameExempt, kPriorityLevelNameCatchAll}) {
    if (!levels.count(name)) {
      PriorityLevel level = MakePriorityLevel(*MandatoryPriorityLevel(name));
      level.imagined = true;
      levels[name] = level;
      config.notes.push_back({"PriorityLevelConfiguration", name, "",
                              "missing; the built-in mandatory level is imagined"});
    }
  }
  for (auto& [name, level] : levels) config.priority_levels.push_back(level);
  for (const FlowSchema& fs : config.flow_schemas) {
    config.flow_schema_level.push_back(config.FindPriorityLevel(fs.spec.priority_level_name));
  }
  return config;
}

}  // namespace apf
