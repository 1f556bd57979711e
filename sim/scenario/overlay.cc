#include "sim/scenario/overlay.h"

#include "sim/io/yaml_input.h"

namespace sim {
namespace {

bool IsOverlayDocument(const YAML::Node& doc) {
  return doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "Overlay";
}

void ReadOverlayDocument(const YamlValue& value, Overlay* overlay) {
  YamlMap top = value.Map();
  YamlValue api_version = top.Required("apiVersion");
  if (api_version.String() != "apfsim/v1alpha1") api_version.Fail("must be apfsim/v1alpha1");
  top.Required("kind");
  if (auto metadata = top.Optional("metadata")) {
    YamlMap meta = metadata->Map();
    meta.Ignore({"name", "description", "labels", "annotations"});
    meta.Finish();
  }
  YamlValue set = top.Required("set");
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::string text = set[i].Text();
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) set[i].Fail("expected PATH=VALUE");
    overlay->sets.push_back(text);
    overlay->set_where.push_back(set[i].where());
  }
  top.Finish();
}

}  // namespace

Overlay LoadOverlay(const std::string& path) {
  Overlay overlay;
  const std::vector<YAML::Node> docs = LoadYamlFile(path);
  if (docs.empty()) {
    throw InputError({path, 0, 0}, "",
                     "the overlay is empty: expected flow-control manifests or an Overlay");
  }
  for (const YAML::Node& doc : docs) {
    if (IsOverlayDocument(doc)) {
      ReadOverlayDocument(YamlValue(doc, path, ""), &overlay);
    } else {
      overlay.manifests.Append(ReadFlowControlNode(doc, path));
    }
  }
  return overlay;
}

}  // namespace sim
