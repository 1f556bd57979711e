#include "sim/workflows/compare.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "sim/io/input_error.h"
#include "sim/io/output_file.h"
#include "sim/io/output_set.h"
#include "sim/io/text.h"
#include "sim/report/client_moves.h"
#include "sim/report/reference_figures.h"
#include "sim/report/replications.h"
#include "sim/report/verdict.h"
#include "sim/workflows/provenance.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "sim/workflows/run_inputs.h"

namespace sim {
namespace {

namespace fs = std::filesystem;

// A compared figure: its name in compare.json, where it is in a summary entry, and
// whether less of it is better (nullopt: neither, e.g. a limit).
struct Figure {
  const char* name;
  const char* pointer;
  std::optional<bool> lower_is_better;
};

const std::vector<Figure>& LevelFigures() {
  static const std::vector<Figure> kFigures = {
      {"nominalCL", "/nominalCL", std::nullopt},
      {"meanCurrentCL", "/meanCurrentCL", std::nullopt},
      {"peakExecutingSeats", "/peakExecutingSeats", std::nullopt},
      {"dispatched", "/dispatched", false},
      {"rejected", "", true},  // the three reasons summed
      {"rejectedQueueFull", "/rejected/queue-full", true},
      {"rejectedTimeOut", "/rejected/time-out", true},
      {"rejectedConcurrencyLimit", "/rejected/concurrency-limit", true},
      {"waitP50Seconds", "/waitSeconds/p50", true},
      {"waitP99Seconds", "/waitSeconds/p99", true},
      {"waitMaxSeconds", "/waitSeconds/max", true}};
  return kFigures;
}

const std::vector<Figure>& ClientFigures() {
  static const std::vector<Figure> kFigures = {
      {"calls", "/calls", std::nullopt},
      {"attempts", "/attempts", true},
      {"succeeded", "/succeeded", false},
      {"failed", "/failed", true},
      {"http429", "/http429", true},
      {"callsRejected", "/callsRejected", true},
      {"latencyP50Seconds", "/latencySeconds/p50", true},
      {"latencyP99Seconds", "/latencySeconds/p99", true},
      {"latencyMaxSeconds", "/latencySeconds/max", true},
      {"queueWaitP99Seconds", "/queueWaitSeconds/p99", true},
      {"throttleWaitP99Seconds", "/throttleWaitSeconds/p99", true},
      {"iterationP99Seconds", "/iterationSeconds/p99", true}};
  return kFigures;
}

// A level's recovery (summary.json's recovery.levels.NAME): null when it never recovered.
const std::vector<Figure>& RecoveryFigures() {
  static const std::vector<Figure> kFigures = {
      {"timeToRecoverSeconds", "/timeToRecoverSeconds", true},
      {"recoveredAtSeconds", "/recoveredAtSeconds", true}};
  return kFigures;
}

// compare.json's "recovery" when either side measured one (a run with spec.events; the
// other measured from the same instant): {"atSeconds", "levels"}, each level's figures as
// the others are, and over seeds "neverRecoveredIn": {"before": N, "after": M}, the seeds in
// which the level never recovered (left out of the statistics, as null is).
const nlohmann::json* RecoveryOf(const nlohmann::json& summary) {
  return summary.contains("recovery") ? &summary.at("recovery") : nullptr;
}

nlohmann::json FigureOf(const nlohmann::json& entry, const Figure& f) {
  if (entry.is_null()) return nullptr;
  if (std::string(f.pointer).empty()) {
    std::uint64_t sum = 0;
    for (auto& [unused, v] : entry.at("rejected").items()) sum += v.get<std::uint64_t>();
    return sum;
  }
  return entry.value(nlohmann::json::json_pointer(f.pointer), nlohmann::json());
}

nlohmann::json Change(const nlohmann::json& before, const nlohmann::json& after) {
  if (!before.is_number() || !after.is_number()) return nullptr;
  if (before.is_number_integer() && after.is_number_integer()) {
    return after.get<std::int64_t>() - before.get<std::int64_t>();
  }
  return Round6(after.get<double>() - before.get<double>());
}

nlohmann::json CompareGroup(const nlohmann::json& before, const nlohmann::json& after,
                            const std::vector<Figure>& figures) {
  nlohmann::json out = nlohmann::json::object();
  std::vector<std::string> names;
  for (auto& [name, unused] : before.items()) names.push_back(name);
  for (auto& [name, unused] : after.items()) {
    if (!before.contains(name)) names.push_back(name);
  }
  for (const std::string& name : names) {
    const nlohmann::json b = before.contains(name) ? before[name] : nlohmann::json();
    const nlohmann::json a = after.contains(name) ? after[name] : nlohmann::json();
    nlohmann::json entry = nlohmann::json::object();
    for (const Figure& f : figures) {
      const nlohmann::json fb = FigureOf(b, f), fa = FigureOf(a, f);
      entry[f.name] = {{"before", fb}, {"after", fa}, {"change", Change(fb, fa)}};
    }
    out[name] = entry;
  }
  return out;
}

nlohmann::json CompareGroupOverSeeds(const std::vector<const nlohmann::json*>& befores,
                                     const std::vector<const nlohmann::json*>& afters,
                                     const std::vector<Figure>& figures) {
  nlohmann::json out = nlohmann::json::object();
  std::vector<std::string> names;
  for (const auto* side : {&befores, &afters}) {
    for (const nlohmann::json* group : *side) {
      for (auto& [name, unused] : group->items()) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
  }
  for (const std::string& name : names) {
    nlohmann::json entry = nlohmann::json::object();
    for (const Figure& f : figures) {
      std::vector<nlohmann::json> fb, fa, changes;
      int better = 0, worse = 0;
      for (std::size_t i = 0; i < befores.size(); ++i) {
        const nlohmann::json& b = befores[i]->contains(name) ? (*befores[i])[name] : nullptr;
        const nlohmann::json& a = afters[i]->contains(name) ? (*afters[i])[name] : nullptr;
        fb.push_back(FigureOf(b, f));
        fa.push_back(FigureOf(a, f));
        changes.push_back(Change(fb.back(), fa.back()));
        if (f.lower_is_better && changes.back().is_number()) {
          const double d = changes.back().get<double>();
          if (d != 0) ((d < 0) == *f.lower_is_better ? better : worse) += 1;
        }
      }
      nlohmann::json figure = {{"before", StatisticsJson(fb)},
                               {"after", StatisticsJson(fa)},
                               {"change", StatisticsJson(changes)}};
      if (f.lower_is_better) {
        figure["betterIn"] = better;
        figure["worseIn"] = worse;
      }
      entry[f.name] = figure;
    }
    out[name] = entry;
  }
  return out;
}

std::string Number(const nlohmann::json& v, bool seconds) {
  if (v.is_null()) return "-";
  if (seconds) return fmt::format("{:.3f}s", v.get<double>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return fmt::format("{:.1f}", v.get<double>());
}

std::size_t DisplayWidth(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;  // count UTF-8 code points
  return w;
}

std::string PadRight(const std::string& s, std::size_t width) {
  return s + std::string(width > DisplayWidth(s) ? width - DisplayWidth(s) : 0, ' ');
}

struct Cell {
  std::string text;
  int tone = 0;  // -1 worse, +1 better
};

// A figure over seeds: the means before and after, and the paired change.
Cell FigureCellOverSeeds(const nlohmann::json& fig, const Figure& f, bool seconds) {
  const std::string b = MeanAndInterval(fig["before"], seconds, false);
  const std::string a = MeanAndInterval(fig["after"], seconds, false);
  const nlohmann::json& d = fig["change"];
  Cell cell;
  if (b == a && (d.is_null() || d["ci95"][0] == d["ci95"][1])) {
    cell.text = b;
    return cell;
  }
  cell.text = fmt::format("{} → {}", b, a);
  if (d.is_null()) return cell;
  const double lo = d["ci95"][0].get<double>(), hi = d["ci95"][1].get<double>();
  if (lo <= 0 && hi >= 0) {
    cell.text += " (no clear change)";
    return cell;
  }
  const double change = d["mean"].get<double>();
  cell.text += fmt::format(" ({}{})", change > 0 ? "+" : "", MeanAndInterval(d, seconds));
  if (f.lower_is_better) cell.tone = (change < 0) == *f.lower_is_better ? 1 : -1;
  return cell;
}

Cell FigureCell(const nlohmann::json& fig, const Figure& f, bool seconds) {
  if (fig["before"].is_object() || fig["after"].is_object()) {
    return FigureCellOverSeeds(fig, f, seconds);
  }
  const nlohmann::json& b = fig["before"];
  const nlohmann::json& a = fig["after"];
  const nlohmann::json& d = fig["change"];
  Cell cell;
  if (Number(b, seconds) == Number(a, seconds)) {  // equal as shown: one figure
    cell.text = Number(b, seconds);
    return cell;
  }
  cell.text = fmt::format("{} → {}", Number(b, seconds), Number(a, seconds));
  if (!d.is_null()) {
    const double change = d.get<double>();
    std::string delta = Number(d, seconds);
    cell.text += fmt::format(" ({}{})", change > 0 ? "+" : "", delta);
    if (f.lower_is_better && change != 0) cell.tone = (change < 0) == *f.lower_is_better ? 1 : -1;
  }
  return cell;
}

// One table section: a row per entity, a column per figure.
std::string Section(const std::string& title, const nlohmann::json& group,
                    const std::vector<std::string>& order, const std::vector<Figure>& all,
                    const std::vector<std::pair<std::string, std::string>>& shown, bool colour) {
  std::vector<std::string> headers = {title};
  for (const auto& [unused, label] : shown) headers.push_back(label);
  std::vector<std::vector<Cell>> rows;
  for (const std::string& name : order) {
    std::vector<Cell> row = {{name, 0}};
    for (const auto& shown_figure : shown) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const std::string& figure = shown_figure.first;
      const Figure& f =
          *std::find_if(all.begin(), all.end(), [&](const Figure& x) { return figure == x.name; });
      row.push_back(
          FigureCell(group[name][figure], f, figure.find("Seconds") != std::string::npos));
    }
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(headers.size());
  for (std::size_t c = 0; c < headers.size(); ++c) {
    widths[c] = DisplayWidth(headers[c]);
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c].text));
  }
  auto paint = [&](const std::string& text, const char* code) {
    return colour ? fmt::format("{}{}\033[0m", code, text) : text;
  };
  std::string out;
  std::string header_line;
  for (std::size_t c = 0; c < headers.size(); ++c) {
    header_line += PadRight(headers[c], widths[c] + (c + 1 < headers.size() ? 2 : 0));
  }
  while (!header_line.empty() && header_line.back() == ' ') header_line.pop_back();
  out += paint(header_line, "\033[1m") + "\n";
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string padded = PadRight(row[c].text, widths[c] + (c + 1 < row.size() ? 2 : 0));
      line += row[c].tone > 0   ? paint(padded, "\033[32m")
              : row[c].tone < 0 ? paint(padded, "\033[31m")
                                : padded;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

nlohmann::json CompareSummaries(const nlohmann::json& before, const nlohmann::json& after) {
  nlohmann::json j;
  j["before"] = {{"scenario", before.at("scenario")}};
  j["after"] = {{"scenario", after.at("scenario")}};
  for (const auto* side : {&before, &after}) {
    if (side->contains("provenance")) {
      j[side == &before ? "before" : "after"]["provenance"] = side->at("provenance");
    }
  }
  j["seed"] = before.at("seed");
  // With --window both runs' figures are their windows'.
  const bool windowed = before.contains("window") && after.contains("window");
  const nlohmann::json& b = windowed ? before.at("window") : before;
  const nlohmann::json& a = windowed ? after.at("window") : after;
  if (windowed) {
    j["window"] = {{"fromSeconds", b.at("fromSeconds")}, {"toSeconds", b.at("toSeconds")}};
  }
  j["before"]["verdict"] = SideVerdict({&b.at("priorityLevels")});
  j["after"]["verdict"] = SideVerdict({&a.at("priorityLevels")});
  for (const auto* side : {&before, &after}) {
    if (side->contains("reference")) {
      j[side == &before ? "before" : "after"]["reference"] = side->at("reference");
    }
  }
  j["verdictLine"] = VerdictLine(j);
  j["priorityLevels"] =
      CompareGroup(b.at("priorityLevels"), a.at("priorityLevels"), LevelFigures());
  j["clients"] = CompareGroup(b.at("clients"), a.at("clients"), ClientFigures());
  const nlohmann::json *rb = RecoveryOf(before), *ra = RecoveryOf(after);
  if (rb || ra) {
    const nlohmann::json none = nlohmann::json::object();
    j["recovery"] = {{"atSeconds", (ra ? *ra : *rb).at("atSeconds")},
                     {"levels", CompareGroup(rb ? rb->at("levels") : none,
                                             ra ? ra->at("levels") : none, RecoveryFigures())}};
  }
  return j;
}

nlohmann::json CompareReplications(const std::vector<nlohmann::json>& befores,
                                   const std::vector<nlohmann::json>& afters,
                                   const std::vector<std::uint64_t>& seeds) {
  nlohmann::json j;
  j["before"] = {{"scenario", befores.at(0).at("scenario")}};
  j["after"] = {{"scenario", afters.at(0).at("scenario")}};
  j["seeds"] = seeds;
  // Provenance as CompareSummaries gives it, from the first seed's runs: the overrides are
  // the same in every seed, and each seed's own is in its summary.json.
  for (const auto* side : {&befores.at(0), &afters.at(0)}) {
    if (side->contains("provenance")) {
      nlohmann::json p = side->at("provenance");
      p.erase("seed");
      j[side == &befores.at(0) ? "before" : "after"]["provenance"] = p;
    }
  }
  // With --window every run's figures are its window's, as in CompareSummaries.
  const bool windowed = befores.at(0).contains("window") && afters.at(0).contains("window");
  if (windowed) {
    const nlohmann::json& w = befores.at(0).at("window");
    j["window"] = {{"fromSeconds", w.at("fromSeconds")}, {"toSeconds", w.at("toSeconds")}};
  }
  auto figures_of = [windowed](const nlohmann::json& s) -> const nlohmann::json& {
    return windowed ? s.at("window") : s;
  };
  for (const auto* side : {&befores, &afters}) {
    std::vector<const nlohmann::json*> levels, summaries;
    for (const nlohmann::json& s : *side) {
      levels.push_back(&figures_of(s).at("priorityLevels"));
      summaries.push_back(&s);
    }
    const char* name = side == &befores ? "before" : "after";
    j[name]["verdict"] = SideVerdict(levels);
    if (const nlohmann::json r = ReferenceOverSeeds(summaries); !r.is_null()) {
      j[name]["reference"] = r;
    }
  }
  j["verdictLine"] = VerdictLine(j);
  for (const auto& [section, figures] :
       {std::pair{"priorityLevels", &LevelFigures()}, std::pair{"clients", &ClientFigures()}}) {
    std::vector<const nlohmann::json*> b, a;
    for (const nlohmann::json& s : befores) b.push_back(&figures_of(s).at(section));
    for (const nlohmann::json& s : afters) a.push_back(&figures_of(s).at(section));
    j[section] = CompareGroupOverSeeds(b, a, *figures);
  }
  if (RecoveryOf(befores.at(0)) || RecoveryOf(afters.at(0))) {
    const nlohmann::json none = nlohmann::json::object();
    std::vector<const nlohmann::json*> b, a;
    for (const nlohmann::json& s : befores)
      b.push_back(RecoveryOf(s) ? &s.at("recovery").at("levels") : &none);
    for (const nlohmann::json& s : afters)
      a.push_back(RecoveryOf(s) ? &s.at("recovery").at("levels") : &none);
    nlohmann::json levels = CompareGroupOverSeeds(b, a, RecoveryFigures());
    for (auto& [name, entry] : levels.items()) {
      int never_before = 0, never_after = 0;
      for (const nlohmann::json* g : b)
        never_before += g->contains(name) && (*g)[name]["recoveredAtSeconds"].is_null();
      for (const nlohmann::json* g : a)
        never_after += g->contains(name) && (*g)[name]["recoveredAtSeconds"].is_null();
      entry["neverRecoveredIn"] = {{"before", never_before}, {"after", never_after}};
    }
    const nlohmann::json& first = RecoveryOf(afters.at(0)) ? afters.at(0) : befores.at(0);
    j["recovery"] = {{"atSeconds", first.at("recovery").at("atSeconds")}, {"levels", levels}};
  }
  return j;
}

std::string CompareTable(const nlohmann::json& c, bool colour) {
  // The verdict first, and where either side parts from its incident's own figures.
  std::string out = VerdictLine(c);
  out = (colour ? fmt::format("\033[1m{}\033[0m", out) : out) + "\n";
  for (const char* side : {"before", "after"}) {
    for (const std::string& line :
         ReferenceDifferences(c[side].value("reference", nlohmann::json())))
      out += fmt::format("reference ({}): {}\n", side, line);
  }
  out += "\n";
  const std::string title =
      c.contains("seeds")
          ? fmt::format(
                "before: {}   after: {}   (seeds {}, each with the same traffic in "
                "both; a change is the mean of the per-seed changes ± half its 95% "
                "interval)",
                c["before"]["scenario"].get<std::string>(),
                c["after"]["scenario"].get<std::string>(),
                FormatSeeds(c["seeds"].get<std::vector<std::uint64_t>>()))
          : fmt::format("before: {}   after: {}   (seed {}, the same traffic in both)",
                        c["before"]["scenario"].get<std::string>(),
                        c["after"]["scenario"].get<std::string>(), c["seed"].dump());
  out += colour ? fmt::format("\033[1m{}\033[0m\n", title) : fmt::format("{}\n", title);
  // Which overrides made each side (provenance.sets: --set, --before-set / --after-set and
  // the overlays' values, in the order applied).
  for (const char* side : {"before", "after"}) {
    if (!c[side].contains("provenance")) continue;
    const std::string sets = DescribeSets(c[side]["provenance"]);
    std::string overlays;
    for (const auto& o : c[side]["provenance"]["overlays"])
      overlays += " --overlay " + o.get<std::string>();
    if (!sets.empty() || !overlays.empty()) {
      out += fmt::format("{}:{}{}{}\n", side, overlays, sets.empty() ? "" : " ", sets);
    }
  }
  if (c.contains("window")) {
    out += fmt::format("over the window [{} s, {} s)\n", c["window"]["fromSeconds"].get<double>(),
                       c["window"]["toSeconds"].get<double>());
  }
  out += "\n";
  // What the change moves, client by client, before the figures it moves.
  if (c.contains("clientMoves")) {
    const std::string moves = FormatClientMoves(c["clientMoves"]);
    if (!moves.empty()) out += moves + "\n";
  }
  // Levels by their larger nominal limit, largest first, as `apfsim run` orders them.
  std::vector<std::pair<std::int64_t, std::string>> levels;
  for (auto& [name, l] : c["priorityLevels"].items()) {
    std::int64_t nominal = 0;
    for (const char* side : {"before", "after"}) {
      const nlohmann::json& v = l["nominalCL"][side];
      if (v.is_number()) nominal = std::max(nominal, v.get<std::int64_t>());
      if (v.is_object()) nominal = std::max(nominal, v["max"].get<std::int64_t>());
    }
    levels.emplace_back(-nominal, name);
  }
  std::sort(levels.begin(), levels.end());
  std::vector<std::string> level_order;
  for (auto& [unused, name] : levels) level_order.push_back(name);
  out += Section("priority level", c["priorityLevels"], level_order, LevelFigures(),
                 {{"nominalCL", "nominal CL"},
                  {"dispatched", "dispatched"},
                  {"rejected", "rejected"},
                  {"waitP99Seconds", "wait p99"},
                  // A burst's waits hide under a whole-run p99 of 0; the max shows them.
                  {"waitMaxSeconds", "wait max"},
                  {"peakExecutingSeats", "peak seats"}},
                 colour);
  std::vector<std::string> client_order;
  for (auto& [name, unused] : c["clients"].items()) client_order.push_back(name);
  out += '\n';
  out += Section("client", c["clients"], client_order, ClientFigures(),
                 {{"calls", "calls"},
                  {"failed", "failed"},
                  {"callsRejected", "calls rejected"},
                  {"http429", "429s"},
                  {"latencyP50Seconds", "latency p50"},
                  {"latencyP99Seconds", "latency p99"}},
                 colour);
  if (c.contains("recovery")) {
    std::vector<std::string> recovery_order;
    for (auto& [name, unused] : c["recovery"]["levels"].items()) recovery_order.push_back(name);
    out += fmt::format("\nrecovery from the event at {} s (\"-\": never recovered",
                       c["recovery"]["atSeconds"].dump());
    out += c.contains("seeds") ? "; over seeds, the mean of the seeds that recovered)\n" : ")\n";
    out += Section("priority level", c["recovery"]["levels"], recovery_order, RecoveryFigures(),
                   {{"timeToRecoverSeconds", "time to recover"}}, colour);
    std::string never;
    for (const std::string& name : recovery_order) {
      const nlohmann::json& l = c["recovery"]["levels"][name];
      if (!l.contains("neverRecoveredIn")) continue;
      const int nb = l["neverRecoveredIn"]["before"], na = l["neverRecoveredIn"]["after"];
      if (nb + na > 0)
        never += fmt::format("{}: never recovered in {} seeds before, {} after\n", name, nb, na);
    }
    out += never;
  }
  return out;
}

CompareOutcome RunCompare(const CompareRequest& request) {
  if (!request.with_file.empty() && !request.overlay_files.empty()) {
    throw InputError({"--with", 0, 0}, "", "give --with or --overlay, not both");
  }
  if (request.with_file.empty() && request.overlay_files.empty() &&
      request.after_overrides.empty() && request.before_overrides.empty()) {
    throw InputError({"--with", 0, 0}, "",
                     "nothing to compare: give --with OTHER.yaml, --overlay FIX.yaml or "
                     "--after-set / --before-set PATH=VALUE");
  }
  // Both runs are resolved before either runs, so that a bad overlay or --after-set fails
  // before the before run has written anything. The after run takes the before run's
  // seed so that both see the same traffic.
  RunRequest before;
  before.scenario_file = request.scenario_file;
  before.overrides = request.overrides;
  before.overrides.insert(before.overrides.end(), request.before_overrides.begin(),
                          request.before_overrides.end());
  before.seed = request.seed;
  before.interval = request.interval;
  before.window = request.window;
  before.recovered_when = request.recovered_when;
  before.recovered_from = request.recovered_from;
  before.quiet = true;
  before.budget = request.budget;
  const ResolvedRun resolved_before = ResolveRunInputs(before);
  RunRequest after = before;
  after.scenario_file = request.with_file.empty() ? request.scenario_file : request.with_file;
  after.overlay_files = request.overlay_files;
  after.overrides = request.overrides;
  after.overrides.insert(after.overrides.end(), request.after_overrides.begin(),
                         request.after_overrides.end());
  after.seed = resolved_before.scenario.seed;
  const ResolvedRun resolved_after = ResolveRunInputs(after);
  // Both runs are quiet; their warnings (an edit put back, traffic after the end) are
  // named here, once each: the sides mostly share them.
  std::set<std::string> shown;
  PrintRunWarnings(resolved_before, &shown);
  PrintRunWarnings(resolved_after, &shown);
  // A run with spec.events against one without (the fix applied mid-incident against no
  // fix): the one without is measured from the other's event (the first, or
  // --recovered-from's), and an event window is the same part of both runs.
  const std::vector<ScenarioEvent>&be = resolved_before.scenario.events,
        &ae = resolved_after.scenario.events;
  if (be.empty() != ae.empty()) {
    const ResolvedRun& with_events = be.empty() ? resolved_after : resolved_before;
    RunRequest& without = be.empty() ? before : after;
    const std::size_t from = static_cast<std::size_t>(request.recovered_from.value_or(0));
    if (from >= with_events.scenario.events.size()) {
      throw InputError({"--recovered-from", 0, 0}, "",
                       fmt::format("spec.events[{}]: the scenario has {} event{}", from,
                                   with_events.scenario.events.size(),
                                   with_events.scenario.events.size() == 1 ? "" : "s"));
    }
    without.recovery_at = with_events.scenario.events[from].at;
    without.recovered_from.reset();
    if (request.window && request.window->event) {
      before.window = after.window = ResolveReportWindow(
          *request.window, with_events.scenario.EventTimes(), with_events.scenario.duration);
    }
  }

  CompareOutcome outcome;
  std::string dir = request.out_dir;
  if (dir.empty()) {
    std::string name = (fs::temp_directory_path() / "apfsim-compare-XXXXXX").string();
    if (!::mkdtemp(name.data())) {
      throw std::runtime_error("cannot create a temporary folder in " +
                               fs::temp_directory_path().string());
    }
    dir = name;
  }
  // --out is one output set (before/, after/, compare.json): a compare stopped midway
  // leaves the previous one whole, never a new before/ beside an old after/.
  std::optional<OutputSet> set;
  if (!request.out_dir.empty()) {
    set.emplace(dir, std::vector<std::string>{"before", "after", "compare.json", "compare.png"});
    outcome.out_dir = dir;
    dir = set->staging_dir();
  }
  struct RemoveTemporary {
    std::string dir;
    ~RemoveTemporary() {
      std::error_code ignored;
      if (!dir.empty()) fs::remove_all(dir, ignored);
    }
  } remove_temporary{request.out_dir.empty() ? dir : ""};

  before.out_dir = dir + "/before";
  after.out_dir = dir + "/after";
  if (request.openmetrics) {
    before.openmetrics = after.openmetrics = request.openmetrics;
    before.openmetrics->labels.emplace_back("side", "before");
    after.openmetrics->labels.emplace_back("side", "after");
  }
  ProgressMeter progress(request.progress, false, "compare " + resolved_before.scenario.name);
  if (progress.shown()) before.progress = after.progress = &progress;
  if (request.seeds.empty()) {
    if (progress.shown()) {
      before.progress_slot = progress.Plan(resolved_before.scenario.duration);
      after.progress_slot = progress.Plan(resolved_after.scenario.duration);
    }
    const RunOutcome b = RunScenario(resolved_before, before);
    const RunOutcome a = RunScenario(resolved_after, after);
    progress.Clear();
    outcome.comparison = CompareSummaries(b.summary, a.summary);
  } else {
    const ReplicationsOutcome b =
        RunReplications(resolved_before, before, request.seeds, request.jobs);
    const ReplicationsOutcome a =
        RunReplications(resolved_after, after, request.seeds, request.jobs);
    progress.Clear();
    std::vector<nlohmann::json> befores, afters;
    for (const RunOutcome& r : b.runs) befores.push_back(r.summary);
    for (const RunOutcome& r : a.runs) afters.push_back(r.summary);
    outcome.comparison = CompareReplications(befores, afters, request.seeds);
  }
  auto describe = [](const RunRequest& r) {
    return nlohmann::json{{"file", r.scenario_file},
                          {"overlays", r.overlay_files},
                          {"set", r.overrides},
                          {"dir", r.out_dir.substr(r.out_dir.rfind('/') + 1)}};
  };
  outcome.comparison["clientMoves"] =
      DescribeClientMoves({&resolved_before.scenario, &resolved_before.flow_control},
                          {&resolved_after.scenario, &resolved_after.flow_control});
  outcome.comparison["before"].update(describe(before));
  outcome.comparison["after"].update(describe(after));
  if (set) {
    WriteOutputFile(dir + "/compare.json", outcome.comparison.dump(2) + "\n");
    set->Commit();
  }
  return outcome;
}

}  // namespace sim
