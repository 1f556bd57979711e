// `apfsim model queueset`: replays arrivals, completions and time-outs through one
// apf::QueueSet, so that its decisions can be compared, to the nanosecond, with cases
// recorded from kube-apiserver's queueset.go.
//
// Input: a JSON array of cases
//   {"queueset": {"concurrencyLimit": int, "queues": int, "handSize": int,
//                 "queueLengthLimit": int},
//    "requests": [{"id": int, "arrive": s, "flowSchema": str, "distinguisher": str,
//                  "initialSeats": int, "finalSeats": int, "additionalLatency": s,
//                  "service": s, "waitLimit": s}]}
// `queues` 0 is a Reject-type level and -1 an Exempt level; handSize and
// queueLengthLimit are needed only when queues > 0. Times are decimal seconds, taken as
// round(x * 1e9) ns. flowSchema and distinguisher default to "", initialSeats to 1,
// finalSeats and additionalLatency to 0, waitLimit to 15 s (the default wait limit,
// doc/model.md#queue-wait-deadline). The flow hash is hashFlowID(flowSchema, distinguisher) when
// queues > 1, else 0, as the filter computes it (doc/model.md#flow-hash).
//
// Each request arrives at `arrive`, is rejected or enqueued (and perhaps dispatched at
// once), executes for `service` once dispatched, keeps its seats for the (possibly
// reshaped) additional latency after that, and if still waiting at arrive + waitLimit is
// removed as a time-out.
//
// Order of events at the same instant: first arrivals and time-outs, in input order (a
// request's arrival before its own time-out); then completions and seat releases in the
// order they were scheduled, which for completions is dispatch order (a completion is
// scheduled when its request is dispatched, a release when its request completes).
//
// Output: a JSON array with, per case, {"results": [...]} in input order, each
//   {"id", "outcome": "executed", "queue", "dispatchNs", "finishNs", "releaseNs"} or
//   {"id", "outcome": "rejected", "reason": "queue-full"|"time-out"|"concurrency-limit",
//    "queue", "rejectedAtNs"}
// where "queue" is the queue the request was enqueued in, -1 when none.
#ifndef SIM_MODEL_QUEUE_SET_REPLAY_H_
#define SIM_MODEL_QUEUE_SET_REPLAY_H_

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace sim {

// `cases` is the parsed input; `source` names it in InputErrors ("<stdin>").
nlohmann::json ReplayQueueSetCases(const nlohmann::json& cases, const std::string& source);

// The same replay, streamed: reads the cases from `in` as they come (never the whole text),
// replays each case when its closing brace is read and writes its results to `out` at
// once, in the layout `apfsim model queueset` prints. Holds one case's requests and their
// outcomes (under 100 bytes a request), not the document. Bad input is refused with the
// same messages and fields as ParseJsonText and ReplayQueueSetCases give, and a bad
// request is also placed: at the line and column of the field its message names (or of
// the request). Cases before the bad one have already been written.
void StreamQueueSetCases(std::istream& in, std::ostream& out, const std::string& source);

}  // namespace sim

#endif  // SIM_MODEL_QUEUE_SET_REPLAY_H_
