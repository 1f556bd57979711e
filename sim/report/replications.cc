#include "sim/report/replications.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <initializer_list>

#include "sim/io/text.h"
#include "sim/report/reference_figures.h"

namespace sim {
namespace {

// P(|T| < t) for Student's t with `dof` degrees of freedom: Abramowitz and Stegun 26.7.3
// (odd) and 26.7.4 (even), with theta = atan(t / sqrt(dof)).
double TwoSidedCoverage(double t, int dof) {
  const double theta = std::atan(t / std::sqrt(static_cast<double>(dof)));
  const double s = std::sin(theta), c = std::cos(theta), c2 = c * c;
  double sum = 0;
  if (dof % 2 == 1) {
    // cos + (2/3) cos^3 + (2*4)/(3*5) cos^5 + ... up to cos^(dof-2)
    double term = c;
    for (int power = 1; power <= dof - 2; power += 2) {
      sum += term;
      term *= c2 * static_cast<double>(power + 1) / static_cast<double>(power + 2);
    }
    return 2.0 / M_PI * (theta + s * sum);
  }
  // 1 + (1/2) cos^2 + (1*3)/(2*4) cos^4 + ... up to cos^(dof-2)
  double term = 1;
  for (int power = 0; power <= dof - 2; power += 2) {
    sum += term;
    term *= c2 * static_cast<double>(power + 1) / static_cast<double>(power + 2);
  }
  return s * sum;
}

bool AllOf(const std::vector<const nlohmann::json*>& values, bool (*test)(const nlohmann::json*)) {
  return std::all_of(values.begin(), values.end(), test);
}

// One node of the tree over the seeds; null pointers are seeds without the key.
nlohmann::json Merge(const std::vector<const nlohmann::json*>& values) {
  bool any_number = false, any_object = false, any_array = false;
  for (const nlohmann::json* v : values) {
    if (!v) continue;
    any_number = any_number || v->is_number();
    any_object = any_object || v->is_object();
    any_array = any_array || v->is_array();
  }
  const bool numbers_or_absent =
      AllOf(values, [](const nlohmann::json* v) { return !v || v->is_number() || v->is_null(); });
  if (any_number && numbers_or_absent) {
    std::vector<nlohmann::json> sample;
    for (const nlohmann::json* v : values) sample.push_back(v ? *v : nlohmann::json(0));
    return StatisticsJson(sample);
  }
  if (any_object && AllOf(values, [](const nlohmann::json* v) { return !v || v->is_object(); })) {
    std::vector<std::string> keys;
    for (const nlohmann::json* v : values) {
      if (!v) continue;
      for (auto& [key, unused] : v->items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      }
    }
    nlohmann::json out = nlohmann::json::object();
    for (const std::string& key : keys) {
      std::vector<const nlohmann::json*> children;
      for (const nlohmann::json* v : values) {
        children.push_back(v && v->contains(key) ? &(*v)[key] : nullptr);
      }
      out[key] = Merge(children);
    }
    return out;
  }
  if (any_array && values[0] && values[0]->is_array()) {
    const std::size_t size = values[0]->size();
    const bool same_size = AllOf(values, [](const nlohmann::json* v) { return v != nullptr; }) &&
                           std::all_of(values.begin(), values.end(), [&](const nlohmann::json* v) {
                             return v->is_array() && v->size() == size;
                           });
    if (same_size) {
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t i = 0; i < size; ++i) {
        std::vector<const nlohmann::json*> children;
        for (const nlohmann::json* v : values) children.push_back(&(*v)[i]);
        out.push_back(Merge(children));
      }
      return out;
    }
  }
  const bool all_equal =
      values[0] && std::all_of(values.begin(), values.end(),
                               [&](const nlohmann::json* v) { return v && *v == *values[0]; });
  if (all_equal) return *values[0];
  nlohmann::json list = nlohmann::json::array();
  for (const nlohmann::json* v : values) list.push_back(v ? *v : nlohmann::json());
  return {{"values", list}};
}

std::size_t DisplayWidth(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;  // count UTF-8 code points
  return w;
}

// Rows of cells as columns, the first left-aligned and the others right-aligned, as
// RunReport::SummaryTable sets them; the first row is the header.
std::string Columns(const std::vector<std::vector<std::string>>& rows, bool colour) {
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      const std::string pad(widths[c] - DisplayWidth(rows[r][c]), ' ');
      line += c == 0 ? rows[r][c] + pad : " " + pad + rows[r][c];
    }
    out += (r == 0 && colour ? "\033[1m" + line + "\033[0m" : line) + "\n";
  }
  return out;
}

}  // namespace

