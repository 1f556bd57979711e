// spec.expect and `apfsim check` (sim/report/expectations.h, sim/cli/check.cc): the comparisons,
// the strict reading of assertions with file:line:column errors, windowed values on a
// scenario small enough to work out by hand (tests/fixtures/check/windows.yaml), and the
// command's exit codes and JUnit report.
#include "sim/report/expectations.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/report/junit.h"
#include "sim/scenario/loader.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using sim::Expectation;

namespace {

std::string Fixture(const char* name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/check/" + name;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs apfsim with `args`; stdout and stderr go to files in `dir`.
int RunApfsim(const std::string& args, const fs::path& dir) {
  const std::string command = std::string(APFSIM_BINARY) + " " + args + " > " +
                              (dir / "stdout").string() + " 2> " + (dir / "stderr").string();
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A scenario file with one client and the given expect list, for loader errors.
std::string ScenarioWithExpect(const fs::path& dir, const std::string& expect_yaml) {
  const fs::path file = dir / "scenario.yaml";
  std::ofstream(file)
      << "apiVersion: apfsim/v1alpha1\n"
         "kind: Scenario\n"
         "metadata: {name: t}\n"
         "spec:\n"
         "  duration: 10s\n"
         "  clients:\n"
         "  - name: my.client\n"
         "    serviceAccount: a/b\n"
         "    traffic:\n"
         "    - constant: {rate: 1, request: {verb: get, resource: pods, namespace: a, name: a}}\n"
         "  expect:\n"
      << expect_yaml;
  return file.string();
}

sim::InputError LoadError(const std::string& file) {
  try {
    sim::LoadScenario(file, {});
  } catch (const sim::InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return sim::InputError({}, "", "");
}

}  // namespace

TEST_CASE("each comparison operator holds exactly when its relation does", "[expect]") {
  using Op = Expectation::Op;
  struct Case {
    Op op;
    bool below, equal, above;  // verdict for measured 1, 2, 3 against 2
  };
  const Case cases[] = {{Op::kEq, false, true, false}, {Op::kNe, true, false, true},
                        {Op::kLt, true, false, false}, {Op::kLe, true, true, false},
                        {Op::kGt, false, false, true}, {Op::kGe, false, true, true}};
  for (const Case& c : cases) {
    INFO(sim::ExpectationOpText(c.op));
    CHECK(sim::ParseExpectationOp(sim::ExpectationOpText(c.op)) == c.op);
    CHECK(sim::CompareExpectation(1, c.op, 2) == c.below);
    CHECK(sim::CompareExpectation(2, c.op, 2) == c.equal);
    CHECK(sim::CompareExpectation(3, c.op, 2) == c.above);
  }
  CHECK(!sim::ParseExpectationOp("=<"));
  CHECK(!sim::ParseExpectationOp("="));
}

TEST_CASE("an expectation path splits at the summary.json field, so names may hold dots",
          "[expect]") {
  Expectation e;
  REQUIRE(sim::ParseExpectationPath("clients.my.client.latencySeconds.p99", false, &e) == "");
  CHECK(e.section == "clients");
  CHECK(e.subject == "my.client");
  CHECK(e.field == "latencySeconds.p99");
  REQUIRE(sim::ParseExpectationPath("priorityLevels.workload-low.rejected.queue-full", true, &e) ==
          "");
  CHECK(e.subject == "workload-low");
  CHECK(e.field == "rejected.queue-full");
  CHECK(sim::ParseExpectationPath("gateway.requestRateExceeded", false, &e) == "");
  CHECK(sim::ParseExpectationPath("clients.x.latencySeconds.p95", false, &e) != "");
  CHECK(sim::ParseExpectationPath("clients.latencySeconds.p99", false, &e) != "");  // no name
  CHECK(sim::ParseExpectationPath("levels.x.dispatched", false, &e) != "");
  // The report rows carry no maxima: a windowed max cannot be computed.
  CHECK(sim::ParseExpectationPath("clients.x.latencySeconds.max", true, &e) != "");
  CHECK(sim::ParseExpectationPath("priorityLevels.x.peakRequestSeats", true, &e) != "");
}

TEST_CASE("spec.expect is read strictly, with the file, line and column of each error",
          "[expect]") {
  const test_support::ScratchDir scratch("apfsim-check-loader");
  const fs::path& dir = scratch.path();
  {
    const sim::Scenario s = sim::LoadScenario(
        ScenarioWithExpect(
            dir,
            "  - {path: clients.my.client.http429, \"<=\": 3, window: {from: 2s, to: 4s},\n"
            "     description: few}\n"),
        {});
    REQUIRE(s.expectations.size() == 1);
    const Expectation& e = s.expectations[0];
    CHECK(e.subject == "my.client");
    CHECK(e.op == Expectation::Op::kLe);
    CHECK(e.value == 3);
    CHECK(e.windowed);
    CHECK(e.window_from == 2 * apf::kSecond);
    CHECK(e.window_to == 4 * apf::kSecond);
    CHECK(e.description == "few");
    CHECK(e.where.line == 12);
    CHECK(sim::DescribeExpectation(e) == "clients.my.client.http429 <= 3 in [2s, 4s)");
  }
  // Line 12 is the first item of expect; columns count from 1.
  sim::InputError bad_path =
      LoadError(ScenarioWithExpect(dir, "  - {path: clients.my.client.p95, \"<\": 1}\n"));
  CHECK(bad_path.where().line == 12);
  CHECK(bad_path.where().column == 12);
  CHECK(bad_path.field_path() == "spec.expect[0].path");

  sim::InputError no_client =
      LoadError(ScenarioWithExpect(dir, "  - {path: clients.other.failed, \"==\": 0}\n"));
  CHECK(no_client.message().find("no client \"other\"") != std::string::npos);

  sim::InputError bad_op =
      LoadError(ScenarioWithExpect(dir, "  - {path: clients.my.client.failed, \"=<\": 0}\n"));
  CHECK(bad_op.where().line == 12);
  CHECK(bad_op.field_path().find("=<") != std::string::npos);

  sim::InputError two_ops = LoadError(
      ScenarioWithExpect(dir, "  - {path: clients.my.client.failed, \">\": 0, \"<\": 9}\n"));
  CHECK(two_ops.message().find("exactly one comparison") != std::string::npos);

  sim::InputError no_op =
      LoadError(ScenarioWithExpect(dir, "  - {path: clients.my.client.failed}\n"));
  CHECK(no_op.message().find("needs one comparison") != std::string::npos);

  sim::InputError not_number =
      LoadError(ScenarioWithExpect(dir, "  - {path: clients.my.client.failed, \"==\": zero}\n"));
  CHECK(not_number.field_path() == "spec.expect[0].==");

  sim::InputError late_window = LoadError(ScenarioWithExpect(
      dir, "  - {path: clients.my.client.failed, \"==\": 0, window: {from: 5s, to: 11s}}\n"));
  CHECK(late_window.field_path() == "spec.expect[0].window.to");

  sim::InputError windowed_max = LoadError(ScenarioWithExpect(
      dir, "  - {path: clients.my.client.latencySeconds.max, \"<\": 1, window: {from: 1s}}\n"));
  CHECK(windowed_max.message().find("cannot be limited to a window") != std::string::npos);
}

TEST_CASE(
    "windowed values come from the rows of the window: counts summed, percentiles the "
    "largest interval's",
    "[expect]") {
  sim::RunRequest request;
  request.scenario_file = Fixture("windows.yaml");
  const test_support::ScratchDir scratch("apfsim-check-windows");
  request.out_dir = scratch.path().string();
  request.quiet = true;
  const sim::RunOutcome outcome = sim::RunScenario(request);
  const auto& r = outcome.expectations;
  REQUIRE(r.size() == 6);
  for (const auto& x : r) {
    INFO(sim::DescribeExpectation(x.expectation)
         << " measured " << sim::FormatMeasured(x.measured));
    CHECK(x.passed);
  }
  // A call every 100 ms: the intervals starting at 2 s, 3 s and 4 s hold 30 of them, and
  // with nothing else running each is dispatched at once.
  CHECK(*r[1].measured == 30);
  CHECK(*r[4].measured == 30);
  // Service 5 ms before 5 s and 50 ms after; the histogram reports a bucket's middle
  // (1.6% precision, sim/world/latency_histogram.h), and the client adds no delay of its own.
  CHECK(*r[2].measured == Approx(0.005).epsilon(0.02));
  CHECK(*r[3].measured == Approx(0.050).epsilon(0.02));
  // Over the whole run the p99 is the slow half's.
  CHECK(outcome.summary["clients"]["reader"]["latencySeconds"]["p99"].get<double>() ==
        Approx(0.050).epsilon(0.02));
}

TEST_CASE("apfsim check exits 1 on a false assertion and writes it as a failed JUnit case",
          "[expect][cli]") {
  const test_support::ScratchDir scratch("apfsim-check-false");
  const fs::path& dir = scratch.path();
  const fs::path junit = dir / "junit.xml";
  CHECK(RunApfsim("check " + Fixture("false.yaml") + " --out " + (dir / "out").string() +
                      " --junit " + junit.string(),
                  dir) == 1);
  const std::string out = Slurp(dir / "stdout");
  CHECK(out.find("PASS  clients.reader.failed == 0: measured 0") != std::string::npos);
  // Ten calls a second for three seconds.
  CHECK(out.find("FAIL  clients.reader.calls < 5: measured 30") != std::string::npos);
  CHECK(out.find("check-false: 1 passed, 1 failed") != std::string::npos);
  const std::string xml = Slurp(junit);
  CHECK(xml.find("<testsuite name=\"check-false\"") != std::string::npos);
  CHECK(xml.find("tests=\"2\" failures=\"1\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"check-false\" name=\"clients.reader.failed == 0\"") !=
        std::string::npos);
  // The description is escaped.
  CHECK(xml.find("name=\"clients.reader.calls &lt; 5 (a &lt;false&gt; &amp; &quot;quoted&quot; "
                 "claim)\"") != std::string::npos);
  CHECK(xml.find("<failure message=\"measured 30, expected &lt; 5\"") != std::string::npos);
}

TEST_CASE("apfsim check exits 0 when every assertion holds", "[expect][cli]") {
  const test_support::ScratchDir scratch("apfsim-check-pass");
  const fs::path& dir = scratch.path();
  CHECK(RunApfsim("check " + Fixture("windows.yaml") + " --out " + (dir / "out").string() +
                      " --junit " + (dir / "junit.xml").string(),
                  dir) == 0);
  CHECK(Slurp(dir / "junit.xml").find("failures=\"0\"") != std::string::npos);
}

TEST_CASE("apfsim check exits 2 on a bad path, naming its location, and reports it in JUnit",
          "[expect][cli]") {
  const test_support::ScratchDir scratch("apfsim-check-bad");
  const fs::path& dir = scratch.path();
  const fs::path junit = dir / "junit.xml";
  CHECK(RunApfsim("check " + Fixture("bad-path.yaml") + " --junit " + junit.string(), dir) == 2);
  // The item is on line 14 of the fixture; the path's value starts at column 12.
  CHECK(Slurp(dir / "stderr").find("bad-path.yaml:14:12") != std::string::npos);
  // As a JUnit error (tests/sim/report/seed_verdicts_test.cc has the details).
  CHECK(Slurp(junit).find("errors=\"1\"") != std::string::npos);
}

TEST_CASE("XmlEscape escapes markup and replaces characters XML cannot carry", "[expect]") {
  CHECK(sim::XmlEscape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(sim::XmlEscape(std::string("x\x01y\tz\n")) == "x\xEF\xBF\xBDy\tz\n");
}

TEST_CASE("check prints a measured value to the decimals its expectation is written with",
          "[expectations]") {
  // Hand-worked: 1729 / 3 = 576.333... against "< 600" (no decimals) prints "576";
  // against "<= 576.5" (one decimal) "576.3".
  Expectation e;
  e.op = Expectation::Op::kLt;
  e.value = 600;
  e.value_decimals = 0;
  CHECK(sim::FormatMeasured(1729.0 / 3, e) == "576");
  e.op = Expectation::Op::kLe;
  e.value = 576.5;
  e.value_decimals = 1;
  CHECK(sim::FormatMeasured(1729.0 / 3, e) == "576.3");
  // 0.4 against "== 0" fails; "0" would read as a pass, so a decimal more is printed.
  e.op = Expectation::Op::kEq;
  e.value = 0;
  e.value_decimals = 0;
  CHECK(sim::FormatMeasured(0.4, e) == "0.4");
  CHECK(sim::FormatMeasured(0.0, e) == "0");
  // 599.7 against "< 600" passes; "600" would read as a failure: "599.7".
  e.op = Expectation::Op::kLt;
  e.value = 600;
  CHECK(sim::FormatMeasured(599.7, e) == "599.7");
  // Written with an exponent, or nothing measured: as before.
  e.value_decimals = -1;
  CHECK(sim::FormatMeasured(1729.0 / 3, e) == "576.3333333333334");
  CHECK(sim::FormatMeasured(std::nullopt, e) == "null");
}
