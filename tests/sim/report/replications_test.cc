// The statistics of replications (sim/report/replications.h): Student's t quantiles
// against a printed table, a mean, standard deviation and interval worked by hand, and
// the shape of replications.json, including what it does with keys a seed lacks, nulls
// and strings that differ.
//
// The t quantiles are the 0.975 column (upper critical values for alpha = 0.025) of the
// NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2, "Critical Values of
// the Student's t Distribution", printed to three decimals.
#include "sim/report/replications.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace {

nlohmann::json Summary(std::uint64_t seed, int calls, nlohmann::json errors, nlohmann::json p99,
                       const char* scenario) {
  return {{"scenario", scenario},
          {"seed", seed},
          {"durationSeconds", 30.0},
          {"marks", nlohmann::json::array({{{"at", 1.0}, {"label", "sweep"}}})},
          {"priorityLevels",
           {{"exempt", {{"maxSeats", nullptr}, {"dispatched", calls}}},
            {"workload-low", {{"waitSeconds", {{"p99", p99}}}}}}},
          {"clients", {{"argocd", {{"calls", calls}, {"errors", errors}}}}}};
}

}  // namespace

TEST_CASE("StudentT975 agrees with the NIST/SEMATECH table of t critical values",
          "[replications]") {
  const std::vector<std::pair<int, double>> table = {
      {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},  {6, 2.447},
      {7, 2.365},  {8, 2.306},  {9, 2.262},  {10, 2.228}, {15, 2.131}, {19, 2.093},
      {20, 2.086}, {30, 2.042}, {50, 2.009}, {100, 1.984}};
  for (const auto& [dof, printed] : table) {
    INFO("degrees of freedom " << dof);
    CHECK(sim::StudentT975(dof) == Approx(printed).margin(0.0005));
  }
  // Exact where the distribution has a closed form: with one degree of freedom t is
  // tan(0.475 pi); with two, sqrt(2 A^2 / (1 - A^2)) for A = 0.95 (Abramowitz and Stegun
  // 26.7.4 with one term: A = t / sqrt(2 + t^2)).
  CHECK(sim::StudentT975(1) == Approx(std::tan(0.475 * M_PI)).epsilon(1e-12));
  CHECK(sim::StudentT975(2) == Approx(4.302652729749464).epsilon(1e-12));
  // Far out it approaches the normal's 1.959964.
  CHECK(sim::StudentT975(999) == Approx(1.962).margin(0.0005));
}

TEST_CASE("Summarize: mean, sample standard deviation and 95% interval by hand", "[replications]") {
  // {1, 2, 6}: mean 3; squared deviations 4 + 1 + 9 = 14; s^2 = 14 / (3 - 1) = 7, s = sqrt 7
  // = 2.6457513; half the interval t(0.975, 2) s / sqrt 3 = 4.3026527 x 2.6457513 / 1.7320508
  // = 6.5724106.
  const sim::SampleStatistics s = sim::Summarize({1, 2, 6});
  CHECK(s.n == 3);
  CHECK(s.mean == 3);
  CHECK(s.stddev == Approx(2.6457513).epsilon(1e-8));
  CHECK(s.ci95_lo == Approx(3 - 6.5724106).epsilon(1e-8));
  CHECK(s.ci95_hi == Approx(3 + 6.5724106).epsilon(1e-8));
  CHECK(s.min == 1);
  CHECK(s.max == 6);
  // One value: no spread to estimate, the interval is the value.
  const sim::SampleStatistics one = sim::Summarize({4.5});
  CHECK(one.stddev == 0);
  CHECK(one.ci95_lo == 4.5);
  CHECK(one.ci95_hi == 4.5);
  // Equal values: a point interval.
  const sim::SampleStatistics same = sim::Summarize({2, 2, 2, 2});
  CHECK(same.stddev == 0);
  CHECK(same.ci95_lo == 2);
  CHECK(same.ci95_hi == 2);
}

TEST_CASE("replications.json replaces every number by its statistics over the seeds",
          "[replications]") {
  const std::vector<nlohmann::json> summaries = {
      Summary(1, 1, {{"timeout", 2}}, 0.5, "x"),
      Summary(2, 2, nlohmann::json::object(), nullptr, "x"),
      Summary(3, 6, {{"timeout", 4}, {"429", 1}}, 1.5, "x")};
  const nlohmann::json r = sim::ReplicationsJson(summaries, {1, 2, 3});
  CHECK(r["seeds"] == nlohmann::json({1, 2, 3}));
  CHECK_FALSE(r.contains("seed"));
  CHECK(r["scenario"] == "x");  // equal in every seed: kept
  const nlohmann::json& calls = r["clients"]["argocd"]["calls"];
  CHECK(calls["mean"] == 3.0);
  CHECK(calls["stddev"].get<double>() == Approx(2.645751));
  CHECK(calls["ci95"][0].get<double>() == Approx(-3.572411));
  CHECK(calls["ci95"][1].get<double>() == Approx(9.572411));
  CHECK(calls["min"] == 1);
  CHECK(calls["max"] == 6);
  CHECK(calls["values"] == nlohmann::json({1, 2, 6}));
  // A count that a seed lacks is 0 there; the keys are every seed's.
  CHECK(r["clients"]["argocd"]["errors"]["timeout"]["values"] == nlohmann::json({2, 0, 4}));
  CHECK(r["clients"]["argocd"]["errors"]["429"]["values"] == nlohmann::json({0, 0, 1}));
  // A null is left out of the statistics and kept in the values.
  const nlohmann::json& p99 = r["priorityLevels"]["workload-low"]["waitSeconds"]["p99"];
  CHECK(p99["mean"] == 1.0);
  CHECK(p99["values"] == nlohmann::json({0.5, nullptr, 1.5}));
  // Null in every seed stays null.
  CHECK(r["priorityLevels"]["exempt"]["maxSeats"].is_null());
  // Arrays of one length are merged element by element.
  CHECK(r["marks"][0]["label"] == "sweep");
  CHECK(r["marks"][0]["at"]["mean"] == 1.0);
  CHECK(r["durationSeconds"]["ci95"] == nlohmann::json({30.0, 30.0}));
  // Strings that differ keep each seed's.
  const nlohmann::json mixed =
      sim::ReplicationsJson({Summary(1, 1, {}, 0.1, "a"), Summary(2, 1, {}, 0.1, "b")}, {1, 2});
  CHECK(mixed["scenario"] == nlohmann::json({{"values", {"a", "b"}}}));
}

TEST_CASE("MeanAndInterval prints a mean and half its interval", "[replications]") {
  CHECK(sim::MeanAndInterval(sim::StatisticsJson({1, 2, 6}), false) == "3.0±6.6");
  CHECK(sim::MeanAndInterval(sim::StatisticsJson({1000, 1000}), false) == "1000");
  CHECK(sim::MeanAndInterval(sim::StatisticsJson({0.25, 0.25}), true) == "0.250s");
  CHECK(sim::MeanAndInterval(nullptr, true) == "-");
  CHECK(sim::MeanAndInterval(sim::StatisticsJson({62, 62}), false) == "62");
  CHECK(sim::MeanAndInterval(sim::StatisticsJson({700, 712}), false, false) == "706");
}
