// metrics.om (sim/report/openmetrics.h): the OpenMetrics spelling of a few series of
// tests/fixtures/report/tiny.yaml's run, worked out by hand from the fixture's story
// (its opening comment); the file's shape (one `# TYPE` per family, each series' points
// together, `# EOF` last) over a run long enough to go through the spool; the per-client
// series (sim/report/client_metrics_text.h); compare's two files; and --start-time and
// --label.
#include "sim/report/openmetrics.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/io/input_error.h"
#include "sim/workflows/compare.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

std::string TinyOpenMetrics(const sim::OpenMetricsOptions& options,
                            const std::vector<std::string>& overrides = {},
                            const std::string& interval = "") {
  const test_support::ScratchDir scratch("apfsim-openmetrics");
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  request.overrides = overrides;
  if (!interval.empty()) request.interval = interval;
  request.out_dir = scratch.path().string();
  request.quiet = true;
  request.openmetrics = options;
  sim::RunScenario(request);
  return test_support::ReadFile(scratch.path() / "metrics.om");
}

// The lines of `text` that start with `prefix`, in order.
std::vector<std::string> LinesStarting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// 2026-01-01T00:00:00Z, the run's origin (apf::kVirtualEpochUnixNanos), in Unix seconds:
// 56 years of 365 days and 14 leap days (1972 ... 2024) = 20454 days x 86400.
constexpr long kOrigin = 1767225600;

const char kLab[] =
    "job=\"kube-apiserver\",instance=\"apiserver-0\",priority_level=\"lab\","
    "flow_schema=\"global-default\"";

sim::OpenMetricsOptions WithJob() {
  sim::OpenMetricsOptions options;
  options.labels.emplace_back("job", "kube-apiserver");
  return options;
}

}  // namespace

TEST_CASE("metrics.om: counters by interval end, cumulative, with _total on samples only",
          "[openmetrics]") {
  const std::string om = TinyOpenMetrics(WithJob());
  const std::string lab = kLab;
  // The intervals end at 1, 2, 3 and 4 s (the default 1 s interval of a 4 s run); each is
  // closed before the events at its end. By 1 s nothing was dispatched (the first GET
  // arrives at 1 s), so the series starts at 2 s: the 1 s GET. The 1.2 s and 1.4 s GETs
  // were dispatched at 2 s and 2.5 s: 3 by 3 s, still 3 at 4 s.
  CHECK(LinesStarting(om, "# TYPE apiserver_flowcontrol_dispatched_requests") ==
        std::vector<std::string>{"# TYPE apiserver_flowcontrol_dispatched_requests counter"});
  CHECK(LinesStarting(om, "apiserver_flowcontrol_dispatched_requests") ==
        std::vector<std::string>{
            "apiserver_flowcontrol_dispatched_requests_total{" + lab + "} 1 " +
                std::to_string(kOrigin + 2),
            "apiserver_flowcontrol_dispatched_requests_total{" + lab + "} 3 " +
                std::to_string(kOrigin + 3),
            "apiserver_flowcontrol_dispatched_requests_total{" + lab + "} 3 " +
                std::to_string(kOrigin + 4),
        });
  // The 1.6 s GET, rejected queue-full on arrival: from the 2 s snapshot on.
  CHECK(LinesStarting(om, "apiserver_flowcontrol_rejected_requests_total") ==
        std::vector<std::string>{
            "apiserver_flowcontrol_rejected_requests_total{" + lab + ",reason=\"queue-full\"} 1 " +
                std::to_string(kOrigin + 2),
            "apiserver_flowcontrol_rejected_requests_total{" + lab + ",reason=\"queue-full\"} 1 " +
                std::to_string(kOrigin + 3),
            "apiserver_flowcontrol_rejected_requests_total{" + lab + ",reason=\"queue-full\"} 1 " +
                std::to_string(kOrigin + 4),
        });
  // A gauge at each instant: lab's queue held the 1.2 s and 1.4 s GETs at 2 s, none at
  // 3 s (the last left at 2.5 s) and 4 s. The gauge carries flow_schema (metrics.go), so,
  // as a labelled gauge vector on a real apiserver, its series exists only from the first
  // request of that schema: there is no 1 s sample, before the first arrival.
  const std::string queued =
      "apiserver_flowcontrol_current_inqueue_requests{job=\"kube-apiserver\","
      "instance=\"apiserver-0\",priority_level=\"lab\",flow_schema=\"global-default\"} ";
  CHECK(LinesStarting(om, queued) ==
        std::vector<std::string>{queued + "2 " + std::to_string(kOrigin + 2),
                                 queued + "0 " + std::to_string(kOrigin + 3),
                                 queued + "0 " + std::to_string(kOrigin + 4)});
  CHECK(om.size() >= 6);
  CHECK(om.substr(om.size() - 6) == "# EOF\n");
}

