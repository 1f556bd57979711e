// The Prometheus text of metrics.prom (sim/report/metrics_text.h) against doc/model.md#metrics:
// names, types, label sets, histogram buckets and values, for the run of
// tests/fixtures/report/tiny.yaml (whose opening comment tells the story of its four
// requests) ended at 4 s, every number worked out by hand below; and the MaxInFlight
// gauge when APF is off.
#include "sim/report/metrics_text.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

// Runs tests/fixtures/report/tiny.yaml (with `overrides`, as --set takes them) and
// returns its metrics.prom.
std::string TinyMetrics(const std::vector<std::string>& overrides = {}) {
  const test_support::ScratchDir scratch("apfsim-metrics");
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  request.overrides = overrides;
  request.out_dir = scratch.path().string();
  request.quiet = true;
  sim::RunScenario(request);
  return test_support::ReadFile(scratch.path() / "metrics.prom");
}

// The text of each metric family, from its "# HELP" line to the next one, by name, and
// the names in the order they come.
struct Families {
  std::vector<std::string> names;
  std::map<std::string, std::string> text;
};

Families SplitFamilies(const std::string& metrics) {
  Families f;
  size_t at = 0;
  while (at < metrics.size()) {
    REQUIRE(metrics.compare(at, 7, "# HELP ") == 0);
    size_t next = metrics.find("\n# HELP ", at);
    next = next == std::string::npos ? metrics.size() : next + 1;
    const std::string name = metrics.substr(at + 7, metrics.find(' ', at + 7) - (at + 7));
    f.names.push_back(name);
    f.text[name] = metrics.substr(at, next - at);
    at = next;
  }
  return f;
}

std::string Header(const std::string& name, const std::string& type, const std::string& help) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

// A per-level gauge of the fixture's one apiserver: one line per level, in the order the
// simulator holds its levels (here catch-all, exempt, lab).
std::string LevelGauge(const std::string& name, const std::string& help, int catch_all, int exempt,
                       int lab) {
  std::string out = Header(name, "gauge", help);
  for (const auto& [level, value] : std::vector<std::pair<std::string, int>>{
           {"catch-all", catch_all}, {"exempt", exempt}, {"lab", lab}}) {
    out += name + "{instance=\"apiserver-0\",priority_level=\"" + level + "\"} " +
           std::to_string(value) + "\n";
  }
  return out;
}

// The bucket bounds of request_wait_duration_seconds, as doc/model.md#metrics lists them, in the
// text Prometheus writes for them.
const std::vector<std::string> kWaitBounds = {"0", "0.005", "0.02", "0.05", "0.1", "0.2", "0.5",
                                              "1", "2",     "5",    "10",   "15",  "30"};

// The series of one wait histogram: `cumulative[i]` observations at most kWaitBounds[i],
// then +Inf, _sum and _count.
std::string WaitHistogram(const std::string& labels, const std::vector<int>& cumulative,
                          const std::string& sum, int count) {
  REQUIRE(cumulative.size() == kWaitBounds.size());
  const std::string name = "apiserver_flowcontrol_request_wait_duration_seconds";
  std::string out;
  for (size_t i = 0; i < kWaitBounds.size(); ++i) {
    out += name + "_bucket{" + labels + ",le=\"" + kWaitBounds[i] + "\"} " +
           std::to_string(cumulative[i]) + "\n";
  }
  out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(count) + "\n";
  out += name + "_sum{" + labels + "} " + sum + "\n";
  out += name + "_count{" + labels + "} " + std::to_string(count) + "\n";
  return out;
}

const char kLabFlow[] =
    "instance=\"apiserver-0\",priority_level=\"lab\",flow_schema=\"global-default\"";

}  // namespace

