#include "sim/report/junit.h"

#include <fmt/format.h>

#include <algorithm>

namespace sim {

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to carry these
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string JunitXml(const std::vector<ScenarioCheck>& checks) {
  int tests = 0, failures = 0, errors = 0;
  double seconds = 0;
  for (const ScenarioCheck& c : checks) {
    tests += static_cast<int>(c.results.size()) + (c.error ? 1 : 0);
    errors += c.error ? 1 : 0;
    for (const ExpectationResult& r : c.results) failures += r.passed ? 0 : 1;
    seconds += c.wall_seconds;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"apfsim check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      tests, failures, errors, seconds);
  for (const ScenarioCheck& c : checks) {
    if (c.error) {
      const std::string file = c.error_file.empty() ? c.file : c.error_file;
      out += fmt::format(
          "  <testsuite name=\"{0}\" file=\"{1}\" tests=\"1\" failures=\"0\" errors=\"1\" "
          "skipped=\"0\" time=\"{2:.3f}\">\n"
          "    <testcase classname=\"{0}\" name=\"{1} could not be checked\" file=\"{3}\" "
          "line=\"{4}\" time=\"{2:.3f}\">\n"
          "      <error message=\"{5}\" type=\"input\">{5}</error>\n"
          "    </testcase>\n"
          "  </testsuite>\n",
          XmlEscape(c.name), XmlEscape(c.file), c.wall_seconds, XmlEscape(file),
          std::max(1, c.error_line), XmlEscape(*c.error));
      continue;
    }
    int suite_failures = 0;
    for (const ExpectationResult& r : c.results) suite_failures += r.passed ? 0 : 1;
    out += fmt::format(
        "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
        "skipped=\"0\" "
        "time=\"{:.3f}\">\n",
        XmlEscape(c.name), XmlEscape(c.file), c.results.size(), suite_failures, c.wall_seconds);
    for (const ExpectationResult& r : c.results) {
      const Expectation& e = r.expectation;
      std::string name = DescribeExpectation(e);
      if (!e.description.empty()) name += " (" + e.description + ")";
      out += fmt::format(
          "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\" time=\"0\"",
          XmlEscape(c.name), XmlEscape(name), XmlEscape(c.file), e.where.line);
      if (r.passed) {
        out += "/>\n";
        continue;
      }
      std::string message =
          fmt::format("measured {}, expected {} {}", FormatMeasured(r.measured, e),
                      ExpectationOpText(e.op), e.value);
      if (!r.seeds.empty()) message += "; " + DescribeSeedVerdict(r);
      out += ">\n";
      out += fmt::format(
          "      <failure message=\"{}\" type=\"expectation\">{}:{}:{}: {}: {}</failure>\n",
          XmlEscape(message), XmlEscape(c.file), e.where.line, e.where.column,
          XmlEscape(DescribeExpectation(e)), XmlEscape(message));
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace sim
