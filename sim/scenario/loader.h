// Reads a scenario file (scenarios/README.md documents the format) into a Scenario:
// strict, with every error naming the file, line, column and field path, and with the
// command line's `--set PATH=VALUE` overrides applied before validation.
#ifndef SIM_SCENARIO_LOADER_H_
#define SIM_SCENARIO_LOADER_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace sim {

// Loads `path`, applying each override "PATH=VALUE" (PATH below `spec`, see
// scenarios/README.md). Throws InputError on any problem.
Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same for the text of a scenario that `path` names: `path` is used in messages and
// to resolve the files the scenario references (the fuzz target feeds text this way).
Scenario ParseScenarioText(std::string_view text, const std::string& path,
                           const std::vector<std::string>& overrides = {});

// The same for the parsed documents of `path`.
Scenario ReadScenarioDocuments(std::vector<YAML::Node> docs, const std::string& path,
                               const std::vector<std::string>& overrides = {});

}  // namespace sim

#endif  // SIM_SCENARIO_LOADER_H_