TEST_CASE("metrics.prom of the tiny fixture: the families and their order", "[metrics]") {
  const Families f = SplitFamilies(TinyMetrics());
  // doc/model.md#metrics's table as far as clusterloader2's APF panels chart it
  // (perf-tests clusterloader2/pkg/prometheus/manifests/dashboards/master_panels.py: wait
  // and execution time, dispatch rate, concurrency in use and limits, executing and
  // in-queue requests). The fixture is 1.36: the deprecated request_concurrency_limit
  // (since 1.30) and request_concurrency_in_use (since 1.31) are hidden there.
  CHECK(f.names == std::vector<std::string>{
                       "apiserver_flowcontrol_nominal_limit_seats",
                       "apiserver_flowcontrol_current_limit_seats",
                       "apiserver_flowcontrol_lower_limit_seats",
                       "apiserver_flowcontrol_upper_limit_seats",
                       "apiserver_flowcontrol_current_executing_requests",
                       "apiserver_flowcontrol_current_executing_seats",
                       "apiserver_flowcontrol_current_inqueue_requests",
                       "apiserver_flowcontrol_dispatched_requests_total",
                       "apiserver_flowcontrol_rejected_requests_total",
                       "apiserver_flowcontrol_request_wait_duration_seconds",
                       "apiserver_flowcontrol_request_execution_seconds",
                   });
  // At 1.30 both deprecated gauges are written, marked as component-base marks them.
  const Families old = SplitFamilies(TinyMetrics({"apiservers.kubernetesVersion=\"1.30\""}));
  CHECK(old.text.at("apiserver_flowcontrol_request_concurrency_limit") ==
        LevelGauge("apiserver_flowcontrol_request_concurrency_limit",
                   "[ALPHA] (Deprecated since 1.30.0) Nominal number of execution seats "
                   "configured for each priority level",
                   5, 0, 1));
  CHECK(old.text.at("apiserver_flowcontrol_request_concurrency_in_use") ==
        Header("apiserver_flowcontrol_request_concurrency_in_use", "gauge",
               "[ALPHA] Concurrency (number of seats) occupied by the currently executing "
               "(initial stage for a WATCH, any stage otherwise) requests in the API Priority "
               "and Fairness subsystem") +
            "apiserver_flowcontrol_request_concurrency_in_use{" + std::string(kLabFlow) + "} 0\n");
  const Families v131 = SplitFamilies(TinyMetrics({"apiservers.kubernetesVersion=\"1.31\""}));
  CHECK(v131.text.count("apiserver_flowcontrol_request_concurrency_limit") == 0);
  CHECK(v131.text.count("apiserver_flowcontrol_request_concurrency_in_use") == 1);
}

TEST_CASE("metrics.prom of the tiny fixture: the limits of each level", "[metrics]") {
  const Families f = SplitFamilies(TinyMetrics());
  // doc/model.md#nominal-seats: serverCL = 5 + 1 = 6 and the shares sum to exempt 0 + catch-all 5 +
  // lab 1 = 6, so nominal limits ceil(6 x 5 / 6) = 5, 0 and ceil(6 x 1 / 6) = 1.
  CHECK(f.text.at("apiserver_flowcontrol_nominal_limit_seats") ==
        LevelGauge("apiserver_flowcontrol_nominal_limit_seats",
                   "[BETA] Nominal number of execution seats configured for each priority level", 5,
                   0, 1));
  // 3.4, run at 0 s and not again before 10 s: the exempt level takes its high watermark,
  // 0, so 6 seats remain, no more than the non-exempt minCL sum (5 + 1): every non-exempt
  // level gets its minCL; exempt gets its minCurrentCL, 0.
  CHECK(f.text.at("apiserver_flowcontrol_current_limit_seats") ==
        LevelGauge("apiserver_flowcontrol_current_limit_seats",
                   "[ALPHA] current derived number of execution seats available to each "
                   "priority level",
                   5, 0, 1));
  // 3.1: minCL = nominalCL - lendableCL; catch-all (2.7) and lab lend 0%.
  CHECK(f.text.at("apiserver_flowcontrol_lower_limit_seats") ==
        LevelGauge("apiserver_flowcontrol_lower_limit_seats",
                   "[ALPHA] Configured lower bound on number of execution seats available to "
                   "each priority level",
                   5, 0, 1));
  // 3.1: maxCL = nominalCL + borrowingCL, which is serverCL (6) when borrowingLimitPercent
  // is unset (catch-all) and for exempt, and round(1 x 0%) = 0 for lab.
  CHECK(f.text.at("apiserver_flowcontrol_upper_limit_seats") ==
        LevelGauge("apiserver_flowcontrol_upper_limit_seats",
                   "[ALPHA] Configured upper bound on number of execution seats available to "
                   "each priority level",
                   11, 6, 1));
}

