#include "sim/model/retry_after.h"

#include <cmath>

#include "apf/filter/retry_after_tracker.h"
#include "sim/io/json_input.h"

namespace sim {
namespace {

// A drop time in Unix seconds as nanoseconds; whole seconds are exact, and a fraction
// keeps its second (floor), which is all the tracker reads.
apf::Nanos DropTime(const JsonField& f) {
  constexpr double kMaxSeconds = 9.2e9;  // keeps seconds × 1e9 inside int64
  if (f.value().is_number_integer()) {
    const std::int64_t s = f.Int();
    if (s > 9'200'000'000 || s < -9'200'000'000) f.Fail("seconds out of range");
    return s * apf::kSecond;
  }
  const double x = f.Number();
  if (!std::isfinite(x) || std::abs(x) > kMaxSeconds) f.Fail("seconds out of range");
  const double whole = std::floor(x);
  auto fraction_ns = static_cast<apf::Nanos>((x - whole) * 1e9);
  if (fraction_ns >= apf::kSecond) fraction_ns = apf::kSecond - 1;
  return static_cast<apf::Nanos>(whole) * apf::kSecond + fraction_ns;
}

}  // namespace

nlohmann::json ReplayRetryAfterCases(const nlohmann::json& cases, const std::string& source) {
  JsonField all(cases, source, "");
  all.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) {
    JsonField c = all.At(i);
    c.ExpectObject({"drops"});
    JsonField drops = c["drops"];
    drops.ExpectArray();
    apf::RetryAfterTracker tracker;
    nlohmann::json values = nlohmann::json::array();
    for (size_t d = 0; d < drops.size(); ++d) {
      tracker.RecordDroppedRequest(DropTime(drops.At(d)));
      values.push_back(tracker.RetryAfterSeconds());
    }
    out.push_back({{"retryAfter", std::move(values)}});
  }
  return out;
}

}  // namespace sim
