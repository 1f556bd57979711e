// Replaying recorded traffic: the CSV `trace` pattern (rows issued at their times, with
// their service times), the audit-log importer (which events it takes, what it counts
// and skips, the window, speed and user filter), object counts from a /metrics scrape,
// and `apfsim run --trace`'s trace.jsonl. Expected numbers come from the fixtures, which
// are small enough to check by hand (tests/fixtures/replay/ and scenarios/sample-*).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/io/input_error.h"
#include "sim/scenario/audit_log.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/metrics_import.h"
#include "sim/scenario/trace_replay.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {

std::string Fixture(const std::string& name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/replay/" + name;
}

// Runs the scenario `file` with `--trace trace`, its outputs in `out_dir`.
sim::RunOutcome Run(const std::string& file, const std::string& trace,
                    const test_support::ScratchDir& out_dir) {
  sim::RunRequest request;
  request.scenario_file = file;
  request.out_dir = out_dir.path().string();
  request.trace = trace;
  request.quiet = true;
  return sim::RunScenario(request);
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

sim::AuditLogSpec AuditSpec(const std::string& file) {
  sim::AuditLogSpec spec;
  spec.enabled = true;
  spec.file = file;
  return spec;
}

constexpr apf::Nanos k1000 = 1796205600LL * apf::kSecond;  // 2026-12-02T10:00:00Z

}  // namespace

TEST_CASE("decimal seconds and RFC 3339 times parse exactly", "[replay]") {
  CHECK(sim::ParseDecimalSeconds("2.25") == 2250 * apf::kMillisecond);
  CHECK(sim::ParseDecimalSeconds("0.000000001") == 1);
  CHECK(sim::ParseDecimalSeconds("7") == 7 * apf::kSecond);
  CHECK_FALSE(sim::ParseDecimalSeconds("-1"));
  CHECK_FALSE(sim::ParseDecimalSeconds("1e3"));
  CHECK_FALSE(sim::ParseDecimalSeconds(""));
  CHECK_FALSE(sim::ParseDecimalSeconds("."));
  CHECK_FALSE(sim::ParseDecimalSeconds("1.2.3"));
  CHECK(sim::ParseDecimalSeconds(".5") == 500 * apf::kMillisecond);
  CHECK(sim::ParseDecimalSeconds("3.") == 3 * apf::kSecond);
  // Digits past nanoseconds are dropped, not rounded.
  CHECK(sim::ParseDecimalSeconds("1.1234567899") == 1123456789);
  CHECK(sim::ParseDecimalSeconds("0.000000000999") == 0);
  // INT64_MAX nanoseconds (9223372036.854775807 s, ~292 years) is the most there is.
  CHECK(sim::ParseDecimalSeconds("9223372035.999999999") == 9223372035999999999);
  CHECK(sim::ParseDecimalSeconds("9223372036.854775807") == INT64_MAX);
  CHECK_FALSE(sim::ParseDecimalSeconds("9223372036.854775808"));
  CHECK_FALSE(sim::ParseDecimalSeconds("9223372037"));
  CHECK_FALSE(sim::ParseDecimalSeconds("92233720370"));
  CHECK_FALSE(sim::ParseDecimalSeconds("99999999999999999999999"));  // would wrap an int64
  // Leading zeros are not digits of the magnitude: eleven of them are still a small time.
  CHECK(sim::ParseDecimalSeconds("00000000000001.5") == 1500 * apf::kMillisecond);
  CHECK(sim::ParseDecimalSeconds("0009223372036.854775807") == INT64_MAX);
  CHECK(sim::ParseDecimalSeconds("000") == 0);
  // What follows the ninth fraction digit must still be digits.
  CHECK_FALSE(sim::ParseDecimalSeconds("1.1234567891x"));
  CHECK_FALSE(sim::ParseDecimalSeconds("1.123456789."));
  CHECK_FALSE(sim::ParseDecimalSeconds("1.12x"));
  CHECK_FALSE(sim::ParseDecimalSeconds("1 "));
  // 2026-12-02T10:05:00Z is 1796205900 s after the epoch (Python's datetime says so).
  CHECK(sim::ParseRfc3339("2026-12-02T10:05:00.123456Z") ==
        1796205900LL * apf::kSecond + 123456 * apf::kMicrosecond);
  CHECK(sim::ParseRfc3339("2026-12-02T12:05:00+02:00") == 1796205900LL * apf::kSecond);
  CHECK(sim::ParseRfc3339("1970-01-01T00:00:00Z") == 0);
  CHECK_FALSE(sim::ParseRfc3339("2026-12-02 10:05:00Z"));
  CHECK_FALSE(sim::ParseRfc3339("2026-12-02T10:05:00"));
}

