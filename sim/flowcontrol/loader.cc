#include "sim/flowcontrol/loader.h"

#include <algorithm>
#include <set>

#include "apf/config/bootstrap_ensurer.h"
#include "apf/config/defaults.h"
#include "apf/config/validation.h"
#include "sim/flowcontrol/manifest.h"

namespace sim {
namespace {

void NoteDefaultedQueuing(const apf::PriorityLevelConfiguration& before,
                          const apf::PriorityLevelConfiguration& after, ManifestSource* source);

// Records where each field of one object was, by its path inside the object.
class Tracker {
 public:
  Tracker(const YamlValue& object, ManifestSource* source)
      : root_(object.path()), source_(source) {}

  const YamlValue& Note(const YamlValue& v) {
    source_->fields[Relative(v.path())] = v.where();
    return v;
  }

  std::optional<YamlValue> Optional(YamlMap& map, std::string_view key) {
    std::optional<YamlValue> v = map.Optional(key);
    if (v) Note(*v);
    return v;
  }

 private:
  std::string Relative(const std::string& path) const {
    if (root_.empty()) return path;
    if (path.size() > root_.size() && path.compare(0, root_.size(), root_) == 0 &&
        path[root_.size()] == '.') {
      return path.substr(root_.size() + 1);
    }
    return path;
  }

