// Values that several sections of a scenario share: duration distributions, rates, the
// files a scenario names (relative to the scenario's folder) and names that are printed.
// Each check lives here once, so that every section words its error the same.
// Tested through the loader: tests/sim/scenario/fuzz_findings_test.cc, the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml) and tests/fuzz/scenario_loader.cc.
#ifndef SIM_SCENARIO_SPEC_VALUES_H_
#define SIM_SCENARIO_SPEC_VALUES_H_

#include <string>
#include <string_view>

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// A duration, or one of {constant, exponential, uniform, lognormal, ...} (see
// scenarios/README.md#distributions).
DurationDistribution ReadDistribution(const YamlValue& v);

// A `window: {from, to}` of spec.expect and spec.reference: `from` (default 0) within the
// run's `duration`, `to` (default: the end, apf::kNever) after it and not past the end.
void ReadWindow(const YamlValue& v, apf::Nanos duration, apf::Nanos* from, apf::Nanos* to);

// Fails `v` when `rate` (per second) is positive but below 1e-6.
void CheckRateNotTiny(const YamlValue& v, double rate);

// The file `v` names, relative to the folder of `scenario_file` unless absolute, in its
// normal form; fails `v` when it does not exist or is a directory.
std::string ResolveScenarioFile(const YamlValue& v, const std::string& scenario_file);

// What is wrong with a printed name (control or bidirectional formatting characters), or "".
std::string InvisibleCharacterIn(std::string_view name);

}  // namespace sim

#endif  // SIM_SCENARIO_SPEC_VALUES_H_