TEST_CASE("a trace's rows are called at start plus their time and run for their service time",
          "[replay][trace]") {
  const test_support::ScratchDir scratch("apfsim-replay-timing");
  const sim::RunOutcome out = Run(Fixture("trace-timing.yaml"), "replayer", scratch);
  const auto lines = ReadJsonLines(out.out_dir + "/trace.jsonl");
  // trace-timing.csv: rows at 0.5, 1.0, 1.0, 2.25 s from the item's start (1 s), with
  // service times 0.1, 0.25, 0.05, 0.002 s; the server is idle, so nothing waits.
  REQUIRE(lines.size() == 4);
  std::vector<std::pair<double, double>> got;  // (arrival, finish - dispatch)
  for (const auto& l : lines) {
    CHECK(l["client"] == "replayer");
    CHECK(l["outcome"] == "completed");
    CHECK(l["wait"].get<double>() == 0.0);
    CHECK(l["try"] == 1);
    got.emplace_back(l["arrival"].get<double>(),
                     l["finish"].get<double>() - l["dispatch"].get<double>());
  }
  std::sort(got.begin(), got.end());
  const std::vector<std::pair<double, double>> want = {
      {1.5, 0.1}, {2.0, 0.05}, {2.0, 0.25}, {3.25, 0.002}};
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i].first == Approx(want[i].first).margin(1e-9));
    CHECK(got[i].second == Approx(want[i].second).margin(1e-9));
  }
  CHECK(out.summary["replay"]["replayedCalls"] == 4);
  CHECK(out.summary["clients"]["replayer"]["succeeded"] == 4);
  // The quoted name "a,b" survived the CSV.
  bool found = false;
  for (const auto& l : lines) found = found || l["name"] == "a,b";
  CHECK(found);
}

TEST_CASE("a bad trace row is an input error at its file and line", "[replay][trace]") {
  const test_support::ScratchDir scratch("apfsim-replay-bad-row");
  try {
    Run(Fixture("trace-bad-row.yaml"), "", scratch);
    FAIL("expected an InputError");
  } catch (const sim::InputError& e) {
    CHECK(e.where().file == Fixture("trace-bad-row.csv"));
    CHECK(e.where().line == 3);  // the row with verb "fetch"
    CHECK(e.field_path() == "verb");
  }
}

TEST_CASE("a trace row naming another client is refused", "[replay][trace]") {
  const test_support::ScratchDir scratch("apfsim-replay-wrong-client");
  const fs::path csv = scratch.path() / "trace.csv";
  std::ofstream(csv) << "time,client,verb,apiGroup,resource,namespace,name,query,serviceTime\n"
                        "0,someone-else,get,,pods,default,p,,\n";
  sim::CsvTraceReader reader(csv.string(), "replayer", 0);
  sim::ReplayRow row;
  CHECK_THROWS_AS(reader.Next(&row), sim::InputError);
}

