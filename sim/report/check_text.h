// What `apfsim check` prints for each scenario it checked, and the totals line: PASS and FAIL
// lines with the measured value (over seeds, which seeds failed), the expectation's file
// and line for a failure, and "not checked" for a scenario that could not run.
#ifndef SIM_REPORT_CHECK_TEXT_H_
#define SIM_REPORT_CHECK_TEXT_H_

#include <string>

#include "sim/report/junit.h"

namespace sim {

struct CheckTotals {
  int passed = 0, failed = 0, errors = 0, checked = 0;
};

// One scenario's verdicts (only the failed ones when `quiet`), ANSI-coloured when `colour`;
// counts them into `totals`.
std::string CheckVerdictsText(const ScenarioCheck& check, bool quiet, bool colour,
                              CheckTotals& totals);

// "total: P passed, F failed in N scenarios", or "" for a single scenario.
std::string CheckTotalsText(const CheckTotals& totals);

}  // namespace sim

#endif  // SIM_REPORT_CHECK_TEXT_H_
