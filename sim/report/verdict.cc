#include "sim/report/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/io/text.h"
#include "sim/report/replications.h"

namespace sim {
namespace {

// "1,126", or "1,126 ± 80" over seeds when they disagree; `seconds` as FigureText.
std::string Spread(const std::vector<double>& values, bool seconds) {
  const SampleStatistics st = Summarize(values);
  std::string text = FigureText(st.mean, seconds);
  const double half = (st.ci95_hi - st.ci95_lo) / 2;
  std::string half_text = FigureText(half, seconds);
  if (values.size() > 1 && half_text != FigureText(0, seconds)) {
    if (seconds) {  // "10.9 ± 0.4 s": the unit once
      text = text.substr(0, text.size() - 2);
      half_text = half_text.substr(0, half_text.size() - 2) + " s";
    }
    text += " ± " + half_text;
  }
  return text;
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
