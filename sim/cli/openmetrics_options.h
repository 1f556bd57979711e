// Reads back the flags of `apfsim run` and `compare` that ask for metrics.om
// (sim/report/openmetrics.h): --openmetrics, --start-time and --label (declared in
// sim/cli/flags.cc's table).
// Tested by tests/sim/report/openmetrics_test.cc.
#ifndef SIM_CLI_OPENMETRICS_OPTIONS_H_
#define SIM_CLI_OPENMETRICS_OPTIONS_H_

#include <boost/program_options.hpp>
#include <optional>

#include "sim/report/openmetrics.h"

namespace sim::cli {

// Empty without --openmetrics. A bad --start-time or --label, or either without
// --openmetrics, throws InputError.
std::optional<OpenMetricsOptions> OpenMetricsFrom(
    const boost::program_options::variables_map& values);

}  // namespace sim::cli

#endif  // SIM_CLI_OPENMETRICS_OPTIONS_H_
