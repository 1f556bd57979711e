// `apfsim model allocation`: replays the seat allocation (apf/allocation/concurrency_allocator.h)
// on JSON cases, so that cases recorded from the real kube-apiserver code can be checked
// against ours.
//
// Input: an array of cases, each
//   {"serverConcurrencyLimit": int,
//    "levels": [{"name": str, "type": "Limited"|"Exempt", "nominalConcurrencyShares": int,
//                "lendablePercent": int or null, "borrowingLimitPercent": int or null,
//                "queuing": {"queues": int, "handSize": int, "queueLengthLimit": int} or null}],
//    "periods": [{"<level>": {"average": num, "stdDev": num, "max": num,
//                             "duration": seconds}, ...}, ...]}
// `levels` is digested at time zero, in that order, like a controller's first digestion
// (the mandatory "exempt" and "catch-all" levels are imagined if absent, as the real
// controller does). Each entry of `periods` is what the levels' seat-demand integrators
// report at one 10-second adjustment; a level left out reports a zero-length reading
// (max 0). average and stdDev may be null (NaN, as for a zero-length reading).
//
// Output: an array with, per case,
//   {"config": {"<level>": {"nominalCL": int, "minCL": int, "maxCL": int,
//                           "maxSeats": int or null (Exempt and Reject levels)}},
//    "periods": [{"<level>": {"currentCL": int}}, ...]}
// with one entry per input period. Bad input throws sim::InputError naming the field.
#ifndef SIM_MODEL_ALLOCATION_H_
#define SIM_MODEL_ALLOCATION_H_

#include <nlohmann/json.hpp>
#include <string>

namespace sim {

// `source` names the input in error messages ("<stdin>").
nlohmann::json ReplayAllocationCases(const nlohmann::json& cases, const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_ALLOCATION_H_
