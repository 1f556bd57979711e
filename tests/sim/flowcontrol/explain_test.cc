// `apfsim explain`'s work estimate: the seats the estimator charges the described request
// on its level, and the reasoning it prints. Expected seats are hand calculations from
// doc/model.md#work-estimation (list_work_estimator.go, mutating_work_estimator.go) and 3.2 (max
// seats).
#include "sim/flowcontrol/explain.h"

#include <catch2/catch.hpp>

#include "apf/classification/user_info.h"

namespace {

nlohmann::json Explain(const apf::RequestInfo& request, const sim::ExplainOptions& options) {
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, sim::FlowControlManifests{});
  return sim::ExplainRequest(setup, apf::ServiceAccountUser("default", "app"), request, options);
}

apf::RequestInfo ListConfigMaps() {
  apf::RequestInfo r;
  r.is_resource_request = true;
  r.verb = "list";
  r.resource = "configmaps";
  r.namespace_name = "default";
  return r;
}

}  // namespace

TEST_CASE("explain prices 450 ConfigMaps of 100 bytes at 1 seat by size, 5 by count", "[explain]") {
  sim::ExplainOptions options;
  options.object_stats = {450, 100};
  options.object_stats_given = true;
  // SizeBasedListCostEstimate (1.34+): 45,000 bytes, well under the 100 KB a seat buys.
  nlohmann::json e = Explain(ListConfigMaps(), options);
  CHECK(e["priorityLevel"] == "workload-low");
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["finalSeats"] == 0);
  CHECK(e["workEstimate"]["estimator"] == "list");
  CHECK(e["workEstimate"]["why"].get<std::string>().find("450 objects of about 100 bytes; "
                                                         "served from the watch cache") !=
        std::string::npos);
  // With the gate off (before 1.34): ceil(450 / 100 objects per seat) = 5.
  options.estimator = apf::DefaultWorkEstimatorConfig(false, true, true);
  e = Explain(ListConfigMaps(), options);
  CHECK(e["workEstimate"]["initialSeats"] == 5);
  CHECK(e["workEstimate"]["why"].get<std::string>().find("priced by object count, 100 per seat") !=
        std::string::npos);
}

TEST_CASE("explain shows the level's cap on a LIST's seats", "[explain]") {
  // 40,000 objects of 9,000 bytes from the watch cache: the global cache limit of 10 seats
  // (1 MB); workload-low's own cap at 600 seats is min(ceil(0.15 * 245), 245 / 6) = 37, so
  // 10 stands. With 24 server seats workload-low has ceil(24 * 100 / 245) = 10 seats and a
  // cap of max(1, min(ceil(1.5) = 2, 10 / 6 = 1)) = 1.
  sim::ExplainOptions options;
  options.object_stats = {40000, 9000};
  options.object_stats_given = true;
  nlohmann::json e = Explain(ListConfigMaps(), options);
  CHECK(e["workEstimate"]["initialSeats"] == 10);
  CHECK(e["level"]["maxSeatsPerRequest"] == 37);
  options.server_concurrency_limit = 24;
  e = Explain(ListConfigMaps(), options);
  CHECK(e["level"]["maxSeatsPerRequest"] == 1);
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["why"].get<std::string>().find(
            "10 seats, capped at this level's 1 seat per request") != std::string::npos);
}

TEST_CASE("explain prices a write by the watches it fans out to", "[explain]") {
  apf::RequestInfo create = ListConfigMaps();
  create.verb = "create";
  sim::ExplainOptions options;
  options.watch_count = 57;
  // ceil(57 / 10 watches per seat) = 6 final seats, for 5 ms (the event duration).
  const nlohmann::json e = Explain(create, options);
  CHECK(e["workEstimate"]["estimator"] == "mutating");
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["finalSeats"] == 6);
  CHECK(e["workEstimate"]["additionalLatencySeconds"] == Approx(0.005));
  const std::string text = sim::FormatExplanation(e);
  CHECK(text.find("work estimate:   1 seat(s), then 6 for 5ms after it finishes") !=
        std::string::npos);
}

TEST_CASE("explain's level names its maximum concurrency maxCL, keeping maxSeats a release",
          "[explain]") {
  const nlohmann::json e = Explain(ListConfigMaps(), {});
  // workload-low at 600: nominal 245, unlimited borrowing: 245 + 600 = 845.
  CHECK(e["level"]["maxCL"] == 845);
  CHECK(e["level"]["maxSeats"] == e["level"]["maxCL"]);
  CHECK(e["workEstimate"]["why"].get<std::string>().find("no object count given") !=
        std::string::npos);
}