TEST_CASE("the audit importer takes complete events and counts garbage and a truncated line",
          "[replay][audit]") {
  const sim::AuditLogScan scan = sim::ScanAuditLog(AuditSpec(Fixture("garbage-audit.log")));
  // garbage-audit.log: 8 lines; 4 replayable events (carol's LIST, dave's GET, erin's
  // impersonated GET, carol's GET); one non-JSON line, one List, one RequestReceived stage
  // and a truncated last line.
  CHECK(scan.stats.lines == 8);
  CHECK(scan.stats.events == 4);
  CHECK(scan.stats.skipped.at("not-json") == 1);
  CHECK(scan.stats.skipped.at("not-an-audit-event") == 1);
  CHECK(scan.stats.skipped.at("other-stage") == 1);
  CHECK(scan.stats.skipped.at("truncated-last-line") == 1);
  CHECK(scan.stats.recorded_codes.at(200) == 3);
  CHECK(scan.stats.recorded_codes.at(429) == 1);
  // dave's GET was received at 10:00:00.5, before carol's LIST (10:00:01) that the log
  // wrote first: the reorder window puts it first. Impersonation: erin, not admin.
  REQUIRE(scan.identities.size() == 3);
  CHECK(scan.identities[0].user == "dave");
  CHECK(scan.identities[1].user == "carol");
  CHECK(scan.identities[2].user == "erin");
  CHECK(scan.identities[2].groups == std::vector<std::string>{"qa", "system:authenticated"});
  CHECK(scan.first_received == k1000 + 500 * apf::kMillisecond);
}

TEST_CASE("audit rows carry the request, the query and the service time", "[replay][audit]") {
  sim::AuditLogSpec spec = AuditSpec(Fixture("garbage-audit.log"));
  sim::AuditLogReader reader(spec, k1000, nullptr);
  sim::ReplayRow row;
  REQUIRE(reader.Next(&row));  // dave's GET
  CHECK(row.at == 500 * apf::kMillisecond);
  CHECK(row.request.service_time->value == 2 * apf::kSecond);  // 02.5 - 00.5
  CHECK(row.recorded_code == 429);
  REQUIRE(reader.Next(&row));  // carol's LIST
  CHECK(row.at == 1 * apf::kSecond);
  CHECK(row.request.verb == "list");
  CHECK(row.request.resource == "pods");
  CHECK(row.request.namespace_ == "a");
  CHECK(row.request.query == "limit=500&resourceVersion=0");
  CHECK(row.request.service_time->value == 250 * apf::kMillisecond);
}

TEST_CASE("the audit window, speed factor and user filter select and scale events",
          "[replay][audit]") {
  sim::AuditLogSpec spec = AuditSpec(Fixture("garbage-audit.log"));
  spec.from = k1000 + 1 * apf::kSecond;  // drops dave (10:00:00.5)
  spec.to = k1000 + 6 * apf::kSecond;    // drops carol's GET at 10:00:06
  spec.speed = 2;
  spec.exclude_users = {"erin"};
  sim::AuditLogScan scan = sim::ScanAuditLog(spec);
  CHECK(scan.stats.events == 1);  // carol's LIST only
  CHECK(scan.stats.skipped.at("outside-window") == 2);
  CHECK(scan.stats.skipped.at("user-filtered") == 1);
  // With the window's start as the origin and speed 2, an event 4 s in arrives at 2 s.
  spec.to.reset();
  spec.exclude_users.clear();
  spec.include_users = {"erin"};
  sim::AuditLogReader reader(spec, *spec.from, nullptr);
  sim::ReplayRow row;
  REQUIRE(reader.Next(&row));
  CHECK(row.at == (4 - 1) * apf::kSecond / 2);
  CHECK_FALSE(reader.Next(&row));
}

