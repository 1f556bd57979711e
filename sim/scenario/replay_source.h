// A source of recorded calls for the world to replay: the CSV trace of a `trace` traffic
// item (sim/scenario/trace_replay.h) and a Kubernetes audit log (sim/scenario/audit_log.h) both
// hand the world one row at a time, in arrival order, so that memory does not grow with the length
// of the recording: the world holds one pending row per source and asks for the next when
// the virtual clock reaches it.
#ifndef SIM_SCENARIO_REPLAY_SOURCE_H_
#define SIM_SCENARIO_REPLAY_SOURCE_H_

#include "apf/base/virtual_time.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One recorded call.
struct ReplayRow {
  apf::Nanos at = 0;        // virtual arrival time (already offset and scaled)
  int client = -1;          // the scenario client that sends it; -1: the source's own client
  RequestTemplate request;  // service_time, when set, is the recorded service time
  int recorded_code = 0;    // the response code the recording saw (audit logs), 0 unknown
};

class ReplaySource {
 public:
  virtual ~ReplaySource() = default;
  // The next row in arrival order; false at the end. Bad input throws sim::InputError.
  virtual bool Next(ReplayRow* row) = 0;
};

}  // namespace sim

#endif  // SIM_SCENARIO_REPLAY_SOURCE_H_
