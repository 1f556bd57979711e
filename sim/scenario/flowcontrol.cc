#include "sim/scenario/flowcontrol.h"

#include <algorithm>
#include <charconv>

#include "apf/config/bootstrap.h"
#include "apf/config/bootstrap_ensurer.h"
#include "sim/io/duration.h"
#include "sim/io/yaml_input.h"

namespace sim {
namespace {

[[noreturn]] void Fail(const Scenario::ObjectOverride& o, const std::string& why) {
  throw InputError({"--set", 0, 0}, "flowControl." + o.kind + "." + o.name + "." + o.field, why);
}

std::int32_t Int32Value(const Scenario::ObjectOverride& o) {
  std::int32_t v = 0;
  auto [ptr, ec] = std::from_chars(o.value.data(), o.value.data() + o.value.size(), v);
  if (o.value.empty() || ec != std::errc() || ptr != o.value.data() + o.value.size()) {
    Fail(o, "\"" + o.value + "\" is not an integer");
  }
  return v;
}

// A default object copied so that an override can change it: marked as not auto-updated,
// or the apiserver's config producer would put the suggested spec back
// (doc/model.md#mandatory-objects).
template <typename Object>
Object CopyForOverride(Object object) {
  object.metadata.annotations["apf.kubernetes.io/autoupdate-spec"] = "false";
  return object;
}

ManifestSource OverrideSource(const Scenario::ObjectOverride& o) {
  ManifestSource s;
  s.where = {"--set", 0, 0};
  s.path = "flowControl." + o.kind + "." + o.name;
  s.api_version = kFlowControlV1;
  return s;
}

void ApplyToPriorityLevel(const Scenario::ObjectOverride& o, apf::PriorityLevelConfiguration& pl) {
  auto& spec = pl.spec;
  if (o.field == "nominalConcurrencyShares" || o.field == "lendablePercent") {
    const std::int32_t v = Int32Value(o);
    const bool shares = o.field == "nominalConcurrencyShares";
    if (spec.exempt) {
      (shares ? spec.exempt->nominal_concurrency_shares : spec.exempt->lendable_percent) = v;
    } else if (spec.limited) {
      (shares ? spec.limited->nominal_concurrency_shares : spec.limited->lendable_percent) = v;
    }
    return;
  }
  if (!spec.limited) Fail(o, "the level is Exempt: it has no " + o.field);
  auto& limited = *spec.limited;
  if (o.field == "borrowingLimitPercent") {
    if (o.value == "null" || o.value == "unlimited") {
      limited.borrowing_limit_percent.reset();
    } else {
      limited.borrowing_limit_percent = Int32Value(o);
    }
    return;
  }
  if (o.field == "queues" || o.field == "handSize" || o.field == "queueLengthLimit") {
    if (!limited.limit_response.queuing) Fail(o, "the level rejects rather than queues");
    auto& q = *limited.limit_response.queuing;
    const std::int32_t v = Int32Value(o);
    (o.field == "queues"     ? q.queues
     : o.field == "handSize" ? q.hand_size
                             : q.queue_length_limit) = v;
    return;
  }
  Fail(o,
       "unknown field (nominalConcurrencyShares, lendablePercent, borrowingLimitPercent, "
       "queues, handSize, queueLengthLimit)");
}

void ApplyToFlowSchema(const Scenario::ObjectOverride& o, apf::FlowSchema& fs) {
  if (o.field == "matchingPrecedence") {
    fs.spec.matching_precedence = Int32Value(o);
  } else if (o.field == "priorityLevelConfiguration" || o.field == "priorityLevel") {
    fs.spec.priority_level_name = o.value;
  } else if (o.field == "distinguisherMethod") {
    if (o.value == "none" || o.value.empty()) {
      fs.spec.distinguisher_method.reset();
    } else {
      fs.spec.distinguisher_method = apf::FlowDistinguisherMethod{o.value};
    }
  } else {
    Fail(o, "unknown field (matchingPrecedence, priorityLevelConfiguration, distinguisherMethod)");
  }
}

// flowcontrol.apiserver.k8s.io/v1beta3 is served up to 1.31 (kubernetes#127017 stopped
// serving it in 1.32): a newer cluster refuses the object as `kubectl apply` would.
void RefuseUnservedVersions(apf::KubernetesVersion version, const FlowControlManifests& manifests) {
  if (version < apf::KubernetesVersion{1, 32}) return;
  auto refuse = [&](const ManifestSource& src, const std::string& kind, const std::string& name) {
    if (src.api_version != kFlowControlV1beta3) return;
    throw InputError(src.LocationOf("apiVersion"), src.FullPath("apiVersion"),
                     kind + " \"" + name + "\": " + kFlowControlV1beta3 +
                         " is not served by Kubernetes " + version.ToString() +
                         " (only up to 1.31); write it as flowcontrol.apiserver.k8s.io/v1");
  };
  for (const LoadedPriorityLevel& pl : manifests.priority_levels) {
    refuse(pl.source, "PriorityLevelConfiguration", pl.object.metadata.name);
  }
  for (const LoadedFlowSchema& fs : manifests.flow_schemas) {
    refuse(fs.source, "FlowSchema", fs.object.metadata.name);
  }
}

}  // namespace

FlowControlManifests ScenarioManifests(const Scenario& scenario) {
  FlowControlManifests manifests = LoadFlowControlFiles(scenario.flow_control_files);
  for (const Scenario::InlineObject& o : scenario.flow_control_objects) {
    manifests.Append(ReadFlowControlObjects(YamlValue(o.node, o.source, o.path)));
  }
  return manifests;
}

void ApplyObjectOverrides(const std::vector<Scenario::ObjectOverride>& overrides,
                          apf::KubernetesVersion version, FlowControlManifests* manifests) {
  const apf::BootstrapObjects defaults = apf::Bootstrap(version);
  for (const Scenario::ObjectOverride& o : overrides) {
    if (o.kind == "priorityLevels") {
      LoadedPriorityLevel* target = nullptr;
      for (auto& pl : manifests->priority_levels) {
        if (pl.object.metadata.name == o.name) target = &pl;
      }
      if (!target) {
        for (const auto* list :
             {&defaults.mandatory_priority_levels, &defaults.suggested_priority_levels}) {
          for (const auto& pl : *list) {
            if (pl.metadata.name == o.name) {
              manifests->priority_levels.push_back({CopyForOverride(pl), OverrideSource(o)});
              target = &manifests->priority_levels.back();
            }
          }
        }
      }
      if (!target) {
        std::vector<std::string> names;
        for (const auto& pl : manifests->priority_levels) names.push_back(pl.object.metadata.name);
        for (const auto* list :
             {&defaults.mandatory_priority_levels, &defaults.suggested_priority_levels}) {
          for (const auto& pl : *list) names.push_back(pl.metadata.name);
        }
        Fail(o,
             "no PriorityLevelConfiguration named \"" + o.name + "\"" + DidYouMean(o.name, names));
      }
      ApplyToPriorityLevel(o, target->object);
    } else {
      LoadedFlowSchema* target = nullptr;
      for (auto& fs : manifests->flow_schemas) {
        if (fs.object.metadata.name == o.name) target = &fs;
      }
      if (!target) {
        for (const auto* list :
             {&defaults.mandatory_flow_schemas, &defaults.suggested_flow_schemas}) {
          for (const auto& fs : *list) {
            if (fs.metadata.name == o.name) {
              manifests->flow_schemas.push_back({CopyForOverride(fs), OverrideSource(o)});
              target = &manifests->flow_schemas.back();
            }
          }
        }
      }
      if (!target) {
        std::vector<std::string> names;
        for (const auto& fs : manifests->flow_schemas) names.push_back(fs.object.metadata.name);
        for (const auto* list :
             {&defaults.mandatory_flow_schemas, &defaults.suggested_flow_schemas}) {
          for (const auto& fs : *list) names.push_back(fs.metadata.name);
        }
        Fail(o, "no FlowSchema named \"" + o.name + "\"" + DidYouMean(o.name, names));
      }
      ApplyToFlowSchema(o, target->object);
    }
  }
}

FlowControlSetup BuildScenarioFlowControl(const Scenario& scenario,
                                          const FlowControlManifests* extra) {
  const apf::KubernetesVersion version = ParseKubernetesVersionOrThrow(
      scenario.apiservers.kubernetes_version, "spec.apiservers.kubernetesVersion");
  FlowControlManifests manifests = ScenarioManifests(scenario);
  if (extra) manifests.Append(*extra);
  RefuseUnservedVersions(version, manifests);
  ApplyObjectOverrides(scenario.flow_control_overrides, version, &manifests);
  ThrowIfInvalid(manifests);
  FlowControlSetup setup = BuildFlowControl(version, manifests, scenario.flow_control_defaults);
  BuildEventConfigs(scenario, &setup);
  return setup;
}

void BuildEventConfigs(const Scenario& scenario, FlowControlSetup* setup) {
  setup->event_configs.assign(scenario.events.size(), apf::FlowControlConfig{});
  const apf::BootstrapObjects boot = apf::Bootstrap(setup->version);
  auto in_bootstrap = [&](const std::string& kind, const std::string& name, bool mandatory) {
    if (kind == "FlowSchema") {
      for (const auto* list : {&boot.mandatory_flow_schemas, &boot.suggested_flow_schemas}) {
        if (!mandatory || list == &boot.mandatory_flow_schemas) {
          for (const apf::FlowSchema& fs : *list) {
            if (fs.metadata.name == name) return true;
          }
        }
      }
      return false;
    }
    for (const auto* list : {&boot.mandatory_priority_levels, &boot.suggested_priority_levels}) {
      if (!mandatory || list == &boot.mandatory_priority_levels) {
        for (const apf::PriorityLevelConfiguration& pl : *list) {
          if (pl.metadata.name == name) return true;
        }
      }
    }
    return false;
  };
  // The cluster's objects as each event leaves them, the config producer run after it.
  apf::FlowControlObjects objects = setup->objects;
  for (std::size_t e = 0; e < scenario.events.size(); ++e) {
    const ScenarioEvent& event = scenario.events[e];
    if (!event.changes_flow_control()) continue;
    RefuseUnservedVersions(setup->version, event.apply);
    const apf::FlowControlObjects applied = event.apply.Objects();
    // kubectl apply: create, or replace the object of that kind and name.
    for (const apf::PriorityLevelConfiguration& pl : applied.priority_levels) {
      auto it = std::find_if(objects.priority_levels.begin(), objects.priority_levels.end(),
                             [&](const auto& o) { return o.metadata.name == pl.metadata.name; });
      if (it != objects.priority_levels.end()) {
        *it = pl;
      } else {
        objects.priority_levels.push_back(pl);
      }
    }
    for (const apf::FlowSchema& fs : applied.flow_schemas) {
      auto it = std::find_if(objects.flow_schemas.begin(), objects.flow_schemas.end(),
                             [&](const auto& o) { return o.metadata.name == fs.metadata.name; });
      if (it != objects.flow_schemas.end()) {
        *it = fs;
      } else {
        objects.flow_schemas.push_back(fs);
      }
    }
    for (const DeletedObject& d : event.deletes) {
      std::vector<std::string> names;
      bool found = false;
      auto erase = [&](auto& list) {
        for (auto it = list.begin(); it != list.end(); ++it) {
          names.push_back(it->metadata.name);
          if (it->metadata.name == d.name) {
            list.erase(it);
            found = true;
            return;
          }
        }
      };
      if (d.kind == "FlowSchema") {
        erase(objects.flow_schemas);
      } else {
        erase(objects.priority_levels);
      }
      if (!found) {
        throw InputError(d.where, d.path,
                         "no " + d.kind + " \"" + d.name + "\" at " + FormatDuration(event.at) +
                             ": the cluster does not hold it then" + DidYouMean(d.name, names));
      }
      const bool mandatory = in_bootstrap(d.kind, d.name, true);
      const bool suggested =
          !mandatory && scenario.flow_control_defaults && in_bootstrap(d.kind, d.name, false);
      if (mandatory || suggested) {
        // pkg/registry/flowcontrol/ensurer (EnsureConfigurations, every minute) creates a
        // missing mandatory or suggested object again; the filter meanwhile imagines a
        // missing mandatory one from the same built-in spec (apf_controller.go imaginePL).
        setup->reset_warnings.push_back(
            d.where.file + ":" + std::to_string(d.where.line) + ":" +
            std::to_string(d.where.column) + ": warning: " + d.kind + " \"" + d.name + "\" is " +
            (mandatory ? "a mandatory" : "a suggested") + " object of Kubernetes " +
            setup->version.ToString() +
            ": the apiserver's config producer creates it again from its built-in spec, which "
            "the run models at once" +
            (mandatory ? " (the filter uses that spec meanwhile)"
                       : " (the real producer does so at its next run, within a minute)"));
      }
    }
    std::vector<apf::ConfigNote> notes;
    objects = scenario.flow_control_defaults
                  ? apf::EnsureBootstrapObjects(setup->version, objects, &notes)
                  : apf::EnsureMandatoryObjects(setup->version, objects, &notes);
    setup->event_configs[e] = apf::DigestConfig(objects);
  }
}

}  // namespace sim