TEST_CASE("metrics.om: a histogram's points carry every bucket", "[openmetrics]") {
  const std::string om = TinyOpenMetrics(WithJob());
  const std::string name = "apiserver_flowcontrol_request_wait_duration_seconds";
  const std::string executed = std::string(kLab) + ",execute=\"true\"";
  CHECK(LinesStarting(om, "# TYPE " + name) ==
        std::vector<std::string>{"# TYPE " + name + " histogram"});
  // The executed waits: at 2 s the 1 s GET's 0; at 3 s also 0.8 s and 1.1 s (sum
  // 1.9000000000000001 in float64, as metrics.prom prints it). 13 bounds and +Inf.
  const std::vector<std::string> lines = LinesStarting(om, name + "_bucket{" + executed);
  REQUIRE(lines.size() == 3 * 14);
  CHECK(lines[0] == name + "_bucket{" + executed + ",le=\"0\"} 1 " + std::to_string(kOrigin + 2));
  CHECK(lines[13] ==
        name + "_bucket{" + executed + ",le=\"+Inf\"} 1 " + std::to_string(kOrigin + 2));
  // le="1": 0 and 0.8 s at most 1 s; le="2" also 1.1 s.
  CHECK(lines[14 + 7] ==
        name + "_bucket{" + executed + ",le=\"1\"} 2 " + std::to_string(kOrigin + 3));
  CHECK(lines[14 + 8] ==
        name + "_bucket{" + executed + ",le=\"2\"} 3 " + std::to_string(kOrigin + 3));
  CHECK(LinesStarting(om, name + "_sum{" + executed) ==
        std::vector<std::string>{
            name + "_sum{" + executed + "} 0 " + std::to_string(kOrigin + 2),
            name + "_sum{" + executed + "} 1.9000000000000001 " + std::to_string(kOrigin + 3),
            name + "_sum{" + executed + "} 1.9000000000000001 " + std::to_string(kOrigin + 4)});
  // One point is its buckets, _sum and _count together, before the next point.
  const size_t sum_at_2 = om.find(name + "_sum{" + executed + "} 0 ");
  const size_t inf_at_3 = om.find(name + "_bucket{" + executed + ",le=\"+Inf\"} 3 ");
  CHECK(sum_at_2 < inf_at_3);
}

TEST_CASE("metrics.om: the per-client counters", "[openmetrics]") {
  const std::string om = TinyOpenMetrics(WithJob());
  // alice's four GETs, one call each and no retries (tiny.yaml): issued at 1, 1.2, 1.4
  // and 1.6 s, so 4 by 2 s; the 1.6 s one answered 429 at once and failed.
  CHECK(LinesStarting(om, "apfsim_client_calls_total") ==
        std::vector<std::string>{
            "apfsim_client_calls_total{job=\"kube-apiserver\",client=\"alice\"} 0 " +
                std::to_string(kOrigin + 1),
            "apfsim_client_calls_total{job=\"kube-apiserver\",client=\"alice\"} 4 " +
                std::to_string(kOrigin + 2),
            "apfsim_client_calls_total{job=\"kube-apiserver\",client=\"alice\"} 4 " +
                std::to_string(kOrigin + 3),
            "apfsim_client_calls_total{job=\"kube-apiserver\",client=\"alice\"} 4 " +
                std::to_string(kOrigin + 4)});
  CHECK(LinesStarting(om, "apfsim_client_http429_total")[1] ==
        "apfsim_client_http429_total{job=\"kube-apiserver\",client=\"alice\"} 1 " +
            std::to_string(kOrigin + 2));
}

