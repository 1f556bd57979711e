// The APF debug endpoints of one simulated apiserver at one instant, in their exact text
// format (doc/model.md#debug-dumps, apf_controller_debug.go): dump_priority_levels, dump_queues and
// dump_requests (with includeRequestDetails=1), laid out as Go's tabwriter lays them out.
#ifndef SIM_REPORT_DEBUG_DUMPS_H_
#define SIM_REPORT_DEBUG_DUMPS_H_

#include <string>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

class World;

struct DebugDumps {
  std::string priority_levels;
  std::string queues;
  std::string requests;
};

DebugDumps MakeDebugDumps(const World& world, int replica, apf::Nanos now);

// Go's text/tabwriter with minwidth 8, tabwidth 0, padding 1, padchar ' ' and no flags,
// for rows whose cells are each followed by ",\t" except the last.
std::string TabWriterRows(const std::vector<std::vector<std::string>>& rows);

// RFC3339Nano in UTC for a virtual instant (apf::kVirtualEpochUnixNanos is instant 0).
std::string Rfc3339Nano(apf::Nanos t);

}  // namespace sim

#endif  // SIM_REPORT_DEBUG_DUMPS_H_
