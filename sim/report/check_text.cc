#include "sim/report/check_text.h"

#include <sstream>

#include "sim/report/expectations.h"

namespace sim {

std::string CheckVerdictsText(const ScenarioCheck& check, bool quiet, bool colour,
                              CheckTotals& totals) {
  auto paint = [&](const char* code, const std::string& t) {
    return colour ? std::string("\033[") + code + "m" + t + "\033[0m" : t;
  };
  ++totals.checked;
  std::ostringstream out;
  out << check.name << " (" << check.file << ")\n";
  if (check.error) {
    out << "  " << paint("31", "ERROR") << "  could not be checked: " << *check.error << "\n"
        << check.name << ": not checked\n\n";
    ++totals.errors;
    return out.str();
  }
  int passed = 0, failed = 0;
  for (const ExpectationResult& r : check.results) {
    (r.passed ? passed : failed) += 1;
    if (quiet && r.passed) continue;
    const Expectation& e = r.expectation;
    out << "  " << (r.passed ? paint("32", "PASS") : paint("31", "FAIL")) << "  "
        << DescribeExpectation(e) << ": measured " << FormatMeasured(r.measured, e);
    if (!r.seeds.empty()) out << " (" << DescribeSeedVerdict(r) << ")";
    if (!e.description.empty()) out << "  (" << e.description << ")";
    if (!r.passed) out << "  [" << check.file << ":" << e.where.line << "]";
    out << "\n";
  }
  if (check.results.empty()) out << "  no expectations (spec.expect is empty)\n";
  out << check.name << ": " << passed << " passed, " << failed << " failed\n\n";
  totals.passed += passed;
  totals.failed += failed;
  return out.str();
}

std::string CheckTotalsText(const CheckTotals& totals) {
  if (totals.checked <= 1) return "";
  std::ostringstream out;
  out << "total: " << totals.passed << " passed, " << totals.failed << " failed";
  if (totals.errors > 0) out << ", " << totals.errors << " not checked (errors)";
  out << " in " << totals.checked << " scenarios\n";
  return out.str();
}

}  // namespace sim