TEST_CASE("the sample audit log replays with one client per identity", "[replay][audit]") {
  const std::string scenario = std::string(APFSIM_SOURCE_DIR) + "/scenarios/audit-replay.yaml";
  const sim::Scenario s = sim::LoadScenario(scenario, {});
  // Count the events a reader should take straight from the file: complete and started
  // stages of whole lines (the truncated last line has none of its stage).
  std::ifstream in(std::string(APFSIM_SOURCE_DIR) + "/scenarios/sample-audit.log");
  std::string line;
  std::int64_t complete = 0;
  while (std::getline(in, line)) {
    const bool whole = !in.eof();
    if (whole && line.find("\"stage\":\"ResponseComplete\"") != std::string::npos) ++complete;
    if (whole && line.find("\"stage\":\"ResponseStarted\"") != std::string::npos) ++complete;
  }
  CHECK(s.audit_log.scan.events == complete);
  CHECK(s.audit_log.scan.skipped.at("truncated-last-line") == 1);
  CHECK(s.audit_log.scan.skipped.at("not-json") == 1);
  CHECK(s.audit_log.scan.skipped.at("not-an-audit-event") == 1);
  // Five identities: the two service accounts, alice, the kubelet, and bob (whom admin
  // impersonates).
  std::set<std::string> names;
  for (const sim::ClientSpec& c : s.clients) names.insert(c.name);
  CHECK(names == std::set<std::string>{"system:serviceaccount:argocd:argocd-application-controller",
                                       "system:serviceaccount:platform:tenant-operator", "alice",
                                       "system:node:node-1", "bob"});
  const test_support::ScratchDir scratch("apfsim-replay-audit");
  const sim::RunOutcome out = Run(scenario, "", scratch);
  CHECK(out.summary["replay"]["replayedCalls"] == complete);
  CHECK(out.summary["replay"]["auditLog"]["identities"] == 5);
  CHECK(out.summary["clients"]["bob"]["calls"] == 5);
}

TEST_CASE("object counts come from apiserver_storage_objects", "[replay][metrics]") {
  const auto resources = sim::ResourcesFromMetricsText(
      "# TYPE apiserver_storage_objects gauge\n"
      "apiserver_storage_objects{resource=\"pods\"} 2400\n"
      "apiserver_storage_objects{resource=\"deployments.apps\"} 340\n"
      "apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} 1.92e+07\n"
      "apiserver_request_total{code=\"200\"} 5\n",
      "scrape");
  REQUIRE(resources.size() == 2);
  // Sorted by (group, resource): core pods first.
  CHECK(resources[0].api_group == "");
  CHECK(resources[0].resource == "pods");
  CHECK(resources[0].objects == 2400);
  // apiserver_storage_size_bytes is the etcd database file of a storage cluster
  // (storage_cluster_id, k8s.io/apiserver pkg/storage/etcd3/metrics/metrics.go), not a
  // resource's bytes: sizes stay ResourceSpec's documented default of 1000.
  CHECK(resources[0].average_bytes == sim::ResourceSpec{}.average_bytes);
  CHECK(resources[1].api_group == "apps");
  CHECK(resources[1].resource == "deployments");
  CHECK(resources[1].average_bytes == sim::ResourceSpec{}.average_bytes);
  try {
    sim::ResourcesFromMetricsText("# x\napiserver_storage_objects{resource=\"pods\"} many\n",
                                  "scrape");
    FAIL("expected an InputError");
  } catch (const sim::InputError& e) {
    CHECK(e.where().line == 2);
  }
}

TEST_CASE("a real scrape: -1 counts skipped, the 1.34 gauges read with their group label",
          "[replay][metrics]") {
  // storage metrics.go: "In case of a fetching error, the value will be -1". 1.34
  // (kubernetes#132965) adds apiserver_resource_objects{group, resource} beside the
  // deprecated apiserver_storage_objects, with the same value: the new one is read, the
  // two are not added. apiserver_resource_size_estimate_bytes (kubernetes#132893) is the
  // resource's total size: 3.2e8 bytes over 40000 objects is 8000 bytes each.
  std::vector<std::string> skipped;
  const auto resources = sim::ResourcesFromMetricsText(
      "apiserver_storage_objects{resource=\"secrets\"} -1\n"
      "apiserver_storage_objects{resource=\"tenantbindings.platform.example.com\"} 40000\n"
      "apiserver_resource_objects{group=\"platform.example.com\",resource=\"tenantbindings\"} "
      "40000\n"
      "apiserver_resource_size_estimate_bytes{group=\"platform.example.com\","
      "resource=\"tenantbindings\"} 3.2e+08\n"
      "apiserver_resource_objects{group=\"apps\",resource=\"deployments\"} -1\n"
      "apiserver_storage_objects{resource=\"deployments.apps\"} 12\n"
      "apiserver_resource_objects{group=\"\",resource=\"pods\"} 7\n",
      "scrape", &skipped);
  REQUIRE(resources.size() == 2);
  CHECK(resources[0].resource == "pods");
  CHECK(resources[0].objects == 7);
  CHECK(resources[1].resource == "tenantbindings");
  CHECK(resources[1].objects == 40000);  // not 80000
  CHECK(resources[1].average_bytes == 8000);
  // deployments: the 1.34 gauge says -1 and wins over the old one's 12. In (group,
  // resource) order: the core group first.
  CHECK(skipped == std::vector<std::string>{"secrets", "deployments.apps"});
  // Other negative values are still refused.
  CHECK_THROWS_AS(
      sim::ResourcesFromMetricsText("apiserver_storage_objects{resource=\"pods\"} -2\n", "s"),
      sim::InputError);
}