double StudentT975(int dof) {
  assert(dof >= 1);
  double lo = 0, hi = 1000;  // t(0.975, 1) is 12.7: far inside
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = (lo + hi) / 2;
    (TwoSidedCoverage(mid, dof) < 0.95 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

SampleStatistics Summarize(const std::vector<double>& values) {
  assert(!values.empty());
  SampleStatistics s;
  s.n = values.size();
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  s.ci95_lo = s.ci95_hi = s.mean;
  if (s.n < 2) return s;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  const double half =
      StudentT975(static_cast<int>(s.n - 1)) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.ci95_lo = s.mean - half;
  s.ci95_hi = s.mean + half;
  return s;
}

nlohmann::json StatisticsJson(const std::vector<nlohmann::json>& values) {
  std::vector<double> numbers;
  for (const nlohmann::json& v : values) {
    if (v.is_number()) numbers.push_back(v.get<double>());
  }
  if (numbers.empty()) return nullptr;
  const SampleStatistics s = Summarize(numbers);
  return {{"mean", Round6(s.mean)},
          {"stddev", Round6(s.stddev)},
          {"ci95", {Round6(s.ci95_lo), Round6(s.ci95_hi)}},
          {"min", s.min},
          {"max", s.max},
          {"values", values}};
}

nlohmann::json ReplicationsJson(const std::vector<nlohmann::json>& summaries,
                                const std::vector<std::uint64_t>& seeds) {
  assert(!summaries.empty() && summaries.size() == seeds.size());
  // "reference" is not merged figure by figure: whether the run differs is the mean's
  // verdict, and a figure's "line" is in the seeds that differ only.
  std::vector<const nlohmann::json*> originals;
  for (const nlohmann::json& s : summaries) originals.push_back(&s);
  const nlohmann::json reference = ReferenceOverSeeds(originals);
  std::vector<nlohmann::json> without_seed = summaries;
  for (nlohmann::json& s : without_seed) {
    s.erase("seed");
    s.erase("reference");
  }
  std::vector<const nlohmann::json*> values;
  for (const nlohmann::json& s : without_seed) values.push_back(&s);
  nlohmann::json out = Merge(values);
  out["seeds"] = seeds;
  if (!reference.is_null()) out["reference"] = reference;
  return out;
}

std::string FormatSeeds(const std::vector<std::uint64_t>& seeds) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < seeds.size();) {
    std::size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    if (j >= i + 2) {
      parts.push_back(fmt::format("{}..{}", seeds[i], seeds[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) parts.push_back(std::to_string(seeds[k]));
    }
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string MeanAndInterval(const nlohmann::json& st, bool seconds, bool interval) {
  if (!st.is_object() || !st.contains("mean")) return "-";
  const double mean = st["mean"].get<double>();
  const double half = (st["ci95"][1].get<double>() - st["ci95"][0].get<double>()) / 2;
  const bool whole = std::all_of(st["values"].begin(), st["values"].end(), [](const auto& v) {
    return !v.is_number() || v.is_number_integer();
  });
  // Counts print whole when large or constant, other figures with a decimal; seconds to
  // the millisecond. The half interval takes the mean's precision.
  const bool point = half == 0 && mean == std::floor(mean);
  const int digits = seconds ? 3 : whole && (std::fabs(mean) >= 100 || point) ? 0 : 1;
  auto number = [&](double x) { return fmt::format("{:.{}f}", x, digits); };
  std::string text = number(mean);
  if (interval && number(half) != number(0)) text += "±" + number(half);
  return seconds ? text + "s" : text;
}

namespace {

// The node at `path` below `j`, or null where a key is missing: a window's figures hold
// fewer keys than the whole run's, and a client story's keys only where they apply.
const nlohmann::json& At(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json kMissing;
  const nlohmann::json* node = &j;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return kMissing;
    node = &(*node)[key];
  }
  return *node;
}

}  // namespace

std::string ReplicationsTable(const nlohmann::json& r, bool colour) {
  const std::vector<std::uint64_t> seeds = r["seeds"].get<std::vector<std::uint64_t>>();
  const nlohmann::json& duration = r["durationSeconds"];
  std::string title = fmt::format(
      "{} (seeds {}, {} s simulated; each figure the mean over the seeds ± half its 95% "
      "interval)",
      r["scenario"].is_string() ? r["scenario"].get<std::string>() : "?", FormatSeeds(seeds),
      duration.is_object() ? duration["mean"].get<double>() : 0.0);
  // With --window the tables are the window's, as `apfsim run --window` prints them.
  const bool windowed = r.contains("window") && r["window"].is_object();
  const nlohmann::json& figures = windowed ? r["window"] : r;
  if (windowed) {
    title += fmt::format("\nover the window [{} s, {} s)",
                         MeanAndInterval(At(figures, {"fromSeconds"}), false, false),
                         MeanAndInterval(At(figures, {"toSeconds"}), false, false));
  }
  std::string out = (colour ? "\033[1m" + title + "\033[0m" : title) + "\n";
  for (const std::string& line : ReferenceDifferences(r.value("reference", nlohmann::json())))
    out += "reference: " + line + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> levels = {{"priority level", "nominal", "mean cur", "peak",
                                                   "dispatch", "queue-full", "time-out", "conc-lim",
                                                   "wait p50", "wait p99", "wait max"}};
  std::vector<std::pair<double, std::string>> order;
  for (auto& [name, l] : r["priorityLevels"].items()) {
    order.emplace_back(l["nominalCL"].is_object() ? -l["nominalCL"]["mean"].get<double>() : 0,
                       name);
  }
  std::sort(order.begin(), order.end());
  for (auto& [unused, name] : order) {
    const nlohmann::json& l = At(figures, {"priorityLevels", name.c_str()});
    if (l.is_null()) continue;
    // Limits are the whole run's: a window holds only what happened in it.
    const nlohmann::json& whole = r["priorityLevels"][name];
    // A MaxInFlight pool of limit 0 is unlimited (summary.json's "unlimited").
    const bool no_limit = whole.value("unlimited", false);
    levels.push_back({name, no_limit ? "-" : MeanAndInterval(At(whole, {"nominalCL"}), false),
                      no_limit ? "-" : MeanAndInterval(At(whole, {"meanCurrentCL"}), false),
                      MeanAndInterval(At(l, {"peakExecutingSeats"}), false),
                      MeanAndInterval(At(l, {"dispatched"}), false),
                      MeanAndInterval(At(l, {"rejected", "queue-full"}), false),
                      MeanAndInterval(At(l, {"rejected", "time-out"}), false),
                      MeanAndInterval(At(l, {"rejected", "concurrency-limit"}), false),
                      MeanAndInterval(At(l, {"waitSeconds", "p50"}), true),
                      MeanAndInterval(At(l, {"waitSeconds", "p99"}), true),
                      MeanAndInterval(At(l, {"waitSeconds", "max"}), true)});
  }
  out += Columns(levels, colour) + "\n";
  // Each client's story, the columns `apfsim run` prints: distinct calls rejected beside
  // the 429 attempts, APF queue wait apart from client-side throttling, a closed loop's
  // pass, and the calls still unanswered at the end.
  std::vector<std::vector<std::string>> clients = {{"client", "calls", "rejected", "429s", "failed",
                                                    "lat p99", "queue p99", "throt p99", "iter p99",
                                                    "pending"}};
  for (auto& [name, unused] : r["clients"].items()) {
    const nlohmann::json& c = At(figures, {"clients", name.c_str()});
    if (c.is_null()) continue;
    clients.push_back({name, MeanAndInterval(At(c, {"calls"}), false),
                       MeanAndInterval(At(c, {"callsRejected"}), false),
                       MeanAndInterval(At(c, {"http429"}), false),
                       MeanAndInterval(At(c, {"failed"}), false),
                       MeanAndInterval(At(c, {"latencySeconds", "p99"}), true),
                       MeanAndInterval(At(c, {"queueWaitSeconds", "p99"}), true),
                       MeanAndInterval(At(c, {"throttleWaitSeconds", "p99"}), true),
                       MeanAndInterval(At(c, {"iterationSeconds", "p99"}), true),
                       MeanAndInterval(At(c, {"pendingAtEnd"}), false)});
  }
  out += Columns(clients, colour);
  // The time to recover from the first event (sim/report/recovery.h), over the seeds that
  // recovered; a seed that never did is null there and left out.
  if (r.contains("recovery")) {
    const nlohmann::json& rec = r["recovery"];
    out += fmt::format("\nrecovery from the event at {} s (over the seeds that recovered)\n",
                       MeanAndInterval(rec["atSeconds"], false, false));
    std::vector<std::vector<std::string>> levels = {
        {"priority level", "time to recover", "never recovered in"}};
    for (auto& [name, l] : rec["levels"].items()) {
      std::size_t never = 0;
      const nlohmann::json& ttr = l["timeToRecoverSeconds"];
      if (ttr.is_object() && ttr.contains("values")) {
        for (const auto& v : ttr["values"]) never += v.is_null();
      } else if (ttr.is_null()) {
        never = seeds.size();
      }
      levels.push_back(
          {name, MeanAndInterval(ttr, true), fmt::format("{} of {} seeds", never, seeds.size())});
    }
    out += Columns(levels, colour);
  }
  return out;
}

}  // namespace sim
