// spec.reference (sim/scenario/reference_reader.h): the figures are read as stated, with
// their defaults, --set reaches them as any other field, and each refusal names its line,
// column and field. Lines and columns are counted by hand in the text below (1-based).
#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/scenario/loader.h"

namespace {

// The scenario up to spec.reference (lines 1-10); each test adds its reference from line
// 11 on.
const char* const kHead =
    "apiVersion: apfsim/v1alpha1\n"                                               // 1
    "kind: Scenario\n"                                                            // 2
    "metadata: {name: ref}\n"                                                     // 3
    "spec:\n"                                                                     // 4
    "  duration: 10m\n"                                                           // 5
    "  resources: [{resource: configmaps, objects: 100, namespaces: 1}]\n"        // 6
    "  clients:\n"                                                                // 7
    "  - {name: reader, user: alice, traffic: [{constant: {rate: 1,\n"            // 8
    "      request: {verb: get, resource: configmaps, namespace: default}}}]}\n"  // 9
    "  seed: 1\n";                                                                // 10

sim::Scenario Load(const std::string& reference, const std::vector<std::string>& sets = {}) {
  return sim::ParseScenarioText(std::string(kHead) + reference, "ref.yaml", sets);
}

sim::InputError ErrorOf(const std::string& reference, const std::vector<std::string>& sets = {}) {
  try {
    Load(reference, sets);
  } catch (const sim::InputError& e) {
    return e;
  }
  FAIL("no InputError was thrown");
  throw;  // unreachable
}

// Line 11 opens spec.reference, 12 its source, 13 "figures:", 14 the first figure.
std::string Reference(const std::string& figure) {
  return "  reference:\n"
         "    source: seeds/000\n"
         "    figures:\n"
         "    - " +
         figure + "\n";
}

}  // namespace

TEST_CASE("reference: figures are read with their tolerance defaults", "[scenario][reference]") {
  const sim::Scenario s = Load(
      Reference("{level: workload-low, metric: rejected, value: 1400, approx: true,"
                " reason: other service accounts keep workload-low above its floor}") +
      "    - {client: reader, metric: latencySeconds.p99, value: 11, window: {from: 1m, to: 2m}}\n"
      "    - {level: workload-low, metric: nominalCL, value: 245, tolerancePercent: 0}\n");
  REQUIRE(s.reference.figures.size() == 3);
  CHECK(s.reference.source == "seeds/000");
  const sim::ReferenceFigure& rejected = s.reference.figures[0];
  CHECK(rejected.section == "priorityLevels");
  CHECK(rejected.subject == "workload-low");
  CHECK(rejected.metric == "rejected");
  CHECK(rejected.value == 1400);
  CHECK(rejected.approx);
  CHECK(rejected.tolerance_percent == sim::kApproxTolerancePercent);
  CHECK(rejected.reason == "other service accounts keep workload-low above its floor");
  CHECK(rejected.where.line == 14);
  const sim::ReferenceFigure& latency = s.reference.figures[1];
  CHECK(latency.section == "clients");
  CHECK(latency.tolerance_percent == sim::kReferenceTolerancePercent);
  CHECK(latency.windowed);
  CHECK(latency.window_from == 60 * apf::kSecond);
  CHECK(latency.window_to == 120 * apf::kSecond);
  CHECK(s.reference.figures[2].tolerance_percent == 0);
}

TEST_CASE("reference: --set reaches a figure like any other field", "[scenario][reference]") {
  const std::string figure = Reference("{level: workload-low, metric: rejected, value: 1400}");
  const sim::Scenario s =
      Load(figure, {"reference.figures.0.value=449", "reference.figures.0.approx=true"});
  CHECK(s.reference.figures[0].value == 449);
  CHECK(s.reference.figures[0].tolerance_percent == sim::kApproxTolerancePercent);
  // And the checks hold on the value it sets.
  const sim::InputError e = ErrorOf(figure, {"reference.figures.0.metric=rejects"});
  CHECK(e.field_path() == "spec.reference.figures[0].metric");
}