TEST_CASE("metrics.om: --start-time and a fractional interval end", "[openmetrics]") {
  sim::OpenMetricsOptions options;
  // 2026-03-01T12:00:00+01:00 is 11:00 UTC; from the origin: Jan 31 + Feb 28 = 59 days
  // and 11 hours.
  options.start_unix_ns = sim::ParseStartTime("2026-03-01T12:00:00.25+01:00");
  CHECK(options.start_unix_ns == (kOrigin + 59 * 86400 + 11 * 3600) * apf::kSecond + 250'000'000);
  // With 500 ms intervals the first ends at 0.5 s: 0.25 + 0.5 = 0.75 past the hour.
  const std::string om = TinyOpenMetrics(options, {}, "500ms");
  const std::vector<std::string> limits =
      LinesStarting(om,
                    "apiserver_flowcontrol_nominal_limit_seats{instance=\"apiserver-0\","
                    "priority_level=\"lab\"}");
  REQUIRE(limits.size() == 8);
  CHECK(limits[0] ==
        "apiserver_flowcontrol_nominal_limit_seats{instance=\"apiserver-0\","
        "priority_level=\"lab\"} 1 " +
            std::to_string(kOrigin + 59 * 86400 + 11 * 3600) + ".75");
  CHECK(limits[1].substr(limits[1].rfind(' ') + 1) ==
        std::to_string(kOrigin + 59 * 86400 + 11 * 3600 + 1) + ".25");
}

TEST_CASE("metrics.om: a start time or extra label Prometheus would refuse is refused",
          "[openmetrics]") {
  CHECK(sim::ParseStartTime("2026-01-01T00:00:00Z") == apf::kVirtualEpochUnixNanos);
  CHECK(sim::ParseStartTime("2024-02-29T00:00:00Z") ==
        (kOrigin - (366 + 306) * 86400LL) * apf::kSecond);
  for (const char* bad : {"2026-01-01", "2026-01-01T00:00:00", "2026-02-29T00:00:00Z",
                          "2026-01-01T24:00:00Z", "yesterday", "1969-12-31T23:59:59Z"}) {
    INFO(bad);
    CHECK_THROWS_AS(sim::ParseStartTime(bad), sim::InputError);
  }
  CHECK(sim::ParseExtraLabel("job=kube-apiserver") ==
        std::pair<std::string, std::string>{"job", "kube-apiserver"});
  CHECK(sim::ParseExtraLabel("cluster=") == std::pair<std::string, std::string>{"cluster", ""});
  for (const char* bad : {"job", "1job=x", "job-name=x", "__name__=x", "instance=x", "le=1"}) {
    INFO(bad);
    CHECK_THROWS_AS(sim::ParseExtraLabel(bad), sim::InputError);
  }
}

TEST_CASE("metrics.om keeps each series' points together through the spool", "[openmetrics]") {
  const test_support::ScratchDir scratch("apfsim-openmetrics-spool");
  const std::string path = (scratch.path() / "metrics.om").string();
  sim::OpenMetricsOptions options;
  options.labels.emplace_back("cluster", "a\"b");
  sim::OpenMetricsWriter writer(path, options);
  // 3000 snapshots of two families, one of them with two series: each series' points
  // outgrow the writer's per-series buffer several times over, so they come back from
  // the spool file in chunks.
  const int kSnapshots = 3000;
  for (int i = 1; i <= kSnapshots; ++i) {
    writer.AddSnapshot(i * apf::kSecond,
                       "# HELP x_total An \"x\".\n# TYPE x_total counter\n"
                       "x_total{k=\"1\"} " +
                           std::to_string(i) + "\nx_total{k=\"2\"} " + std::to_string(2 * i) +
                           "\n# HELP y A gauge.\n# TYPE y gauge\ny " + std::to_string(-i) + "\n");
  }
  writer.Commit();
  std::string want = "# TYPE x counter\n# HELP x An \\\"x\\\".\n";
  for (int k = 1; k <= 2; ++k) {
    for (int i = 1; i <= kSnapshots; ++i) {
      want += "x_total{cluster=\"a\\\"b\",k=\"" + std::to_string(k) + "\"} " +
              std::to_string(k * i) + " " + std::to_string(kOrigin + i) + "\n";
    }
  }
  want += "# TYPE y gauge\n# HELP y A gauge.\n";
  for (int i = 1; i <= kSnapshots; ++i) {
    want +=
        "y{cluster=\"a\\\"b\"} " + std::to_string(-i) + " " + std::to_string(kOrigin + i) + "\n";
  }
  want += "# EOF\n";
  CHECK(test_support::ReadFile(path) == want);
}

