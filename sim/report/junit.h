// JUnit XML for `apfsim check`: one <testsuite> per scenario, one <testcase> per assertion,
// each with the `file` and `line` attributes GitLab and GitHub read. A scenario that could
// not be checked (it failed to load, or its run failed) is one <testcase> with an <error>,
// so that CI still shows every other scenario's verdicts.
// Tested by tests/sim/report/expectations_test.cc and tests/cli/bad_inputs_test.cc.
#ifndef SIM_REPORT_JUNIT_H_
#define SIM_REPORT_JUNIT_H_

#include <optional>
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
  // Set when the scenario could not be checked: the message (as apfsim prints it), and
  // where it points when that is a file (else the scenario file, line 1).
  std::optional<std::string> error;
  std::string error_file;
  int error_line = 0;
};

// JUnit XML: <testsuites> with a <testsuite> per scenario and a <testcase> per assertion,
// failed ones with a <failure> saying what was measured (over seeds, which seeds failed), a
// scenario with an error as one <testcase> with an <error>. Text is XML-escaped.
std::string JunitXml(const std::vector<ScenarioCheck>& checks);

// Escapes text for XML content and attribute values; characters XML 1.0 cannot carry
// (control characters other than tab, newline, carriage return) become U+FFFD.
std::string XmlEscape(std::string_view text);

}  // namespace sim

#endif  // SIM_REPORT_JUNIT_H_
