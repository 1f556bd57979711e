// Reads a scenario file (scenarios/README.md documents the format) into a Scenario:
// strict, with every error naming the file, line, column and field path, and with the
// command line's `--set PATH=VALUE` overrides applied before validation.
#ifndef SIM_SCENARIO_LOADER_H_
#define SIM_SCENARIO_LOADER_H_

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace sim {

// Loads `path`, applying each override "PATH=VALUE" (PATH below `spec`, see
// scenarios/README.md). Throws InputError on any problem.
Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides = {});

}  // namespace sim

#endif  // SIM_SCENARIO_LOADER_H_
