#include "sim/report/reference_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/io/text.h"
#include "sim/report/replications.h"

namespace sim {
namespace {

bool IsSeconds(const std::string& metric) { return metric.find("Seconds") != std::string::npos; }

// The run's value of `figure` in `summary`, or nullopt: no such level or client, or null
// there. Whole-run figures: a reference is the incident's, not a --window's.
std::optional<double> Measure(const nlohmann::json& figure, const nlohmann::json& summary) {
  const bool level = figure.contains("level");
  const char* section = level ? "priorityLevels" : "clients";
  const std::string subject = figure[level ? "level" : "client"];
  if (!summary.contains(section) || !summary[section].contains(subject)) return std::nullopt;
  const nlohmann::json& entry = summary[section][subject];
  const std::string metric = figure["metric"];
  if (level && metric == "rejected") {
    double sum = 0;
    for (const auto& [unused, v] : entry.at("rejected").items()) sum += v.get<double>();
    return sum;
  }
  const std::size_t dot = metric.find('.');
  const nlohmann::json::json_pointer pointer(
      "/" +
      (dot == std::string::npos ? metric : metric.substr(0, dot) + "/" + metric.substr(dot + 1)));
  if (!entry.contains(pointer) || !entry[pointer].is_number()) return std::nullopt;
  return entry[pointer].get<double>();
}

// Sets the figure's "measured", "differs" and, where it differs, "line", from the
// measured values (one per seed; nullopt where a seed had none).
void Judge(nlohmann::json& figure, const std::string& source,
           const std::vector<std::optional<double>>& measured) {
  std::vector<double> values;
  for (const auto& m : measured) {
    if (m) values.push_back(*m);
  }
  const bool level = figure.contains("level");
  const std::string subject = figure[level ? "level" : "client"];
  const std::string metric = figure["metric"];
  const double value = figure["value"], tolerance = figure["tolerancePercent"];
  const bool seconds = IsSeconds(metric);
  std::string run;
  bool differs = true;
  if (values.empty()) {
    figure["measured"] = nullptr;
    run =
        fmt::format("this run has no value of it{}",
                    measured.size() > 1 ? fmt::format(" in any of {} seeds", measured.size()) : "");
  } else {
    const SampleStatistics st = Summarize(values);
    figure["measured"] = Round6(st.mean);
    differs = std::fabs(st.mean - value) > tolerance / 100 * std::fabs(value);
    run = "this run " + FigureText(st.mean, seconds);
    if (measured.size() > 1) {
      figure["seeds"] = {{"n", values.size()}, {"min", Round6(st.min)}, {"max", Round6(st.max)}};
      run += st.min == st.max
                 ? fmt::format(" (in each of {} seeds)", values.size())
                 : fmt::format(" (the mean of {} seeds, {} to {})", values.size(),
                               FigureText(st.min, seconds), FigureText(st.max, seconds));
    }
    run += fmt::format(", outside ±{:g}%", tolerance);
  }
  figure["differs"] = differs;
  figure.erase("line");
  if (!differs) return;
  const std::string reason = figure["reason"];
  std::string window;
  if (figure.contains("window")) {
    const nlohmann::json& w = figure["window"];
    window = w["toSeconds"].is_null()
                 ? fmt::format(" from {:g} s", w["fromSeconds"].get<double>())
                 : fmt::format(" in [{:g} s, {:g} s)", w["fromSeconds"].get<double>(),
                               w["toSeconds"].get<double>());
  }
  figure["line"] = fmt::format("{} reports {}{} {} {} {}{}; {}: {}", source,
                               figure["approx"].get<bool>() ? "~" : "", FigureText(value, seconds),
                               metric, level ? "in" : "for", subject, window, run,
                               reason.empty() ? "the scenario gives no reason" : reason);
}

// The fields a windowed figure is folded from: a level's "rejected" is its three reasons.
std::vector<std::string> ProbeFields(const ReferenceFigure& f) {
  if (f.section == "priorityLevels" && f.metric == "rejected") {
    return {"rejected.queue-full", "rejected.time-out", "rejected.concurrency-limit"};
  }
  return {f.metric};
}

}  // namespace

std::vector<Expectation> ReferenceProbes(const ScenarioReference& reference) {
  std::vector<Expectation> probes;
  for (const ReferenceFigure& f : reference.figures) {
    if (!f.windowed) continue;
    for (const std::string& field : ProbeFields(f)) {
      Expectation e;
      e.section = f.section;
      e.subject = f.subject;
      e.field = field;
      e.path = f.section + "." + f.subject + "." + field;
      e.windowed = true;
      e.window_from = f.window_from;
      e.window_to = f.window_to;
      e.where = f.where;
      probes.push_back(std::move(e));
    }
  }
  return probes;
}

nlohmann::json ReferenceJson(const ScenarioReference& reference, const nlohmann::json& summary,
                             const ExpectationWindows* windows, std::size_t first_probe) {
  if (reference.figures.empty()) return nullptr;
  nlohmann::json out = {{"source", reference.source}, {"figures", nlohmann::json::array()}};
  std::size_t probe = first_probe;
  for (const ReferenceFigure& f : reference.figures) {
    nlohmann::json figure = {{f.section == "priorityLevels" ? "level" : "client", f.subject},
                             {"metric", f.metric},
                             {"value", f.value},
                             {"approx", f.approx},
                             {"tolerancePercent", f.tolerance_percent},
                             {"reason", f.reason}};
    std::optional<double> measured;
    if (f.windowed) {
      const bool to_end = f.window_to == apf::kNever;
      figure["window"] = {
          {"fromSeconds", apf::ToSeconds(f.window_from)},
          {"toSeconds", to_end ? nlohmann::json() : nlohmann::json(apf::ToSeconds(f.window_to))}};
      const std::size_t n = ProbeFields(f).size();
      // The window's value is there only when the figure's level or client is in the run.
      if (windows && Measure(figure, summary)) {
        double sum = 0;
        for (std::size_t k = 0; k < n; ++k) sum += windows->value(probe + k);
        measured = sum;
      }
      probe += n;
    } else {
      measured = Measure(figure, summary);
    }
    Judge(figure, reference.source, {measured});
    out["figures"].push_back(std::move(figure));
  }
  return out;
}

nlohmann::json ReferenceOverSeeds(const std::vector<const nlohmann::json*>& summaries) {
  if (summaries.empty() || !summaries[0]->contains("reference") ||
      (*summaries[0])["reference"].is_null()) {
    return nullptr;
  }
  nlohmann::json out = (*summaries[0])["reference"];
  const std::string source = out["source"];
  for (std::size_t i = 0; i < out["figures"].size(); ++i) {
    std::vector<std::optional<double>> measured;
    for (const nlohmann::json* s : summaries) {
      const nlohmann::json& m = (*s)["reference"]["figures"][i]["measured"];
      measured.push_back(m.is_number() ? std::optional<double>(m.get<double>()) : std::nullopt);
    }
    Judge(out["figures"][i], source, measured);
  }
  return out;
}

std::vector<std::string> ReferenceDifferences(const nlohmann::json& reference) {
  std::vector<std::string> lines;
  if (!reference.is_object()) return lines;
  for (const nlohmann::json& f : reference["figures"]) {
    if (f.contains("line")) lines.push_back(f["line"]);
  }
  return lines;
}

}  // namespace sim
