#include "sim/report/recovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "apf/filter/flow_control.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/text.h"

namespace sim {
namespace {

std::string BoundText(const char* name, const RecoveryBound& b, bool seconds) {
  const std::string value =
      seconds ? FormatDuration(static_cast<apf::Nanos>(b.value * 1e9)) : fmt::format("{}", b.value);
  return fmt::format("{}{}{}", name, b.strict ? "<" : "<=", value);
}

// Seconds as summary.json writes them.
double Seconds(apf::Nanos ns) { return Round6(apf::ToSeconds(ns)); }

}  // namespace

std::string RecoveryBounds::Describe() const {
  std::vector<std::string> parts;
  if (rejected) parts.push_back(BoundText("rejected", *rejected, false));
  for (int k = 0; k < kRejectionKinds; ++k) {
    if (!rejected_by[k]) continue;
    const std::string name =
        "rejected." + std::string(apf::RejectReasonName(static_cast<apf::RejectReason>(k)));
    parts.push_back(BoundText(name.c_str(), *rejected_by[k], false));
  }
  if (wait_max_seconds) parts.push_back(BoundText("waitMax", *wait_max_seconds, true));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

RecoveryBounds ParseRecoveredWhen(const std::string& text) {
  auto fail = [&](const std::string& why) -> RecoveryBounds {
    throw InputError({"--recovered-when", 0, 0}, "", why);
  };
  RecoveryBounds out;
  out.source = "--recovered-when";
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq),
                      value = eq == std::string::npos ? std::string() : item.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      return fail(
          "expected rejected=N and/or waitMax=DURATION, comma-separated, e.g. "
          "\"rejected=0,waitMax=1s\" (got \"" +
          item + "\" in \"" + text + "\")");
    }
    if (key == "rejected") {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
      if (*end != '\0' || value.front() == '-' || value.front() == '+') {
        return fail(
            "rejected: expected a whole number of rejections per interval, at least "
            "0 (got \"" +
            value + "\")");
      }
      out.rejected = RecoveryBound{static_cast<double>(n), false};
    } else if (key == "waitMax") {
      std::string why;
      const auto d = ParseDuration(value, &why);
      if (!d) return fail("waitMax: " + why);
      if (*d < 0) return fail("waitMax: must not be negative (got \"" + value + "\")");
      out.wait_max_seconds = RecoveryBound{apf::ToSeconds(*d), false};
    } else {
      return fail("unknown bound \"" + key + "\": the bounds are rejected=N and waitMax=DURATION");
    }
  }
  if (!out.rejected && !out.wait_max_seconds) {
    return fail("expected rejected=N and/or waitMax=DURATION, e.g. \"rejected=0,waitMax=1s\"");
  }
  return out;
}

RecoveryBounds BoundsFromExpectations(const std::vector<Expectation>& expectations,
                                      const std::string& level) {
  RecoveryBounds out;
  // The tighter of two bounds on the same figure.
  auto tighten = [](std::optional<RecoveryBound>& into, RecoveryBound b) {
    if (!into || b.value < into->value || (b.value == into->value && b.strict)) into = b;
  };
  for (const Expectation& e : expectations) {
    if (e.section != "priorityLevels" || e.subject != level) continue;
    if (e.op != Expectation::Op::kLt && e.op != Expectation::Op::kLe &&
        e.op != Expectation::Op::kEq) {
      continue;  // not an upper bound: it says how bad the incident is, not what recovery is
    }
    const RecoveryBound b{e.value, e.op == Expectation::Op::kLt};
    for (int k = 0; k < kRejectionKinds; ++k) {
      if (e.field ==
          "rejected." + std::string(apf::RejectReasonName(static_cast<apf::RejectReason>(k)))) {
        tighten(out.rejected_by[k], b);
      }
    }
    if (e.field.rfind("waitSeconds.", 0) == 0) tighten(out.wait_max_seconds, b);
  }
  bool any = out.wait_max_seconds.has_value();
  for (const auto& b : out.rejected_by) any = any || b.has_value();
  if (!any) {
    out.rejected = RecoveryBound{0, false};
    out.source = "default";
  } else {
    out.source = "spec.expect";
  }
  return out;
}

RecoveryBounds RecoveryTracker::BoundsOf(const std::string& level) const {
  return spec_.bounds ? *spec_.bounds : BoundsFromExpectations(expectations_, level);
}

void RecoveryTracker::OnLevelRow(apf::Nanos start, const std::string& level, const LevelRow& row) {
  const apf::Nanos first = spec_.at - spec_.at % spec_.interval;
  if (start < first || start >= spec_.until) return;
  Interval& i = levels_[level][start];
  for (int k = 0; k < kRejectionKinds; ++k) i.rejected[k] += row.counters.rejected[k];
  if (row.waits && row.waits->count() > 0) i.wait_max = std::max(i.wait_max, row.waits->max());
}

nlohmann::json RecoveryTracker::Json() const {
  nlohmann::json levels = nlohmann::json::object();
  for (const auto& [name, intervals] : levels_) {
    const RecoveryBounds bounds = BoundsOf(name);
    // The last interval over the bounds, and what it measured.
    std::optional<apf::Nanos> last_over;
    std::uint64_t over_rejected = 0;
    apf::Nanos over_wait = 0;
    for (const auto& [start, i] : intervals) {
      std::uint64_t all = 0;
      bool under = true;
      for (int k = 0; k < kRejectionKinds; ++k) {
        all += i.rejected[k];
        if (bounds.rejected_by[k])
          under = under && bounds.rejected_by[k]->Holds(static_cast<double>(i.rejected[k]));
      }
      if (bounds.rejected) under = under && bounds.rejected->Holds(static_cast<double>(all));
      if (bounds.wait_max_seconds)
        under = under && bounds.wait_max_seconds->Holds(Seconds(i.wait_max));
      if (!under) last_over = start, over_rejected = all, over_wait = i.wait_max;
    }
    nlohmann::json lj = {{"bounds", bounds.Describe()}, {"boundsFrom", bounds.source}};
    const apf::Nanos recovered = last_over ? *last_over + spec_.interval : spec_.at;
    if (last_over && recovered >= spec_.until) {
      lj["recoveredAtSeconds"] = nullptr;
      lj["timeToRecoverSeconds"] = nullptr;
      lj["reason"] = fmt::format(
          "still over {} in the last interval before {} (from {} s: {} rejected, wait max {} s)",
          bounds.Describe(), spec_.until_next_event ? "the next event" : "the end of the run",
          Seconds(*last_over), over_rejected, Seconds(over_wait));
    } else {
      const apf::Nanos at = std::max(recovered, spec_.at);
      lj["recoveredAtSeconds"] = Seconds(at);
      lj["timeToRecoverSeconds"] = Seconds(at - spec_.at);
    }
    levels[name] = lj;
  }
  nlohmann::json j;
  j["event"] = spec_.event ? nlohmann::json(*spec_.event) : nlohmann::json(nullptr);
  j["atSeconds"] = Seconds(spec_.at);
  j["untilSeconds"] = Seconds(spec_.until);
  j["intervalSeconds"] = Seconds(spec_.interval);
  j["levels"] = levels;
  return j;
}

}  // namespace sim