TEST_CASE("reference: an unknown key is refused at its line and column", "[scenario][reference]") {
  sim::InputError e = ErrorOf(Reference("{level: workload-low, metric: rejected, valeu: 1400}"));
  // "    - {level: workload-low, metric: rejected, " is 46 characters: valeu at column 47.
  CHECK(e.where().file == "ref.yaml");
  CHECK(e.where().line == 14);
  CHECK(e.where().column == 47);
  CHECK(e.field_path() == "spec.reference.figures[0].valeu");
  CHECK(e.message().find("unknown field") != std::string::npos);
  e = ErrorOf("  reference:\n    source: seeds/000\n    figurs: []\n");
  CHECK(e.where().line == 13);
  CHECK(e.where().column == 5);
  CHECK(e.field_path() == "spec.reference.figurs");
}

TEST_CASE("reference: a metric must be a summary.json field of its level or client",
          "[scenario][reference]") {
  sim::InputError e = ErrorOf(Reference("{level: workload-low, metric: rejections, value: 1}"));
  // "    - {level: workload-low, metric: " is 36 characters: the metric at column 37.
  CHECK(e.where().line == 14);
  CHECK(e.where().column == 37);
  CHECK(e.field_path() == "spec.reference.figures[0].metric");
  CHECK(e.message().find("expected one of summary.json's fields of a priority level: rejected "
                         "(the reasons summed), nominalCL") == 0);
  // "rejected" summed is a level's, not a client's.
  e = ErrorOf(Reference("{client: reader, metric: rejected, value: 1}"));
  CHECK(e.message().find("of a client: calls") != std::string::npos);
  // A window measures only what the report rows carry.
  e =
      ErrorOf(Reference("{level: workload-low, metric: waitSeconds.max, value: 1,"
                        " window: {from: 1m}}"));
  CHECK(e.field_path() == "spec.reference.figures[0].metric");
  CHECK(e.message().find("(the fields a window can measure)") != std::string::npos);
}

TEST_CASE("reference: each figure names one level or one client of the scenario",
          "[scenario][reference]") {
  sim::InputError e = ErrorOf(Reference("{level: a, client: reader, metric: calls, value: 1}"));
  CHECK(e.field_path() == "spec.reference.figures[0].client");
  CHECK(e.message() == "a figure is of a level or of a client, not both");
  e = ErrorOf(Reference("{metric: calls, value: 1}"));
  CHECK(e.where().line == 14);
  CHECK(e.where().column == 7);
  CHECK(e.field_path() == "spec.reference.figures[0]");
  e = ErrorOf(Reference("{client: raeder, metric: calls, value: 1}"));
  CHECK(e.field_path() == "spec.reference.figures[0].client");
  CHECK(e.message() == "no client \"raeder\" in spec.clients (did you mean \"reader\"?)");
  e = ErrorOf(Reference("{client: reader, metric: calls}"));
  CHECK(e.message() == "needs `value: NUMBER` (the figure the source states)");
}

TEST_CASE("reference: values are finite and tolerances within bounds", "[scenario][reference]") {
  sim::InputError e = ErrorOf(Reference("{client: reader, metric: calls, value: .nan}"));
  CHECK(e.field_path() == "spec.reference.figures[0].value");
  e = ErrorOf(Reference("{client: reader, metric: calls, value: 1, tolerancePercent: -5}"));
  CHECK(e.field_path() == "spec.reference.figures[0].tolerancePercent");
  CHECK(e.message() == "must be between 0 and 1000 (percent of the value)");
  e = ErrorOf(Reference("{client: reader, metric: calls, value: 1, window: {from: 11m}}"));
  CHECK(e.field_path() == "spec.reference.figures[0].window.from");
  e = ErrorOf("  reference:\n    figures: []\n");
  INFO(e.what());
  CHECK(e.where().line == 12);
  CHECK(e.field_path() == "spec.reference.source");
}
