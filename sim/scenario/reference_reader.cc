#include "sim/scenario/reference_reader.h"

#include <algorithm>
#include <optional>

#include "sim/io/text.h"
#include "sim/scenario/expectation_paths.h"
#include "sim/scenario/spec_values.h"

namespace sim {
namespace {

ReferenceFigure ReadFigure(const YamlValue& v, const Scenario& s) {
  YamlMap m = v.Map();
  ReferenceFigure f;
  f.where = v.where();
  std::optional<YamlValue> level = m.Optional("level"), client = m.Optional("client");
  std::optional<YamlValue> metric = m.Optional("metric"), value = m.Optional("value");
  std::optional<YamlValue> tolerance = m.Optional("tolerancePercent");
  std::optional<YamlValue> window = m.Optional("window");
  f.approx = m.BoolOr("approx", false);
  f.reason = m.StringOr("reason", "");
  // Unknown keys first, so that a misspelt "metric" is named as unknown, not as missing.
  m.Finish();
  if (level && client) client->Fail("a figure is of a level or of a client, not both");
  if (!level && !client) v.Fail("needs `level: NAME` (a priority level) or `client: NAME`");
  if (!metric) v.Fail("needs `metric: FIELD` (a summary.json field, such as rejected)");
  if (!value) v.Fail("needs `value: NUMBER` (the figure the source states)");
  const YamlValue& subject = level ? *level : *client;
  f.section = level ? "priorityLevels" : "clients";
  f.subject = subject.String();
  if (client) {
    std::vector<std::string> names;
    for (const ClientSpec& c : s.clients) names.push_back(c.name);
    if (std::find(names.begin(), names.end(), f.subject) == names.end()) {
      subject.Fail("no client \"" + f.subject + "\" in spec.clients" +
                   DidYouMean(f.subject, names));
    }
  }
  f.metric = metric->String();
  // "rejected" is a level's three reasons summed, as compare and the verdict count them.
  const bool summed = level && f.metric == "rejected";
  f.windowed = window.has_value();
  if (!summed && !IsSummaryField(f.section, f.metric, f.windowed)) {
    metric->Fail(std::string("expected one of summary.json's fields of a ") +
                 (level ? "priority level: rejected (the reasons summed), " : "client: ") +
                 SummaryFieldNames(f.section, f.windowed) +
                 (f.windowed ? " (the fields a window can measure)" : ""));
  }
  if (window) ReadWindow(*window, s.duration, &f.window_from, &f.window_to);
  f.value = value->Number();
  f.tolerance_percent = f.approx ? kApproxTolerancePercent : kReferenceTolerancePercent;
  if (tolerance) {
    f.tolerance_percent = tolerance->Number();
    if (f.tolerance_percent < 0 || f.tolerance_percent > 1000) {
      tolerance->Fail("must be between 0 and 1000 (percent of the value)");
    }
  }
  return f;
}

}  // namespace

ScenarioReference ReadReference(const YamlValue& v, const Scenario& s) {
  YamlMap m = v.Map();
  ScenarioReference r;
  r.source = m.Required("source").String();
  for (const YamlValue& fv : m.Required("figures").Items()) r.figures.push_back(ReadFigure(fv, s));
  m.Finish();
  return r;
}

}  // namespace sim
