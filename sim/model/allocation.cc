#include "sim/model/allocation.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "apf/allocation/concurrency_allocator.h"
#include "apf/allocation/priority_level_limits.h"
#include "apf/queueing/seat_demand_integrator.h"
#include "apf/queueing/shuffle_sharding.h"
#include "sim/io/json_input.h"

namespace sim {
namespace {

// Large enough for any real server, small enough that nominalCL + serverCL stays an int.
constexpr std::int64_t kMaxServerConcurrencyLimit = 1000000000;

std::int32_t Int32(const JsonField& field) {
  const std::int64_t v = field.Int();
  if (v < std::numeric_limits<std::int32_t>::min() ||
      v > std::numeric_limits<std::int32_t>::max()) {
    field.Fail("out of the int32 range of the API field");
  }
  return static_cast<std::int32_t>(v);
}

// The hand size of a queuing configuration, after the checks of API validation
// (doc/model.md#defaulting-and-validation) that the queue set would otherwise refuse.
std::int32_t ReadQueuingHandSize(const JsonField& queuing) {
  queuing.ExpectObject({"queues", "handSize", "queueLengthLimit"});
  const std::int32_t queues = Int32(queuing["queues"]);
  const std::int32_t hand_size = Int32(queuing["handSize"]);
  const std::int32_t queue_length_limit = Int32(queuing["queueLengthLimit"]);
  if (queues < 1 || queues > 10000000) queuing["queues"].Fail("must be between 1 and 10000000");
  if (hand_size < 1 || hand_size > queues) {
    queuing["handSize"].Fail("must be between 1 and queues");
  }
  // shufflesharding.RequiredEntropyBits must not exceed MaxHashBits (60).
  if (apf::RequiredEntropyBits(queues, hand_size) > apf::kMaxHashBits) {
    queuing["handSize"].Fail("queues and handSize need more than 60 bits of hash");
  }
  if (queue_length_limit < 1) queuing["queueLengthLimit"].Fail("must be >= 1");
  return hand_size;
}

apf::PriorityLevelAllocationSpec ReadLevel(const JsonField& level) {
  level.ExpectObject({"name", "type", "nominalConcurrencyShares", "lendablePercent",
                      "borrowingLimitPercent", "queuing"});
  apf::PriorityLevelAllocationSpec spec;
  spec.name = level["name"].String();
  const std::string type = level["type"].String();
  if (type == "Exempt") {
    spec.type = apf::PriorityLevelType::kExempt;
  } else if (type != "Limited") {
    level["type"].Fail("expected \"Limited\" or \"Exempt\", got \"" + type + "\"");
  }
  spec.nominal_concurrency_shares = Int32(level["nominalConcurrencyShares"]);
  if (level.Has("lendablePercent")) spec.lendable_percent = Int32(level["lendablePercent"]);
  if (level.Has("borrowingLimitPercent")) {
    spec.borrowing_limit_percent = Int32(level["borrowingLimitPercent"]);
  }
  if (level.Has("queuing")) spec.queuing_hand_size = ReadQueuingHandSize(level["queuing"]);
  if (apf::Status s = apf::ValidatePriorityLevelAllocationSpec(spec); !s.ok()) {
    level.Fail(s.message());
  }
  return spec;
}

// A number, or NaN for null.
double NumberOrNaN(const JsonField& field) {
  return field.IsNull() ? std::numeric_limits<double>::quiet_NaN() : field.Number();
}

apf::SeatDemandResults ReadReading(const JsonField& reading) {
  reading.ExpectObject({"average", "stdDev", "max", "duration"});
  apf::SeatDemandResults r;
  r.average = NumberOrNaN(reading["average"]);
  r.std_dev = NumberOrNaN(reading["stdDev"]);
  r.max = reading["max"].Number();
  r.duration_seconds = reading["duration"].Number();
  if (r.duration_seconds < 0) reading["duration"].Fail("must be >= 0");
  if (r.duration_seconds > 0 && std::isnan(r.average)) {
    reading["average"].Fail("must be a number when the duration is positive");
  }
  return r;
}

// What an integrator reports for a period of no length.
apf::SeatDemandResults ZeroLengthReading() {
  apf::SeatDemandResults r;
  r.average = r.std_dev = std::numeric_limits<double>::quiet_NaN();
  return r;
}

nlohmann::json ReplayCase(const JsonField& c) {
  c.ExpectObject({"serverConcurrencyLimit", "levels", "periods"});
  const std::int64_t server_cl = c["serverConcurrencyLimit"].Int();
  if (server_cl < 0 || server_cl > kMaxServerConcurrencyLimit) {
    c["serverConcurrencyLimit"].Fail("must be between 0 and " +
                                     std::to_string(kMaxServerConcurrencyLimit));
  }
  const JsonField levels_field = c["levels"];
  levels_field.ExpectArray();
  std::vector<apf::PriorityLevelAllocationSpec> levels;
  for (size_t i = 0; i < levels_field.size(); ++i) {
    levels.push_back(ReadLevel(levels_field.At(i)));
    for (size_t j = 0; j < i; ++j) {
      if (levels[j].name == levels[i].name) {
        levels_field.At(i)["name"].Fail("a second level named \"" + levels[i].name + "\"");
      }
    }
  }

  apf::ConcurrencyAllocator allocator(static_cast<int>(server_cl));
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  // Every level is new at time zero, so neither callback is used.
  const apf::Status digested = allocator.Digest(
      levels, [](const std::string&) { return ZeroLengthReading(); },
      [](const std::string&) { return true; }, &outcome);
  if (!digested.ok()) levels_field.Fail(digested.message());

  nlohmann::json config = nlohmann::json::object();
  for (const apf::PriorityLevelAllocation& level : allocator.levels()) {
    nlohmann::json limits = {{"nominalCL", level.limits.nominal_cl},
                             {"minCL", level.limits.min_cl},
                             {"maxCL", level.limits.max_cl},
                             {"maxSeats", nullptr}};
    if (level.spec.queuing()) limits["maxSeats"] = allocator.GetMaxSeats(level.spec.name);
    config[level.spec.name] = std::move(limits);
  }

  const JsonField periods_field = c["periods"];
  periods_field.ExpectArray();
  nlohmann::json periods = nlohmann::json::array();
  for (size_t p = 0; p < periods_field.size(); ++p) {
    const JsonField period = periods_field.At(p);
    if (!period.value().is_object()) period.Fail("expected an object of level readings");
    std::map<std::string, apf::SeatDemandResults> readings;
    for (const auto& [name, unused] : period.value().items()) {
      if (!allocator.Find(name)) period[name].Fail("no priority level of that name");
      readings[name] = ReadReading(period[name]);
    }
    allocator.Adjust([&](const std::string& name) {
      auto it = readings.find(name);
      return it == readings.end() ? ZeroLengthReading() : it->second;
    });
    nlohmann::json limits = nlohmann::json::object();
    for (const apf::PriorityLevelAllocation& level : allocator.levels()) {
      limits[level.spec.name] = {{"currentCL", level.current_cl}};
    }
    periods.push_back(std::move(limits));
  }
  return {{"config", std::move(config)}, {"periods", std::move(periods)}};
}

}  // namespace

nlohmann::json ReplayAllocationCases(const nlohmann::json& cases, const std::string& source) {
  const JsonField root(cases, source, "");
  root.ExpectArray();
  nlohmann::json results = nlohmann::json::array();
  for (size_t i = 0; i < root.size(); ++i) results.push_back(ReplayCase(root.At(i)));
  return results;
}

}  // namespace sim
