// JUnit XML for `apfsim check`: one <testsuite> per scenario, one <testcase> per assertion.
// Tested by tests/sim/report/expectations_test.cc and tests/cli/bad_inputs_test.cc.
#ifndef SIM_REPORT_JUNIT_H_
#define SIM_REPORT_JUNIT_H_

#include <string>
#include <string_view>
#include <vector>

#include "sim/report/expectations.h"

namespace sim {

// One scenario's check, for the JUnit report.
struct ScenarioCheck {
  std::string name;  // metadata.name
  std::string file;  // the scenario file as given
  double wall_seconds = 0;
  std::vector<ExpectationResult> results;
};

// JUnit XML: <testsuites> with a <testsuite> per scenario and a <testcase> per assertion,
// failed ones with a <failure> saying what was measured. Text is XML-escaped.
std::string JunitXml(const std::vector<ScenarioCheck>& checks);

// Escapes text for XML content and attribute values; characters XML 1.0 cannot carry
// (control characters other than tab, newline, carriage return) become U+FFFD.
std::string XmlEscape(std::string_view text);

}  // namespace sim

#endif  // SIM_REPORT_JUNIT_H_