TEST_CASE("compare --openmetrics: each side its metrics.om, labelled side", "[openmetrics]") {
  const test_support::ScratchDir scratch("apfsim-openmetrics-compare");
  sim::CompareRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  // Ten seats for lab's share instead of one: the 1.6 s GET is not rejected after.
  request.after_overrides = {"apiservers.maxRequestsInflight=59"};
  request.out_dir = scratch.path().string();
  request.openmetrics = WithJob();
  sim::RunCompare(request);
  const std::string before = test_support::ReadFile(scratch.path() / "before" / "metrics.om");
  const std::string after = test_support::ReadFile(scratch.path() / "after" / "metrics.om");
  const std::string lab =
      "{job=\"kube-apiserver\",side=\"SIDE\",instance=\"apiserver-0\",priority_level=\"lab\","
      "flow_schema=\"global-default\"";
  auto with_side = [&](const char* side) {
    std::string labels = lab;
    return labels.replace(labels.find("SIDE"), 4, side);
  };
  CHECK(
      LinesStarting(before, "apiserver_flowcontrol_dispatched_requests_total" + with_side("before"))
          .size() == 3);
  CHECK(LinesStarting(before, "apiserver_flowcontrol_rejected_requests_total" + with_side("before"))
            .size() == 3);
  CHECK(LinesStarting(after, "apiserver_flowcontrol_dispatched_requests_total" + with_side("after"))
            .size() == 3);
  CHECK(LinesStarting(after, "apiserver_flowcontrol_rejected_requests_total").empty());
}

TEST_CASE("metrics.om: the gateway's krm_foyer families, interval by interval", "[openmetrics]") {
  // scenarios/gateway-leaked-watches.yaml (2 minutes, 1 s intervals): one session opens 70
  // watches at 5 s and more every 10 s; 64 pass and stay open, and the scenario's comment
  // counts 866 refusals by the session's concurrency bound by the end, which metrics.prom
  // says too (metrics_text_test.cc). metrics.om has the same series at every interval's end.
  const test_support::ScratchDir scratch("apfsim-openmetrics-gateway");
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/scenarios/gateway-leaked-watches.yaml";
  request.out_dir = scratch.path().string();
  request.quiet = true;
  request.openmetrics = sim::OpenMetricsOptions{};
  sim::RunScenario(request);
  const std::string om = test_support::ReadFile(scratch.path() / "metrics.om");
  CHECK_THAT(om, Catch::Contains("# TYPE krm_foyer_bound_reached counter\n"));
  CHECK_THAT(om, Catch::Contains("# TYPE krm_foyer_bound_usage_ratio histogram\n"));
  const std::vector<std::string> reached =
      LinesStarting(om, "krm_foyer_bound_reached_total{bound=\"session_concurrent_requests\"}");
  REQUIRE(reached.size() == 120);
  CHECK(reached.front() ==
        "krm_foyer_bound_reached_total{bound=\"session_concurrent_requests\"} 0 " +
            std::to_string(kOrigin + 1));
  CHECK(reached.back() ==
        "krm_foyer_bound_reached_total{bound=\"session_concurrent_requests\"} 866 " +
            std::to_string(kOrigin + 120));
  const std::vector<std::string> in_flight = LinesStarting(om, "krm_foyer_requests_in_flight ");
  REQUIRE(in_flight.size() == 120);
  CHECK(in_flight.back() == "krm_foyer_requests_in_flight 64 " + std::to_string(kOrigin + 120));
}
