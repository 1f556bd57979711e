// A source of recorded calls for the world to replay: the CSV trace of a `trace` traffic
// item (sim/scenario/trace_replay.h) and a Kubernetes audit log (sim/scenario/audit_log.h) both
// hand the world one row at a time, in arrival order, so that memory does not grow with the length
// of the recording: the world holds one pending row per source and asks for the next when
// the virtual clock reaches it.
#ifndef SIM_SCENARIO_REPLAY_SOURCE_H_
#define SIM_SCENARIO_REPLAY_SOURCE_H_

#include <string>
#include <string_view>

#include "apf/base/virtual_time.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One recorded call.
struct ReplayRow {
  apf::Nanos at = 0;        // virtual arrival time (already offset and scaled)
  int client = -1;          // the scenario client that sends it; -1: the source's own client
  RequestTemplate request;  // service_time, when set, is the recorded service time
  int recorded_code = 0;    // the response code the recording saw (audit logs), 0 unknown
  // The request as the source wrote it, apart from its namespace and name: rows of one
  // source with the same `shape` send the same request to their own namespace and name
  // (those below), so the world compiles it once (sim/world/world.cc, ReplayShapeOf).
  // Empty when the source does not say. Valid, as the views below, until the next Next.
  std::string_view shape;
  std::string_view namespace_name;
  std::string_view name;
  // `request` is not written yet: FillRequest writes it (a row whose shape the world has
  // compiled already never needs it).
  bool request_deferred = false;
};

class ReplaySource {
 public:
  virtual ~ReplaySource() = default;
  // The next row in arrival order; false at the end. Bad input throws sim::InputError.
  virtual bool Next(ReplayRow* row) = 0;
  // Writes `row->request` of a row Next left `request_deferred`.
  virtual void FillRequest(ReplayRow* row) { row->request_deferred = false; }
  // The file's SHA-256 when the source took it as it read (then the run's provenance takes
  // it from here: no second pass), else "". Reads the rest of the file; the source is spent.
  virtual std::string FinishSha256() { return ""; }
  // The file the source reads, "" when none.
  virtual std::string file() const { return {}; }
};

}  // namespace sim

#endif  // SIM_SCENARIO_REPLAY_SOURCE_H_
