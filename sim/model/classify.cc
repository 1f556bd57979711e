#include "sim/model/classify.h"

#include "apf/classification/flow_hash.h"
#include "sim/io/json_input.h"

namespace sim {

nlohmann::json FlowHashCases(const nlohmann::json& cases, const std::string& source) {
  JsonField root(cases, source, "");
  root.ExpectArray();
  apf::FlowHasher hasher;
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < root.size(); ++i) {
    JsonField c = root.At(i);
    c.ExpectObject({"flowSchema", "distinguisher"});
    const std::string fs = c["flowSchema"].String();
    const std::string d = c.StringOr("distinguisher", "");
    out.push_back({{"hash", std::to_string(hasher.Hash(fs, d))}});
  }
  return out;
}

nlohmann::json ClassifyCases(const apf::Classifier& classifier, const nlohmann::json& cases,
                             const std::string& source) {
  JsonField root(cases, source, "");
  root.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < root.size(); ++i) {
    JsonField c = root.At(i);
    c.ExpectObject({"user", "groups", "verb", "apiGroup", "resource", "subresource", "namespace",
                    "name", "path", "isResourceRequest"});
    apf::UserInfo user;
    user.name = c["user"].String();
    if (c.Has("groups")) {
      JsonField groups = c["groups"];
      groups.ExpectArray();
      for (size_t g = 0; g < groups.size(); ++g) user.groups.push_back(groups.At(g).String());
    }
    apf::RequestInfo info;
    info.verb = c["verb"].String();
    info.api_group = c.StringOr("apiGroup", "");
    info.resource = c.StringOr("resource", "");
    info.subresource = c.StringOr("subresource", "");
    info.namespace_name = c.StringOr("namespace", "");
    info.name = c.StringOr("name", "");
    info.path = c.StringOr("path", "");
    info.is_resource_request = c.BoolOr("isResourceRequest", info.path.empty());
    const apf::Classification r = classifier.Classify(apf::MakeRequestDigest(user, info));
    out.push_back({{"flowSchema", classifier.flow_schema(r.flow_schema).metadata.name},
                   {"priorityLevel", classifier.priority_level(r.priority_level).name},
                   {"distinguisher", std::string(r.distinguisher)},
                   {"hash", std::to_string(classifier.FlowHash(r))}});
  }
  return out;
}

}  // namespace sim
