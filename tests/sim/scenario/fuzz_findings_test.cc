// Regression tests for what fuzzing the input readers found (tests/fuzz, README
// "Fuzzing"): each input once hung, crashed, threw something other than sim::InputError
// or tripped a sanitizer; now each is a clear InputError. The messages are the ones the
// readers give; the limits they name are explained where they are enforced.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
#include "sim/io/yaml_input.h"
#include "sim/model/estimate.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/metrics_import.h"
#include "tests/support/test_support.h"

namespace {

// The InputError `read` throws (it must throw one).
template <typename Read>
sim::InputError ErrorOf(Read&& read) {
  try {
    read();
  } catch (const sim::InputError& e) {
    return e;
  }
  FAIL("no InputError was thrown");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("a YAML document starting with a comma is refused instead of looping", "[fuzz]") {
  // yaml-cpp 0.7's LoadAll added null documents for ever on these (its issue 1040).
  sim::InputError e = ErrorOf([] { sim::ParseYamlDocuments(",", "x.yaml"); });
  CHECK(e.where().line == 1);
  CHECK(e.where().column == 1);
  CHECK(e.message() ==
        "invalid YAML: a value cannot start with \",\" (quote a string that starts with it)");
  e = ErrorOf([] { sim::ParseYamlDocuments("a: 1\n---\n  , b: 2\n", "x.yaml"); });
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 3);
  // A comma inside a flow collection, or inside a plain scalar, is still fine.
  CHECK(sim::ParseYamlDocuments("a: [1, 2]\nb: x,y\n", "x.yaml").size() == 1);
}

TEST_CASE("a JSON number beyond a double is an input error at its place", "[fuzz]") {
  // nlohmann/json throws out_of_range.406 for it, which used to escape as an internal error.
  const sim::InputError e = ErrorOf(
      [] { sim::ParseJsonText("[{\"deckSize\": 64,\n  \"handSize\": 1e400}]", "<stdin>"); });
  CHECK(e.message() == "invalid JSON: number overflow parsing '1e400'");
  CHECK(e.where().file == "<stdin>");
  CHECK(e.where().line == 2);
  CHECK(e.where().column == 15);
}

TEST_CASE("audit-log UTC offsets beyond 23:59 are refused", "[fuzz][audit]") {
  // RFC 3339 time-numoffset: hours 00-23, minutes 00-59. +99:99 used to shift the time.
  CHECK_FALSE(sim::ParseRfc3339("2026-12-02T10:05:00+24:00").has_value());
  CHECK_FALSE(sim::ParseRfc3339("2026-12-02T10:05:00-05:60").has_value());
  CHECK_FALSE(sim::ParseRfc3339("2026-12-02T10:05:00+99:99").has_value());
  // 10:05 at +23:59 is 10:06 of the day before in UTC.
  CHECK(*sim::ParseRfc3339("2026-12-02T10:05:00+23:59") ==
        *sim::ParseRfc3339("2026-12-01T10:06:00Z"));
}

TEST_CASE("metrics object counts and sizes too large for int64 are refused", "[fuzz][metrics]") {
  // llround(1e300) is unspecified beyond int64 (glibc: -2^63, a negative object count).
  sim::InputError e = ErrorOf([] {
    sim::ResourcesFromMetricsText(
        "apiserver_storage_objects{instance=\"a\",resource=\"pods\"} "
        "5\napiserver_storage_objects{instance=\"b\",resource=\"pods\"} 1e300\n",
        "m.prom");
  });
  CHECK(e.where().line == 2);
  CHECK(e.field_path() == "apiserver_storage_objects");
  CHECK(e.message() == "more than 1e15 objects of pods (1e300 here): no etcd holds so many");
  // The size: 1e300 bytes over one object was an average of 1e300 rounded to int64.
  e = ErrorOf([] {
    sim::ResourcesFromMetricsText(
        "apiserver_storage_objects{resource=\"pods\"} "
        "1\napiserver_resource_size_estimate_bytes{group=\"\",resource=\"pods\"} 1e300\n",
        "m.prom");
  });
  CHECK(e.where().line == 2);
  CHECK(e.field_path() == "apiserver_resource_size_estimate_bytes");
  // Counts up to the limit are kept.
  const auto resources = sim::ResourcesFromMetricsText(
      "apiserver_storage_objects{resource=\"pods\"} 1e15\n", "m.prom");
  REQUIRE(resources.size() == 1);
  CHECK(resources[0].objects == 1000000000000000);
}

TEST_CASE("model estimate refuses negative object counts sizes and watch counts",
          "[fuzz][replay]") {
  for (const char* field : {"objectCount", "avgObjectSizeBytes", "watchCount"}) {
    const std::string text =
        std::string(R"([{"request": {"verb": "list", "resource": "pods"}, ")") + field + "\": -1}]";
    const sim::InputError e =
        ErrorOf([&] { sim::ReplayEstimateCases(sim::ParseJsonText(text, "x"), "x"); });
    CHECK(e.field_path() == std::string("[0].") + field);
    CHECK(e.message() == "must not be negative");
  }
  // The command used to print an estimate and exit 0 for such a case.
  test_support::ScratchDir dir("apfsim-fuzz-estimate");
  const std::string input = (dir.path() / "cases.json").string();
  std::ofstream(input)
      << R"([{"request": {"verb": "list", "resource": "pods"}, "objectCount": -5000}])";
  const test_support::CommandResult r =
      test_support::RunApfsim("model estimate", dir.path(), input);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("<stdin>: [0].objectCount: must not be negative") != std::string::npos);
}

TEST_CASE("an audit replay speed below 1e-6 is refused", "[fuzz][audit]") {
  // (received - origin) / 1e-300 went beyond int64 in llround when the replay scaled arrivals.
  const std::string path = std::string(APFSIM_SOURCE_DIR) + "/scenarios/speed.yaml";
  auto scenario = [](const std::string& speed) {
    return "apiVersion: apfsim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
           "  duration: 10s\n  auditLog: {file: sample-audit.log, speed: " +
           speed + "}\n";
  };
  const sim::InputError e = ErrorOf([&] { sim::ParseScenarioText(scenario("1e-300"), path); });
  CHECK(e.field_path() == "spec.auditLog.speed");
  CHECK(e.message() == "must be a factor between 1e-6 and 1e6");
  CHECK(e.where().line == 6);
  CHECK(sim::ParseScenarioText(scenario("1e-6"), path).audit_log.speed == 1e-6);
}