TEST_CASE("a run names the resources its scrape could not count", "[replay][metrics]") {
  // A -1 count leaves the resource out (no `resources` entry); summary.json names it under
  // resourcesFromMetrics.skipped and the terminal table says so.
  const test_support::ScratchDir scratch("apfsim-scrape");
  std::ofstream(scratch.path() / "scrape.prom")
      << "apiserver_resource_objects{group=\"\",resource=\"secrets\"} -1\n"
         "apiserver_resource_objects{group=\"\",resource=\"pods\"} 10\n";
  const fs::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: scrape}
spec:
  duration: 1s
  resourcesFromMetrics: scrape.prom
  clients:
  - name: reader
    user: alice
    traffic:
    - constant: {rate: 1, request: {verb: list, resource: pods, namespace: a}}
)";
  const test_support::ScratchDir out("apfsim-scrape-out");
  const sim::RunOutcome run = Run(file.string(), "", out);
  CHECK(run.summary["resourcesFromMetrics"]["skipped"] == nlohmann::json::array({"secrets"}));
  CHECK(run.table.find("resourcesFromMetrics: skipped secrets (object count -1 in the scrape)") !=
        std::string::npos);
}

TEST_CASE("explicit resources override the counts from metrics", "[replay][metrics]") {
  const sim::Scenario s =
      sim::LoadScenario(std::string(APFSIM_SOURCE_DIR) + "/scenarios/audit-replay.yaml", {});
  auto find = [&](const std::string& group, const std::string& resource) {
    for (const sim::ResourceSpec& r : s.resources) {
      if (r.api_group == group && r.resource == resource) return r;
    }
    FAIL("no resource " + resource);
    return sim::ResourceSpec{};
  };
  // sample-metrics.prom estimates 3.2e8 bytes for 40000 tenantbindings (8000 each); the
  // scenario's own entry says 9000 and wins. Pods: 1.92e7 / 2400 = 8000.
  CHECK(find("platform.example.com", "tenantbindings").average_bytes == 9000);
  CHECK(find("", "pods").objects == 2400);
  CHECK(find("", "pods").average_bytes == 8000);
  CHECK(find("coordination.k8s.io", "leases").objects == 60);
}

TEST_CASE("trace.jsonl follows a priority level with classification and retries",
          "[replay][trace]") {
  // The timing fixture's "other" client is a plain user: global-default level.
  const test_support::ScratchDir scratch("apfsim-replay-level");
  const sim::RunOutcome out = Run(Fixture("trace-timing.yaml"), "global-default", scratch);
  const auto lines = ReadJsonLines(out.out_dir + "/trace.jsonl");
  REQUIRE_FALSE(lines.empty());
  for (const auto& l : lines) {
    CHECK(l["priorityLevel"] == "global-default");
    CHECK(l["flowSchema"] == "global-default");
    // global-default distinguishes flows by user (the 1.36 defaults,
    // doc/model.md#flow-distinguisher).
    CHECK((l["distinguisher"] == "other" || l["distinguisher"] == "replayer"));
    CHECK(l["hand"].size() == 6);  // global-default: 128 queues, hand size 6
    CHECK(l["seats"]["initial"] == 1);
  }
  const test_support::ScratchDir nobody("apfsim-replay-nobody");
  CHECK_THROWS_AS(Run(Fixture("trace-timing.yaml"), "nobody", nobody), sim::InputError);
}
