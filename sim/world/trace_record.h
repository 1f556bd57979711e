// What `--trace` writes about one attempt (scenarios/README.md, "--trace"): a plain record
// the world fills when the attempt's seats are free, and its one line of trace.jsonl. The
// line is written from the record alone, so the writer needs nothing of the world.
// Tested by tests/sim/world/trace_record_test.cc, and in whole runs with --trace by
// tests/sim/scenario/replay_test.cc.
#ifndef SIM_WORLD_TRACE_RECORD_H_
#define SIM_WORLD_TRACE_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"
#include "apf/config/flow_control_config.h"
#include "apf/estimation/work_estimator.h"

namespace sim {

struct TraceRecord {
  std::uint64_t call = 0;  // the call's number in the run
  int try_number = 0;      // 1: the call's first attempt; n: its (n-1)th retry
  std::string_view client;
  int process = 0;
  std::string_view user;
  const apf::RequestInfo* request = nullptr;  // as sent
  int replica = 0;
  // Classified by a FlowSchema: its name, its level's, the flow (the classifier's
  // distinguisher and the flow hash) and, when the level shuffle-shards, the hand dealt.
  std::optional<std::string_view> flow_schema;
  std::optional<std::string_view> priority_level;  // also without a FlowSchema (MaxInFlight)
  std::string_view distinguisher;
  std::uint64_t flow_hash = 0;
  std::optional<std::vector<int>> hand;
  int queue = -1;
  apf::WorkEstimate estimate;
  // Virtual times; -1: it did not happen.
  apf::Nanos arrived = 0, dispatched = -1, finished = -1, answered = -1;
  apf::Nanos released = 0;
  std::string_view outcome;  // "" means completed
  std::string_view reason;
  int status = 0, retry_after = 0;
};

// Fills the record's FlowSchema, priority level and flow from the configuration: the
// request was classified into `flow_schema` (an index into config.flow_schemas) and
// hashed to `flow_hash`; the hand is the one shuffle sharding deals for that hash.
void DescribeFlow(const apf::FlowControlConfig& config, int flow_schema, std::uint64_t flow_hash,
                  std::string_view distinguisher, TraceRecord* record);

// The record as one JSON line (no newline), keys in the documented order.
std::string TraceJsonLine(const TraceRecord& record);

}  // namespace sim

#endif  // SIM_WORLD_TRACE_RECORD_H_
