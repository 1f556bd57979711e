// `apfsim model estimate`: runs the work estimator (apf/estimation/work_estimator.h) on requests
// with given statistics, so that it can be checked against cases recorded from the real
// k8s.io/apiserver estimators. Input is a JSON array of
//   {"request": {"verb", "apiGroup", "apiVersion", "resource", "subresource",
//                "namespace", "name": str, "query": "limit=500&resourceVersion=0&...",
//                "isResourceRequest": bool, "path": str} or null (no RequestInfo),
//    "objectCount": int, "avgObjectSizeBytes": int,
//    "statsError": "" | "notFound" | "stale",
//    "watchCount": int (the interested watches a write would fan out to),
//    "maxSeats": int (the level's max seats; 0 means unset),
//    "featureGates": {"SizeBasedListCostEstimate": bool, "WatchList": bool},
//    "consistentReadFromCache": bool (etcd supports watch-progress requests)}
// and the output has one {"initialSeats": int, "finalSeats": int, "additionalLatencyNs":
// int} per input. `request.verb` is required; the other request fields default to ""
// (isResourceRequest to true); statistics default to 0 and "", both gates and
// consistentReadFromCache to true (the 1.34+ defaults).
#ifndef SIM_MODEL_ESTIMATE_H_
#define SIM_MODEL_ESTIMATE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace sim {

// `cases` is the parsed input; `source` names it in InputErrors ("<stdin>").
nlohmann::json ReplayEstimateCases(const nlohmann::json& cases, const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_ESTIMATE_H_
