// The logic of `apfsim model flowhash` and `apfsim model classify`: JSON cases in, the
// apf/ model's answers out, so that cases recorded from the real apiserver can be
// replayed against ours (sim/cli/model.cc only reads stdin and prints).
//
// flowhash:  [{"flowSchema": str, "distinguisher": str}]  ->  [{"hash": "<uint64>"}]
// classify:  [{"user", "groups", "verb", "apiGroup", "resource", "subresource",
//              "namespace", "name", "path", "isResourceRequest"}]
//        ->  [{"flowSchema", "priorityLevel", "distinguisher", "hash": "<uint64>"}]
// A classify case is the request as the apiserver sees it after authentication: its
// groups are used as given (nothing is added). Only "user" and "verb" are required;
// "isResourceRequest" defaults to true unless "path" is given.
#ifndef SIM_MODEL_CLASSIFY_H_
#define SIM_MODEL_CLASSIFY_H_

#include <nlohmann/json.hpp>
#include <string>

#include "apf/classification/classifier.h"

namespace sim {

nlohmann::json FlowHashCases(const nlohmann::json& cases, const std::string& source);

nlohmann::json ClassifyCases(const apf::Classifier& classifier, const nlohmann::json& cases,
                             const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_CLASSIFY_H_