TEST_CASE("metrics.prom of the tiny fixture: occupancy by flow schema", "[metrics]") {
  // metrics.go labels the three gauges with priority_level and flow_schema; a series
  // exists once its flow has had a request (lab's global-default only). The last GET
  // finished at 3 s, so at 4 s nothing executes or waits.
  Families f = SplitFamilies(TinyMetrics());
  const std::string lab = kLabFlow;
  CHECK(f.text.at("apiserver_flowcontrol_current_executing_requests") ==
        Header("apiserver_flowcontrol_current_executing_requests", "gauge",
               "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) "
               "execution stage in the API Priority and Fairness subsystem") +
            "apiserver_flowcontrol_current_executing_requests{" + lab + "} 0\n");
  CHECK(f.text.at("apiserver_flowcontrol_current_executing_seats") ==
        Header("apiserver_flowcontrol_current_executing_seats", "gauge",
               "[BETA] Concurrency (number of seats) occupied by the currently executing "
               "(initial stage for a WATCH, any stage otherwise) requests in the API "
               "Priority and Fairness subsystem") +
            "apiserver_flowcontrol_current_executing_seats{" + lab + "} 0\n");
  CHECK(f.text.at("apiserver_flowcontrol_current_inqueue_requests") ==
        Header("apiserver_flowcontrol_current_inqueue_requests", "gauge",
               "[BETA] Number of requests currently pending in queues of the API Priority "
               "and Fairness subsystem") +
            "apiserver_flowcontrol_current_inqueue_requests{" + lab + "} 0\n");
  // Ended at 1.55 s (the fixture's story): the 1 s GET executes in lab's one seat, those
  // of 1.2 s and 1.4 s wait in queue 1.
  f = SplitFamilies(TinyMetrics({"duration=1550ms"}));
  CHECK(f.text.at("apiserver_flowcontrol_current_executing_requests").find("{" + lab + "} 1\n") !=
        std::string::npos);
  CHECK(f.text.at("apiserver_flowcontrol_current_executing_seats").find("{" + lab + "} 1\n") !=
        std::string::npos);
  CHECK(f.text.at("apiserver_flowcontrol_current_inqueue_requests").find("{" + lab + "} 2\n") !=
        std::string::npos);
}

TEST_CASE("metrics.prom of the tiny fixture: the execution histogram", "[metrics]") {
  // The GETs executed 1 s (1 s to 2 s), 0.5 s (2 s to 2.5 s) and 0.5 s (2.5 s to 3 s):
  // cumulative buckets 0 up to 0.2, 2 at 0.5, 3 from 1 on; sum 1 + 0.5 + 0.5 = 2.
  const Families f = SplitFamilies(TinyMetrics());
  const std::string name = "apiserver_flowcontrol_request_execution_seconds";
  const std::string labels = std::string(kLabFlow) + ",type=\"regular\"";
  const std::vector<int> cumulative = {0, 0, 0, 0, 0, 0, 2, 3, 3, 3, 3, 3, 3};
  std::string expected = Header(name, "histogram",
                                "[ALPHA] Duration of initial stage (for a WATCH) or any (for a "
                                "non-WATCH) stage of request execution in the API Priority and "
                                "Fairness subsystem");
  for (size_t i = 0; i < kWaitBounds.size(); ++i) {
    expected += name + "_bucket{" + labels + ",le=\"" + kWaitBounds[i] + "\"} " +
                std::to_string(cumulative[i]) + "\n";
  }
  expected += name + "_bucket{" + labels + ",le=\"+Inf\"} 3\n";
  expected += name + "_sum{" + labels + "} 2\n";
  expected += name + "_count{" + labels + "} 3\n";
  CHECK(f.text.at(name) == expected);
}

TEST_CASE("metrics.prom of the tiny fixture: counters by level and flow schema", "[metrics]") {
  const Families f = SplitFamilies(TinyMetrics());
  const std::string lab = kLabFlow;
  // Three GETs ran (1 s, 1.2 s, 1.4 s); only series that counted something are written.
  CHECK(f.text.at("apiserver_flowcontrol_dispatched_requests_total") ==
        Header("apiserver_flowcontrol_dispatched_requests_total", "counter",
               "[BETA] Number of requests executed by API Priority and Fairness subsystem") +
            "apiserver_flowcontrol_dispatched_requests_total{" + lab + "} 3\n");
  // The 1.6 s GET: lab's one seat taken and queue 1 holding its limit of 2 (doc/model.md#arrival).
  CHECK(f.text.at("apiserver_flowcontrol_rejected_requests_total") ==
        Header("apiserver_flowcontrol_rejected_requests_total", "counter",
               "[BETA] Number of requests rejected by API Priority and Fairness subsystem") +
            "apiserver_flowcontrol_rejected_requests_total{" + lab + ",reason=\"queue-full\"} 1\n");
}

