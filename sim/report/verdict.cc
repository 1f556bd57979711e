#include "sim/report/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/io/text.h"
#include "sim/report/replications.h"

namespace sim {
namespace {

// "1,126", or "1,126 ± 80" over seeds when they disagree; "10.9 s", "10.9 ± 0.4 s". The
// half interval takes the mean's precision, as compare's table gives it (MeanAndInterval):
// counts whole from 100 or when constant, else to one decimal; seconds as FigureText.
std::string Spread(const std::vector<double>& values, bool seconds) {
  const SampleStatistics st = Summarize(values);
  const double half = values.size() > 1 ? (st.ci95_hi - st.ci95_lo) / 2 : 0;
  const bool whole = std::fabs(st.mean) >= 100 || (half == 0 && st.mean == std::floor(st.mean));
  const int digits = seconds ? (std::fabs(st.mean) >= 1 ? 1 : 3) : whole ? 0 : 1;
  auto number = [&](double x) {
    return digits == 0 ? GroupThousands(std::llround(x)) : fmt::format("{:.{}f}", x, digits);
  };
  std::string text = number(st.mean);
  if (number(half) != number(0)) text += " ± " + number(half);
  return seconds ? text + " s" : text;
}

double Rejected(const nlohmann::json& level) {
  double sum = 0;
  for (const auto& [unused, v] : level.at("rejected").items()) sum += v.get<double>();
  return sum;
}

}  // namespace

std::string SideVerdict(const std::vector<const nlohmann::json*>& priority_levels) {
  // Each level's figures per seed, a level missing from a seed counting none there.
  std::map<std::string, std::vector<double>> rejected, waits;
  for (std::size_t i = 0; i < priority_levels.size(); ++i) {
    for (const auto& [name, level] : priority_levels[i]->items()) {
      rejected[name].resize(priority_levels.size(), 0);
      rejected[name][i] = Rejected(level);
      const nlohmann::json& wait =
          level.value(nlohmann::json::json_pointer("/waitSeconds/max"), nlohmann::json());
      if (wait.is_number()) waits[name].push_back(wait.get<double>());
    }
  }
  // The levels that rejected any, most first (by mean), then by name.
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [name, counts] : rejected) {
    if (std::any_of(counts.begin(), counts.end(), [](double c) { return c > 0; })) {
      order.emplace_back(-Summarize(counts).mean, name);
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> parts;
  for (const auto& [unused, name] : order) {
    parts.push_back(fmt::format("{} {} rejected", name, Spread(rejected[name], false)));
  }
  if (parts.empty()) parts.push_back("none rejected");
  // The worst wait: the level with the largest mean wait max (the first by name on a tie).
  const std::string* worst = nullptr;
  double worst_mean = 0;
  for (const auto& [name, w] : waits) {
    const double mean = Summarize(w).mean;
    if (mean > worst_mean) {
      worst = &name;
      worst_mean = mean;
    }
  }
  parts.push_back(worst ? fmt::format("wait max {} in {}", Spread(waits[*worst], true), *worst)
                        : "no queue wait");
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string VerdictLine(const nlohmann::json& c) {
  const std::string seeds =
      c.contains("seeds") ? fmt::format("{} seeds, mean ± half its 95% interval", c["seeds"].size())
                          : fmt::format("seed {}", c["seed"].dump());
  return fmt::format("before: {}; after: {} ({})", c["before"].value("verdict", "?"),
                     c["after"].value("verdict", "?"), seeds);
}

}  // namespace sim
