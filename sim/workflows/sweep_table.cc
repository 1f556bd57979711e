#include "sim/workflows/sweep_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "sim/report/replications.h"

namespace sim {
namespace {

// Where a level's manifest path starts inside a --set path (loader.cc accepts the field
// by its short name or by its path in the manifest, from any of these).
constexpr const char* kManifestMarkers[] = {".spec.",
                                            ".limited.",
                                            ".exempt.",
                                            ".limitResponse.",
                                            ".priorityLevelConfiguration.",
                                            ".distinguisherMethod."};

// The table stays within this many characters, as wide terminals are.
constexpr std::size_t kMaxWidth = 120;

struct Figure {
  std::string object;  // the level or client
  std::string name;    // "rejected", "wait p99", ...
  bool seconds = false;
  // Per row: the figure's statistics over the point's seeds (StatisticsJson; one value
  // without --seeds), null where no seed has it.
  std::vector<nlohmann::json> values;
  // The figure shown beside this one and moved with it (a level's wait p99 beside its wait
  // max), or -1; a figure that is some other's companion is never ranked on its own.
  int companion = -1;
  bool is_companion = false;
};

std::optional<double> At(const nlohmann::json& entry, const char* pointer) {
  const nlohmann::json v = entry.value(nlohmann::json::json_pointer(pointer), nlohmann::json());
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

// The mean over the seeds of a row, or nothing.
std::optional<double> Mean(const nlohmann::json& statistics) {
  if (!statistics.is_object()) return std::nullopt;
  return statistics["mean"].get<double>();
}

// Each candidate figure of every level and client any run has, by name.
std::vector<Figure> Candidates(const std::vector<std::vector<nlohmann::json>>& runs) {
  std::set<std::string> levels, clients;
  for (const auto& seeds : runs) {
    for (const nlohmann::json& s : seeds) {
      for (auto& [name, unused] : s.at("priorityLevels").items()) levels.insert(name);
      for (auto& [name, unused] : s.at("clients").items()) clients.insert(name);
    }
  }
  std::vector<Figure> figures;
  auto add = [&](const char* section, const std::string& object, const char* name, bool seconds,
                 auto value_of) {
    Figure f{object, name, seconds, {}};
    for (const auto& seeds : runs) {
      std::vector<nlohmann::json> sample;
      for (const nlohmann::json& s : seeds) {
        const nlohmann::json& entries = s.at(section);
        const std::optional<double> v =
            entries.contains(object) ? value_of(entries.at(object)) : std::nullopt;
        // Counts stay integers, so that their mean prints as a count (MeanAndInterval).
        sample.push_back(!v        ? nlohmann::json()
                         : seconds ? nlohmann::json(*v)
                                   : nlohmann::json(static_cast<std::int64_t>(*v)));
      }
      f.values.push_back(StatisticsJson(sample));
    }
    figures.push_back(std::move(f));
  };
  for (const std::string& l : levels) {
    add("priorityLevels", l, "rejected", false, [](const nlohmann::json& e) {
      std::optional<double> sum;
      for (const char* p :
           {"/rejected/queue-full", "/rejected/time-out", "/rejected/concurrency-limit"}) {
        if (const auto v = At(e, p)) sum = sum.value_or(0) + *v;
      }
      return sum;
    });
    // A burst's waits hide under a whole-run p99 of 0: the max is what shows the incident,
    // so the wait ranks by its max and the p99 is shown beside it (as compare's table does).
    add("priorityLevels", l, "wait p99", true,
        [](const nlohmann::json& e) { return At(e, "/waitSeconds/p99"); });
    add("priorityLevels", l, "wait max", true,
        [](const nlohmann::json& e) { return At(e, "/waitSeconds/max"); });
    figures[figures.size() - 2].is_companion = true;
    figures.back().companion = static_cast<int>(figures.size()) - 2;
  }
  for (const std::string& c : clients) {
    add("clients", c, "429s", false, [](const nlohmann::json& e) { return At(e, "/http429"); });
    add("clients", c, "lat p99", true,
        [](const nlohmann::json& e) { return At(e, "/latencySeconds/p99"); });
  }
  return figures;
}

// How much a figure's mean moves across the grid, relative to its size: 0 when it does not
// (the summary's seconds are rounded to the millisecond, so a smaller change is noise).
double Spread(const Figure& f) {
  std::optional<double> lo, hi;
  for (const auto& st : f.values) {
    const std::optional<double> v = Mean(st);
    if (!v) continue;
    lo = std::min(lo.value_or(*v), *v);
    hi = std::max(hi.value_or(*v), *v);
  }
  if (!lo || *hi - *lo < (f.seconds ? 0.001 : 0.5)) return 0;
  return (*hi - *lo) / std::max(std::fabs(*hi), std::fabs(*lo));
}

// The characters `s` takes on a terminal: its UTF-8 code points ("±" is two bytes).
std::size_t DisplayWidth(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

// The mean and, over seeds that disagree, "±" half its 95% interval, as compare and the
// run table over seeds print them.
std::string Cell(const Figure& f, std::size_t row) {
  return MeanAndInterval(f.values[row], f.seconds);
}

}  // namespace

std::pair<std::string, std::string> ReadableSetPath(const std::string& path) {
  for (const std::string prefix : {"flowControl.priorityLevels.", "flowControl.flowSchemas."}) {
    if (path.rfind(prefix, 0) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    std::size_t cut = std::string::npos;
    for (const char* marker : kManifestMarkers) cut = std::min(cut, rest.find(marker));
    if (cut == std::string::npos) cut = rest.rfind('.');
    if (cut == std::string::npos) break;
    return {rest.substr(0, cut), rest.substr(rest.rfind('.') + 1)};
  }
  const std::size_t dot = path.find('.');
  if (path.rfind("clients.", 0) == 0 && path.find('.', 8) != std::string::npos) {
    const std::size_t end = path.find('.', 8);
    return {path.substr(8, end - 8), path.substr(end + 1)};
  }
  if (dot == std::string::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

std::string SweepTable(const std::vector<SweepAxis>& axes,
                       const std::vector<std::vector<std::string>>& grid,
                       const std::vector<std::size_t>& indices,
                       const std::vector<nlohmann::json>& summaries, std::size_t max_figures) {
  std::vector<std::vector<nlohmann::json>> runs;
  for (const nlohmann::json& s : summaries) runs.push_back({s});
  return SweepTable(axes, grid, indices, runs, max_figures);
}

std::string SweepTable(const std::vector<SweepAxis>& axes,
                       const std::vector<std::vector<std::string>>& grid,
                       const std::vector<std::size_t>& indices,
                       const std::vector<std::vector<nlohmann::json>>& runs,
                       std::size_t max_figures) {
  std::vector<Figure> candidates = Candidates(runs);
  std::vector<std::pair<double, std::size_t>> ranked;  // (spread, candidate), moving ones
  std::size_t moving = 0;                              // figures that moved, companions too
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Figure& f = candidates[i];
    if (f.is_companion) continue;
    // A wait ranks by its max; only when the max stays put does the p99's own move count.
    double spread = Spread(f);
    if (spread == 0 && f.companion >= 0) spread = Spread(candidates[f.companion]);
    if (spread > 0) {
      ranked.emplace_back(spread, i);
      moving += f.companion >= 0 ? 2 : 1;
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  // The most moving first, as many as fit the width (the first always does).
  auto width_of = [](const std::vector<std::string>& cells) {
    std::size_t width = 0;
    for (const std::string& cell : cells) width = std::max(width, DisplayWidth(cell));
    return width + 2;  // and the gap before the next column
  };
  std::size_t width = 0;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const auto [object, field] = ReadableSetPath(axes[a].path);
    std::vector<std::string> cells = {object, field};
    for (std::size_t i : indices) cells.push_back(grid[i][a]);
    width += width_of(cells);
  }
  auto column_width = [&](std::size_t c) {
    std::vector<std::string> cells = {candidates[c].object, candidates[c].name};
    for (std::size_t row = 0; row < indices.size(); ++row)
      cells.push_back(Cell(candidates[c], row));
    return width_of(cells);
  };
  std::vector<std::size_t> shown;
  for (const auto& [unused, c] : ranked) {
    const int companion = candidates[c].companion;
    const std::size_t columns = companion >= 0 ? 2 : 1;
    if (!shown.empty() && shown.size() + columns > max_figures) continue;
    const std::size_t w = column_width(c) + (companion >= 0 ? column_width(companion) : 0);
    if (!shown.empty() && width + w > kMaxWidth) continue;
    width += w;
    shown.push_back(c);
    if (companion >= 0) shown.push_back(static_cast<std::size_t>(companion));
  }
  // Shown in the candidates' order, so that a level's or a client's figures sit together.
  std::sort(shown.begin(), shown.end());

  // Two header lines (the object, then the field or figure) over one column each.
  std::vector<std::vector<std::string>> columns;  // header 1, header 2, then one per row
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const auto [object, field] = ReadableSetPath(axes[a].path);
    std::vector<std::string> column = {object, field};
    for (std::size_t i : indices) column.push_back(grid[i][a]);
    columns.push_back(std::move(column));
  }
  for (std::size_t c : shown) {
    std::vector<std::string> column = {candidates[c].object, candidates[c].name};
    for (std::size_t row = 0; row < indices.size(); ++row)
      column.push_back(Cell(candidates[c], row));
    columns.push_back(std::move(column));
  }
  std::string out;
  const std::size_t lines = 2 + indices.size();
  for (std::size_t line = 0; line < lines; ++line) {
    std::string text;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::size_t width = 0;
      for (const std::string& cell : columns[c]) width = std::max(width, DisplayWidth(cell));
      // The varied values read left-aligned, as labels; the figures right-aligned.
      text += c < axes.size() ? fmt::format("{:<{}}", columns[c][line], width)
                              : fmt::format("{:>{}}", columns[c][line], width);
      if (c + 1 < columns.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  if (moving == 0) {
    out += "no rejection, wait, 429 or latency p99 changed across the grid\n";
  } else if (moving > shown.size()) {
    out += fmt::format("the {} of {} figures that changed most; sweep.csv has every figure\n",
                       shown.size(), moving);
  }
  return out;
}

}  // namespace sim