TEST_CASE("metrics.prom of the tiny fixture: the wait histogram", "[metrics]") {
  const Families f = SplitFamilies(TinyMetrics());
  const std::string lab = kLabFlow;
  // doc/model.md#metrics: buckets 0, .005, .02, .05, .1, .2, .5, 1, 2, 5, 10, 15, 30, cumulative.
  // Executed: the 1 s GET waited 0, the 1.2 s one 0.8 s (until 2 s), the 1.4 s one 1.1 s
  // (until 2.5 s); their sum is 0.8 + 1.1 in float64, printed shortest (1.9000000000000001).
  // Rejected at arrival (execute="false"): the 1.6 s GET, which waited 0.
  CHECK(f.text.at("apiserver_flowcontrol_request_wait_duration_seconds") ==
        Header("apiserver_flowcontrol_request_wait_duration_seconds", "histogram",
               "[BETA] Length of time a request spent waiting in its queue") +
            WaitHistogram(lab + ",execute=\"true\"", {1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3},
                          "1.9000000000000001", 3) +
            WaitHistogram(lab + ",execute=\"false\"", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "0",
                          1));
}

TEST_CASE("metrics.prom with APF off is the MaxInFlight gauge per request kind", "[metrics]") {
  // doc/model.md#metrics, metrics outside the package: apiserver_current_inflight_requests by
  // request_kind; the two MaxInFlight pools are the levels readonly and mutating
  // (scenarios/README.md). At 4 s nothing executes.
  CHECK(TinyMetrics({"apiservers.enablePriorityAndFairness=false"}) ==
        Header("apiserver_current_inflight_requests", "gauge",
               "[STABLE] Maximal number of currently used inflight request limit of this "
               "apiserver per request kind in last second.") +
            "apiserver_current_inflight_requests{instance=\"apiserver-0\","
            "request_kind=\"readOnly\"} 0\n"
            "apiserver_current_inflight_requests{instance=\"apiserver-0\","
            "request_kind=\"mutating\"} 0\n");
}

// Seed 003's krm_foyer_* families ("What is measured") for scenarios/gateway-leaked-watches.yaml:
// one session opens 70 watches at 5 s and more every 10 s; 64 pass and stay open to the end
// (their lifetimes are 30 to 60 minutes), and the scenario's comment counts 866 refusals.
TEST_CASE("metrics.prom behind the gateway: seed 003's bound families", "[metrics][gateway]") {
  const test_support::ScratchDir scratch("apfsim-metrics-gateway");
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/scenarios/gateway-leaked-watches.yaml";
  request.out_dir = scratch.path().string();
  request.quiet = true;
  sim::RunScenario(request);
  const Families f = SplitFamilies(test_support::ReadFile(scratch.path() / "metrics.prom"));
  const std::string& reached = f.text.at("krm_foyer_bound_reached_total");
  CHECK_THAT(reached,
             Catch::Contains("krm_foyer_bound_reached_total{bound=\"session_concurrent_requests\"} "
                             "866\n"));
  CHECK_THAT(reached,
             Catch::Contains("krm_foyer_bound_reached_total{bound=\"concurrent_requests\"} 0\n"));
  CHECK(f.text.at("krm_foyer_requests_in_flight") ==
        Header("krm_foyer_requests_in_flight", "gauge",
               "Requests through /k8s open now, watches included") +
            "krm_foyer_requests_in_flight 64\n");
  CHECK_THAT(f.text.at("krm_foyer_bound_limit"),
             Catch::Contains("krm_foyer_bound_limit{bound=\"response_bytes\"} 33554432\n"));
  // The 64 watches let through saw 1..64 of the session's 64 in flight as they started:
  // ratios k/64, so le=0.1 holds k <= 6, 0.25 k <= 16, 0.5 k <= 32, 0.75 k <= 48, 0.9
  // k <= 57; the sum is (1 + ... + 64) / 64 = 32.5.
  const std::string labels = "bound=\"session_concurrent_requests\"";
  std::string series;
  const std::vector<std::pair<std::string, int>> buckets = {
      {"0.1", 6}, {"0.25", 16}, {"0.5", 32}, {"0.75", 48}, {"0.9", 57}, {"1", 64}, {"+Inf", 64}};
  for (const auto& [le, n] : buckets) {
    series += "krm_foyer_bound_usage_ratio_bucket{" + labels + ",le=\"" + le + "\"} " +
              std::to_string(n) + "\n";
  }
  series += "krm_foyer_bound_usage_ratio_sum{" + labels + "} 32.5\n";
  series += "krm_foyer_bound_usage_ratio_count{" + labels + "} 64\n";
  CHECK_THAT(f.text.at("krm_foyer_bound_usage_ratio"), Catch::Contains(series));
  CHECK_THAT(f.text.at("krm_foyer_interruptions_total"),
             Catch::Contains("krm_foyer_interruptions_total{reason=\"TooManyConcurrentRequests\"} "
                             "866\n"));
}