  std::string root_;
  ManifestSource* source_;
};

std::vector<std::string> StringListOf(Tracker& t, YamlMap& map, std::string_view key) {
  std::optional<YamlValue> v = t.Optional(map, key);
  if (!v) return {};
  std::vector<std::string> out;
  for (const YamlValue& item : v->Items()) out.push_back(t.Note(item).String());
  return out;
}

std::string StringOf(Tracker& t, YamlMap& map, std::string_view key) {
  std::optional<YamlValue> v = t.Optional(map, key);
  return v ? v->String() : "";
}

std::optional<std::int32_t> Int32Of(Tracker& t, YamlMap& map, std::string_view key) {
  std::optional<YamlValue> v = t.Optional(map, key);
  if (!v) return std::nullopt;
  return v->Int32();
}

// metav1.ObjectMeta: name, annotations, labels and generation matter; the rest of what a
// live object carries is accepted and ignored.
apf::ObjectMeta ReadObjectMeta(Tracker& t, const YamlValue& value) {
  apf::ObjectMeta meta;
  YamlMap m = value.Map();
  meta.name = StringOf(t, m, "name");
  if (auto v = t.Optional(m, "annotations")) meta.annotations = v->StringMap();
  if (auto v = t.Optional(m, "labels")) meta.labels = v->StringMap();
  if (auto v = t.Optional(m, "generation")) meta.generation = v->Int64();
  // A cluster-scoped object's namespace is cleared by the apiserver (rest.BeforeCreate).
  m.Ignore({"namespace", "generateName", "uid", "resourceVersion", "creationTimestamp",
            "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "finalizers",
            "managedFields", "selfLink"});
  m.Finish();
  return meta;
}

apf::Subject ReadSubject(Tracker& t, const YamlValue& value) {
  apf::Subject s;
  YamlMap m = value.Map();
  s.kind = StringOf(t, m, "kind");
  if (auto v = t.Optional(m, "user")) {
    YamlMap u = v->Map();
    s.user = apf::UserSubject{StringOf(t, u, "name")};
    u.Finish();
  }
  if (auto v = t.Optional(m, "group")) {
    YamlMap g = v->Map();
    s.group = apf::GroupSubject{StringOf(t, g, "name")};
    g.Finish();
  }
  if (auto v = t.Optional(m, "serviceAccount")) {
    YamlMap sa = v->Map();
    apf::ServiceAccountSubject subject;
    subject.namespace_ = StringOf(t, sa, "namespace");
    subject.name = StringOf(t, sa, "name");
    s.service_account = subject;
    sa.Finish();
  }
  m.Finish();
  return s;
}

apf::FlowSchema ReadFlowSchema(Tracker& t, YamlMap& object) {
  apf::FlowSchema fs;
  if (auto v = t.Optional(object, "metadata")) fs.metadata = ReadObjectMeta(t, *v);
  if (auto spec_value = t.Optional(object, "spec")) {
    YamlMap spec = spec_value->Map();
    if (auto v = t.Optional(spec, "priorityLevelConfiguration")) {
      YamlMap ref = v->Map();
      fs.spec.priority_level_name = StringOf(t, ref, "name");
      ref.Finish();
    }
    fs.spec.matching_precedence = Int32Of(t, spec, "matchingPrecedence").value_or(0);
    if (auto v = t.Optional(spec, "distinguisherMethod")) {
      YamlMap dm = v->Map();
      fs.spec.distinguisher_method = apf::FlowDistinguisherMethod{StringOf(t, dm, "type")};
      dm.Finish();
    }
    if (auto rules = t.Optional(spec, "rules")) {
      for (const YamlValue& rule_value : rules->Items()) {
        t.Note(rule_value);
        YamlMap rule = rule_value.Map();
        apf::PolicyRulesWithSubjects r;
        if (auto v = t.Optional(rule, "subjects")) {
          for (const YamlValue& s : v->Items()) r.subjects.push_back(ReadSubject(t, t.Note(s)));
        }
        if (auto v = t.Optional(rule, "resourceRules")) {
          for (const YamlValue& item : v->Items()) {
            YamlMap rr = t.Note(item).Map();
            apf::ResourcePolicyRule res;
            res.verbs = StringListOf(t, rr, "verbs");
            res.api_groups = StringListOf(t, rr, "apiGroups");
            res.resources = StringListOf(t, rr, "resources");
            if (auto cs = t.Optional(rr, "clusterScope")) res.cluster_scope = cs->Bool();
            res.namespaces = StringListOf(t, rr, "namespaces");
            rr.Finish();
            r.resource_rules.push_back(std::move(res));
          }
        }
        if (auto v = t.Optional(rule, "nonResourceRules")) {
          for (const YamlValue& item : v->Items()) {
            YamlMap nr = t.Note(item).Map();
            apf::NonResourcePolicyRule non;
            non.verbs = StringListOf(t, nr, "verbs");
            non.non_resource_urls = StringListOf(t, nr, "nonResourceURLs");
            nr.Finish();
            r.non_resource_rules.push_back(std::move(non));
          }
        }
        rule.Finish();
        fs.spec.rules.push_back(std::move(r));
      }
    }
    spec.Finish();
  }
  object.Ignore("status");  // written by the apiserver (the Dangling condition)
  return fs;
}

apf::PriorityLevelConfiguration ReadPriorityLevel(Tracker& t, YamlMap& object) {
  apf::PriorityLevelConfiguration pl;
  if (auto v = t.Optional(object, "metadata")) pl.metadata = ReadObjectMeta(t, *v);
  if (auto spec_value = t.Optional(object, "spec")) {
    YamlMap spec = spec_value->Map();
    pl.spec.type = StringOf(t, spec, "type");
    if (auto v = t.Optional(spec, "limited")) {
      YamlMap lm = v->Map();
      apf::LimitedPriorityLevelConfiguration limited;
      limited.nominal_concurrency_shares = Int32Of(t, lm, "nominalConcurrencyShares");
      limited.lendable_percent = Int32Of(t, lm, "lendablePercent");
      limited.borrowing_limit_percent = Int32Of(t, lm, "borrowingLimitPercent");
      if (auto lr_value = t.Optional(lm, "limitResponse")) {
        YamlMap lr = lr_value->Map();
        limited.limit_response.type = StringOf(t, lr, "type");
        if (auto q = t.Optional(lr, "queuing")) {
          YamlMap qm = q->Map();
          apf::QueuingConfiguration queuing;
          queuing.queues = Int32Of(t, qm, "queues").value_or(0);
          queuing.hand_size = Int32Of(t, qm, "handSize").value_or(0);
          queuing.queue_length_limit = Int32Of(t, qm, "queueLengthLimit").value_or(0);
          qm.Finish();
          limited.limit_response.queuing = queuing;
        }
        lr.Finish();
      }
      lm.Finish();
      pl.spec.limited = limited;
    }
    if (auto v = t.Optional(spec, "exempt")) {
      YamlMap em = v->Map();
      apf::ExemptPriorityLevelConfiguration exempt;
      exempt.nominal_concurrency_shares = Int32Of(t, em, "nominalConcurrencyShares");
      exempt.lendable_percent = Int32Of(t, em, "lendablePercent");
      em.Finish();
      pl.spec.exempt = exempt;
    }
    spec.Finish();
  }
  object.Ignore("status");
  return pl;
}

void ReadOne(const YamlValue& value, FlowControlManifests& out);

void ReadList(YamlMap& list, FlowControlManifests& out) {
  list.Ignore("metadata");
  if (auto items = list.Optional("items")) {
    for (const YamlValue& item : items->Items()) ReadOne(item, out);
  }
  list.Finish();
}

void ReadOne(const YamlValue& value, FlowControlManifests& out) {
  YamlMap object = value.Map();
  std::optional<YamlValue> api_version_value = object.Optional("apiVersion");
  std::optional<YamlValue> kind_value = object.Optional("kind");
  if (!kind_value) {
    value.Fail("kind is missing (expected FlowSchema, PriorityLevelConfiguration or List)");
  }
  const std::string kind = kind_value->String();
  const std::string api_version = api_version_value ? api_version_value->String() : "";
  if (kind == "List") {
    if (api_version != "v1") {
      (api_version_value ? *api_version_value : value).Fail("a List has apiVersion v1");
    }
    ReadList(object, out);
    return;
  }
  const bool is_flow_schema = kind == "FlowSchema" || kind == "FlowSchemaList";
  const bool is_priority_level =
      kind == "PriorityLevelConfiguration" || kind == "PriorityLevelConfigurationList";
  if (!is_flow_schema && !is_priority_level) {
    // A scenario or an overlay named as a flow-control file (itself, say) is read as
    // manifests only, never followed: files in flowControl.files reference no files.
    const bool ours = api_version == "apfsim/v1alpha1";
    kind_value->Fail("kind \"" + kind +
                     "\" is not a flow-control object (expected FlowSchema, "
                     "PriorityLevelConfiguration or List)" +
                     (ours ? "; an apfsim " + kind + " cannot be a flow-control file" : ""));
  }
  if (api_version != kFlowControlV1 && api_version != kFlowControlV1beta3) {
    std::string message =
        "apiVersion \"" + api_version + "\" is not supported; use " + kFlowControlV1;
    if (api_version == "flowcontrol.apiserver.k8s.io/v1beta1" ||
        api_version == "flowcontrol.apiserver.k8s.io/v1beta2" ||
        api_version == "flowcontrol.apiserver.k8s.io/v1alpha1") {
      message += " (" + api_version.substr(api_version.find('/') + 1) +
                 " is no longer served by any supported Kubernetes version)";
    }
    if (api_version_value) api_version_value->Fail(message);
    value.Fail(message);
  }
  if (kind == "FlowSchemaList" || kind == "PriorityLevelConfigurationList") {
    ReadList(object, out);
    return;
  }
  ManifestSource source;
  source.where = value.where();
  source.path = value.path();
  source.api_version = api_version;
  Tracker tracker(value, &source);
  if (is_flow_schema) {
    apf::FlowSchema fs = ReadFlowSchema(tracker, object);
    object.Finish();
    apf::SetFlowSchemaDefaults(fs);
    out.flow_schemas.push_back({std::move(fs), std::move(source)});
  } else {
    apf::PriorityLevelConfiguration pl = ReadPriorityLevel(tracker, object);
    object.Finish();
    if (api_version == kFlowControlV1beta3) apf::ConvertV1beta3PriorityLevelConfiguration(pl);
    const apf::PriorityLevelConfiguration as_written = pl;
    apf::SetPriorityLevelConfigurationDefaults(pl);
    NoteDefaultedQueuing(as_written, pl, &source);
    out.priority_levels.push_back({std::move(pl), std::move(source)});
  }
}

}  // namespace

namespace {

// Records the queuing fields written as 0 (not left out) that defaulting changed.
void NoteDefaultedQueuing(const apf::PriorityLevelConfiguration& before,
                          const apf::PriorityLevelConfiguration& after, ManifestSource* source) {
  if (!before.spec.limited || !before.spec.limited->limit_response.queuing) return;
  const auto& b = *before.spec.limited->limit_response.queuing;
  const auto& a = *after.spec.limited->limit_response.queuing;
  const std::string path = "spec.limited.limitResponse.queuing.";
  auto note = [&](const char* name, std::int64_t was, std::int64_t now) {
    if (was != now && source->fields.count(path + name)) {
      source->defaulted[path + name] = std::string(name) + ": " + std::to_string(was) +
                                       " as written, which the apiserver defaults to " +
                                       std::to_string(now);
    }
  };
  note("handSize", b.hand_size, a.hand_size);
  note("queues", b.queues, a.queues);
  note("queueLengthLimit", b.queue_length_limit, a.queue_length_limit);
}

}  // namespace

SourceLocation ManifestSource::LocationOf(const std::string& field) const {
  std::string f = field;
  while (!f.empty()) {
    if (auto it = fields.find(f); it != fields.end()) return it->second;
    const size_t cut = f.find_last_of(".[");
    if (cut == std::string::npos) break;
    f.resize(cut);
  }
  return where;
}

std::string ManifestSource::FullPath(const std::string& field) const {
  if (path.empty()) return field;
  if (field.empty()) return path;
  return path + "." + field;
}

void FlowControlManifests::Append(FlowControlManifests other) {
  for (auto& pl : other.priority_levels) priority_levels.push_back(std::move(pl));
  for (auto& fs : other.flow_schemas) flow_schemas.push_back(std::move(fs));
}

apf::FlowControlObjects FlowControlManifests::Objects(std::vector<apf::ConfigNote>* notes) const {
  apf::FlowControlObjects out;
  auto note = [&](const char* kind, const std::string& name, const ManifestSource& src) {
    if (!notes) return;
    std::string at = src.where.file;
    if (src.where.line > 0) at += ":" + std::to_string(src.where.line);
    notes->push_back({kind, name, "",
                      "given again (" + at +
                          "); the later object replaces the earlier, as applying both would"});
  };
  for (const LoadedPriorityLevel& pl : priority_levels) {
    auto it = std::find_if(out.priority_levels.begin(), out.priority_levels.end(),
                           [&](auto& o) { return o.metadata.name == pl.object.metadata.name; });
    if (it != out.priority_levels.end()) {
      note("PriorityLevelConfiguration", pl.object.metadata.name, pl.source);
      *it = pl.object;
    } else {
      out.priority_levels.push_back(pl.object);
    }
  }
  for (const LoadedFlowSchema& fs : flow_schemas) {
    auto it = std::find_if(out.flow_schemas.begin(), out.flow_schemas.end(),
                           [&](auto& o) { return o.metadata.name == fs.object.metadata.name; });
    if (it != out.flow_schemas.end()) {
      note("FlowSchema", fs.object.metadata.name, fs.source);
      *it = fs.object;
    } else {
      out.flow_schemas.push_back(fs.object);
    }
  }
  return out;
}

const ManifestSource* FlowControlManifests::FindSource(std::string_view kind,
                                                       std::string_view name) const {
  const ManifestSource* found = nullptr;
  if (kind == "FlowSchema") {
    for (const auto& fs : flow_schemas) {
      if (fs.object.metadata.name == name) found = &fs.source;
    }
  } else {
    for (const auto& pl : priority_levels) {
      if (pl.object.metadata.name == name) found = &pl.source;
    }
  }
  return found;
}

FlowControlManifests ReadFlowControlObjects(const YamlValue& value) {
  FlowControlManifests out;
  if (value.IsSequence()) {
    for (const YamlValue& item : value.Items()) ReadOne(item, out);
  } else {
    ReadOne(value, out);
  }
  return out;
}

FlowControlManifests ReadFlowControlNode(const YAML::Node& node, const std::string& source) {
  return ReadFlowControlObjects(YamlValue(node, source, ""));
}

FlowControlManifests ParseFlowControlYaml(std::string_view text, const std::string& source) {
  FlowControlManifests out;
  for (const YAML::Node& doc : ParseYamlDocuments(text, source)) {
    out.Append(ReadFlowControlNode(doc, source));
  }
  return out;
}

FlowControlManifests LoadFlowControlFile(const std::string& path) {
  FlowControlManifests out;
  const std::vector<YAML::Node> docs = LoadYamlFile(path);
  // As `kubectl apply -f` refuses a file without objects ("no objects passed to apply"):
  // an empty file is more likely a failed export than an intended empty configuration.
  if (docs.empty()) {
    throw InputError({InputSourceName(path), 0, 0}, "",
                     "the file holds no objects (expected FlowSchemas and "
                     "PriorityLevelConfigurations)");
  }
  for (const YAML::Node& doc : docs) out.Append(ReadFlowControlNode(doc, InputSourceName(path)));
  return out;
}

FlowControlManifests LoadFlowControlFiles(const std::vector<std::string>& paths) {
  FlowControlManifests out;
  for (const std::string& path : paths) out.Append(LoadFlowControlFile(path));
  return out;
}

apf::KubernetesVersion ParseKubernetesVersionOrThrow(const std::string& text,
                                                     const std::string& field) {
  std::string why;
  std::optional<apf::KubernetesVersion> v = apf::ParseKubernetesVersion(text, &why);
  if (!v) throw InputError({}, field, why);
  return *v;
}

std::vector<InputError> ValidateManifests(const FlowControlManifests& manifests) {
  std::vector<InputError> errors;
  auto add = [&](const char* kind, const std::string& name, const ManifestSource& src,
                 const std::vector<apf::FieldError>& field_errors) {
    for (const apf::FieldError& e : field_errors) {
      const auto defaulted = src.defaulted.find(e.field);
      errors.emplace_back(
          src.LocationOf(e.field), src.FullPath(e.field),
          std::string(kind) + " \"" + name + "\" is invalid: " + e.Body() +
              (defaulted == src.defaulted.end() ? std::string() : " (" + defaulted->second + ")"));
    }
  };
  for (const LoadedPriorityLevel& pl : manifests.priority_levels) {
    add("PriorityLevelConfiguration", pl.object.metadata.name, pl.source,
        apf::ValidatePriorityLevelConfiguration(pl.object));
  }
  for (const LoadedFlowSchema& fs : manifests.flow_schemas) {
    add("FlowSchema", fs.object.metadata.name, fs.source, apf::ValidateFlowSchema(fs.object));
  }
  return errors;
}

void ThrowIfInvalid(const FlowControlManifests& manifests) {
  std::vector<InputError> errors = ValidateManifests(manifests);
  if (!errors.empty()) throw errors.front();
}

namespace {

std::string CompactValue(const nlohmann::json* v) { return v ? v->dump() : "(unset)"; }

// The leaves of two specs that differ, as "path yours -> restored".
void DiffSpec(const std::string& path, const nlohmann::json* yours, const nlohmann::json* restored,
              std::vector<std::string>* out) {
  if (yours && restored && *yours == *restored) return;
  if (yours && restored && yours->is_object() && restored->is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : yours->items()) keys.insert(k);
    for (const auto& [k, v] : restored->items()) keys.insert(k);
    for (const std::string& k : keys) {
      DiffSpec(path + "." + k, yours->contains(k) ? &yours->at(k) : nullptr,
               restored->contains(k) ? &restored->at(k) : nullptr, out);
    }
    return;
  }
  if (yours && restored && yours->is_array() && restored->is_array() &&
      yours->size() == restored->size()) {
    for (std::size_t i = 0; i < yours->size(); ++i) {
      DiffSpec(path + "[" + std::to_string(i) + "]", &(*yours)[i], &(*restored)[i], out);
    }
    return;
  }
  out->push_back(path + " " + CompactValue(yours) + " -> " + CompactValue(restored));
}

// The warning for an object whose spec the config producer put back, or "" if it kept it
// (k/k pkg/registry/flowcontrol/ensurer: a suggested object is updated while
// shouldUpdateSpec holds, a mandatory one always; doc/config-loading.md#specs-put-back).
std::string ResetWarning(const char* kind, const std::string& name, bool mandatory,
                         const nlohmann::json& yours, const nlohmann::json& restored,
                         const FlowControlManifests& manifests) {
  std::vector<std::string> fields;
  DiffSpec("spec", &yours.at("spec"), &restored.at("spec"), &fields);
  if (fields.empty()) return "";
  std::string list;
  for (const std::string& f : fields) list += (list.empty() ? "" : "; ") + f;
  const ManifestSource* src = manifests.FindSource(kind, name);
  std::string where;
  if (src) {
    const SourceLocation at = src->LocationOf("metadata.annotations");
    where = at.file;
    if (at.line > 0) where += ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
    if (!where.empty()) where += ": ";
  }
  const std::string why =
      mandatory ? std::string(
                      "it is a mandatory object, whose spec the apiserver always puts "
                      "back whatever its annotation says (only the exempt level's "
                      "nominalConcurrencyShares and lendablePercent are yours to set); "
                      "this edit has no effect: ")
                : std::string("the apiserver puts the suggested spec back while ") +
                      apf::kAutoUpdateAnnotation +
                      " is \"true\" (as in every object of a kubectl export), so this edit has "
                      "no effect: ";
  const std::string remedy =
      mandatory ? std::string(". Change another object instead (a FlowSchema of your own)")
                : std::string(". To keep your spec, set metadata.annotations[\"") +
                      apf::kAutoUpdateAnnotation + "\"] to \"false\"";
  return where + "warning: " + kind + " " + name + ": " + why + list + " (yours -> put back)" +
         remedy;
}

template <typename Object, typename ToJson>
void AddResetWarnings(const char* kind, const std::vector<Object>& applied,
                      const std::vector<Object>& ensured, const std::vector<Object>& mandatory,
                      ToJson to_json, const FlowControlManifests& manifests,
                      std::vector<std::string>* out) {
  for (const Object& mine : applied) {
    for (const Object& now : ensured) {
      if (now.metadata.name != mine.metadata.name || now.spec == mine.spec) continue;
      const bool is_mandatory =
          std::any_of(mandatory.begin(), mandatory.end(),
                      [&](const Object& m) { return m.metadata.name == mine.metadata.name; });
      std::string w = ResetWarning(kind, mine.metadata.name, is_mandatory, to_json(mine),
                                   to_json(now), manifests);
      if (!w.empty()) out->push_back(std::move(w));
    }
  }
}

}  // namespace

