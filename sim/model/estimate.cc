#include "sim/model/estimate.h"

#include <limits>
#include <optional>

#include "apf/classification/request_info.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/estimation/watch_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "sim/io/json_input.h"

namespace sim {
namespace {

// The statistics a case states, handed to the estimator as its sources would.
apf::RequestInfo ReadRequest(const JsonField& r) {
  r.ExpectObject({"verb", "apiGroup", "apiVersion", "resource", "subresource", "namespace", "name",
                  "query", "isResourceRequest", "path"});
  apf::RequestInfo info;
  info.verb = r["verb"].String();
  info.api_group = r.StringOr("apiGroup", "");
  info.api_version = r.StringOr("apiVersion", "");
  info.resource = r.StringOr("resource", "");
  info.subresource = r.StringOr("subresource", "");
  info.namespace_name = r.StringOr("namespace", "");
  info.name = r.StringOr("name", "");
  info.is_resource_request = r.BoolOr("isResourceRequest", true);
  info.path = r.StringOr("path", "");
  info.query = apf::ParseRequestQuery(r.StringOr("query", ""));
  return info;
}

apf::ObjectStatsError ReadStatsError(const JsonField& c) {
  if (!c.Has("statsError")) return apf::ObjectStatsError::kNone;
  JsonField f = c["statsError"];
  const std::string e = f.String();
  if (e.empty()) return apf::ObjectStatsError::kNone;
  if (e == "notFound") return apf::ObjectStatsError::kNotFound;
  if (e == "stale") return apf::ObjectStatsError::kStale;
  f.Fail("expected \"\", \"notFound\" or \"stale\", got \"" + e + "\"");
}

}  // namespace

nlohmann::json ReplayEstimateCases(const nlohmann::json& cases, const std::string& source) {
  JsonField all(cases, source, "");
  all.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) {
    JsonField c = all.At(i);
    c.ExpectObject({"request", "objectCount", "avgObjectSizeBytes", "statsError", "watchCount",
                    "maxSeats", "featureGates", "consistentReadFromCache"});
    std::optional<apf::RequestInfo> request;
    if (!c["request"].IsNull()) request = ReadRequest(c["request"]);

    apf::ObjectStatsResult stats;
    stats.stats.object_count = c.IntOr("objectCount", 0);
    if (stats.stats.object_count < 0) c["objectCount"].Fail("must not be negative");
    stats.stats.estimated_average_object_size_bytes = c.IntOr("avgObjectSizeBytes", 0);
    if (stats.stats.estimated_average_object_size_bytes < 0) {
      c["avgObjectSizeBytes"].Fail("must not be negative");
    }
    stats.error = ReadStatsError(c);
    const std::int64_t watch_count = c.IntOr("watchCount", 0);
    if (watch_count < 0) c["watchCount"].Fail("must not be negative");
    const std::int64_t max_seats = c.IntOr("maxSeats", 0);
    if (max_seats < 0) c["maxSeats"].Fail("must not be negative");

    bool size_based = true, watch_list = true;
    if (c.Has("featureGates")) {
      JsonField gates = c["featureGates"];
      gates.ExpectObject({"SizeBasedListCostEstimate", "WatchList"});
      size_based = gates.BoolOr("SizeBasedListCostEstimate", true);
      watch_list = gates.BoolOr("WatchList", true);
    }
    const bool consistent_read_from_cache = c.BoolOr("consistentReadFromCache", true);

    apf::FixedObjectStats object_stats(stats);
    apf::FixedWatchCount watch_counts(watch_count);
    apf::WorkEstimator estimator(
        apf::DefaultWorkEstimatorConfig(size_based, watch_list, consistent_read_from_cache),
        &object_stats, &watch_counts);
    const apf::WorkEstimate estimate =
        estimator.Estimate(request ? &*request : nullptr, static_cast<std::uint64_t>(max_seats),
                           /*now=*/0);
    out.push_back({{"initialSeats", estimate.initial_seats},
                   {"finalSeats", estimate.final_seats},
                   {"additionalLatencyNs", estimate.additional_latency}});
  }
  return out;
}

}  // namespace sim