FlowControlSetup BuildFlowControl(apf::KubernetesVersion version,
                                  const FlowControlManifests& manifests, bool with_bootstrap) {
  FlowControlSetup setup;
  setup.version = version;
  apf::FlowControlObjects applied = manifests.Objects(&setup.notes);
  // Without the defaults the mandatory objects are still there: the config producer
  // ensures them before any request is matched, so a FlowSchema naming exempt works.
  setup.objects = with_bootstrap ? apf::EnsureBootstrapObjects(version, applied, &setup.notes)
                                 : apf::EnsureMandatoryObjects(version, applied, &setup.notes);
  const apf::BootstrapObjects boot = apf::Bootstrap(version);
  AddResetWarnings("PriorityLevelConfiguration", applied.priority_levels,
                   setup.objects.priority_levels, boot.mandatory_priority_levels,
                   PriorityLevelToJson, manifests, &setup.reset_warnings);
  AddResetWarnings("FlowSchema", applied.flow_schemas, setup.objects.flow_schemas,
                   boot.mandatory_flow_schemas, FlowSchemaToJson, manifests, &setup.reset_warnings);
  setup.config = apf::DigestConfig(setup.objects);
  for (const apf::ConfigNote& n : setup.config.notes) {
    // The digest's notes about supplying mandatory objects are expected without the
    // bootstrap objects and say nothing new with them.
    if (n.message.rfind("missing;", 0) == 0) continue;
    setup.notes.push_back(n);
  }
  return setup;
}

}  // namespace sim
