#include "sim/expectations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/duration.h"

namespace sim {
namespace {

// How a field folds over the rows of a window; kNone: the rows do not carry it.
enum class Fold { kNone, kSum, kMax };

struct FieldInfo {
  const char* name;  // below the level or client, as in summary.json
  Fold fold;
};

// summary.json's numbers per priority level (sim/run_report.cc) and how timeline.csv's
// rows give them for a window.
constexpr FieldInfo kLevelFields[] = {
    {"nominalCL", Fold::kMax},
    {"meanCurrentCL", Fold::kNone},
    {"maxSeats", Fold::kNone},
    {"peakRequestSeats", Fold::kNone},
    {"dispatched", Fold::kSum},
    {"rejected.queue-full", Fold::kSum},
    {"rejected.time-out", Fold::kSum},
    {"rejected.concurrency-limit", Fold::kSum},
    {"waitSeconds.p50", Fold::kMax},
    {"waitSeconds.p99", Fold::kMax},
    {"waitSeconds.max", Fold::kNone},
    {"peakExecutingSeats", Fold::kMax},
};

// summary.json's numbers per client and how clients.csv's rows give them.
constexpr FieldInfo kClientFields[] = {
    {"calls", Fold::kSum},
    {"attempts", Fold::kSum},
    {"succeeded", Fold::kSum},
    {"failed", Fold::kSum},
    {"http429", Fold::kSum},
    {"latencySeconds.p50", Fold::kMax},
    {"latencySeconds.p99", Fold::kMax},
    {"latencySeconds.max", Fold::kNone},
};

constexpr FieldInfo kGatewayFields[] = {
    {"requestRateExceeded", Fold::kNone},
    {"tooManyConcurrentRequests", Fold::kNone},
};

template <size_t N>
const FieldInfo* FindField(const FieldInfo (&fields)[N], std::string_view name) {
  for (const FieldInfo& f : fields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

template <size_t N>
std::string FieldNames(const FieldInfo (&fields)[N], bool windowed) {
  std::string out;
  for (const FieldInfo& f : fields) {
    if (windowed && f.fold == Fold::kNone) continue;
    out += out.empty() ? "" : ", ";
    out += f.name;
  }
  return out;
}

const FieldInfo* FieldOf(const Expectation& e) {
  if (e.section == "priorityLevels") return FindField(kLevelFields, e.field);
  if (e.section == "clients") return FindField(kClientFields, e.field);
  return FindField(kGatewayFields, e.field);
}

double Round6(double x) { return std::round(x * 1e6) / 1e6; }

// Seconds as summary.json writes them: microsecond resolution, six decimals.
double Seconds(apf::Nanos ns) { return Round6(apf::ToSeconds(ns / 1000 * 1000)); }

}  // namespace

std::string ParseExpectationPath(const std::string& path, bool windowed, Expectation* e) {
  const size_t dot = path.find('.');
  const std::string section = path.substr(0, dot);
  if (section == "gateway") {
    const std::string field = dot == std::string::npos ? "" : path.substr(dot + 1);
    if (!FindField(kGatewayFields, field)) {
      return "gateway's fields are " + FieldNames(kGatewayFields, false);
    }
    if (windowed) return "gateway counts cannot be limited to a window";
    *e = Expectation{};
    e->section = section;
    e->field = field;
    return "";
  }
  if (section != "priorityLevels" && section != "clients") {
    return "a path starts with priorityLevels, clients or gateway (a summary.json field), "
           "found \"" + section + "\"";
  }
  const bool level = section == "priorityLevels";
  const std::string rest = dot == std::string::npos ? "" : path.substr(dot + 1);
  // The longest known field that ends the path, after a non-empty name and a dot.
  const FieldInfo* found = nullptr;
  auto try_fields = [&](const auto& fields) {
    for (const FieldInfo& f : fields) {
      const std::string_view name = f.name;
      if (rest.size() > name.size() + 1 && rest.compare(rest.size() - name.size(), name.size(), name) == 0 &&
          rest[rest.size() - name.size() - 1] == '.' &&
          (!found || name.size() > std::string_view(found->name).size())) {
        found = &f;
      }
    }
  };
  if (level) {
    try_fields(kLevelFields);
  } else {
    try_fields(kClientFields);
  }
  const std::string names = level ? FieldNames(kLevelFields, false) : FieldNames(kClientFields, false);
  if (!found) {
    return fmt::format("expected {}.NAME.FIELD where FIELD is one of {}", section, names);
  }
  if (windowed && found->fold == Fold::kNone) {
    return fmt::format("{} cannot be limited to a window (the report rows do not carry it); "
                       "windowed fields are {}",
                       found->name,
                       level ? FieldNames(kLevelFields, true) : FieldNames(kClientFields, true));
  }
  *e = Expectation{};
  e->section = section;
  e->field = found->name;
  e->subject = rest.substr(0, rest.size() - e->field.size() - 1);
  return "";
}

std::optional<Expectation::Op> ParseExpectationOp(std::string_view text) {
  using Op = Expectation::Op;
  if (text == "==") return Op::kEq;
  if (text == "!=") return Op::kNe;
  if (text == "<") return Op::kLt;
  if (text == "<=") return Op::kLe;
  if (text == ">") return Op::kGt;
  if (text == ">=") return Op::kGe;
  return std::nullopt;
}

const char* ExpectationOpText(Expectation::Op op) {
  switch (op) {
    case Expectation::Op::kEq: return "==";
    case Expectation::Op::kNe: return "!=";
    case Expectation::Op::kLt: return "<";
    case Expectation::Op::kLe: return "<=";
    case Expectation::Op::kGt: return ">";
    case Expectation::Op::kGe: return ">=";
  }
  return "?";
}

bool CompareExpectation(double measured, Expectation::Op op, double value) {
  switch (op) {
    case Expectation::Op::kEq: return measured == value;
    case Expectation::Op::kNe: return measured != value;
    case Expectation::Op::kLt: return measured < value;
    case Expectation::Op::kLe: return measured <= value;
    case Expectation::Op::kGt: return measured > value;
    case Expectation::Op::kGe: return measured >= value;
  }
  return false;
}

std::string DescribeExpectation(const Expectation& e) {
  std::string out = fmt::format("{} {} {}", e.path, ExpectationOpText(e.op), e.value);
  if (e.windowed) {
    out += " in [" + FormatDuration(e.window_from) + ", " +
           (e.window_to == apf::kNever ? std::string("end") : FormatDuration(e.window_to)) + ")";
  }
  return out;
}

ExpectationWindows::ExpectationWindows(const std::vector<Expectation>& expectations)
    : expectations_(expectations), values_(expectations.size(), 0.0) {}

void ExpectationWindows::Fold(std::size_t i, double v) {
  if (FieldOf(expectations_[i])->fold == Fold::kSum) {
    values_[i] += v;
  } else {
    values_[i] = std::max(values_[i], v);
  }
}

void ExpectationWindows::OnLevelRow(apf::Nanos start, int replica, const std::string& level,
                                    const LevelRow& row) {
  (void)replica;  // counts add up over replicas; peaks and percentiles take the largest
  for (std::size_t i = 0; i < expectations_.size(); ++i) {
    const Expectation& e = expectations_[i];
    if (!e.windowed || e.section != "priorityLevels" || e.subject != level) continue;
    if (start < e.window_from || start >= e.window_to) continue;
    const std::string& f = e.field;
    if (f == "nominalCL") Fold(i, row.nominal_cl);
    if (f == "dispatched") Fold(i, static_cast<double>(row.counters.dispatched));
    if (f == "rejected.queue-full") Fold(i, static_cast<double>(row.counters.rejected[0]));
    if (f == "rejected.time-out") Fold(i, static_cast<double>(row.counters.rejected[1]));
    if (f == "rejected.concurrency-limit") Fold(i, static_cast<double>(row.counters.rejected[2]));
    if (f == "peakExecutingSeats") Fold(i, row.peak_executing_seats);
    // An interval in which nothing was dispatched has no wait percentiles.
    if (row.waits_dispatched > 0) {
      if (f == "waitSeconds.p50") Fold(i, Seconds(row.wait_p50));
      if (f == "waitSeconds.p99") Fold(i, Seconds(row.wait_p99));
    }
  }
}

void ExpectationWindows::OnClientRow(apf::Nanos start, const std::string& client,
                                     const ClientRow& row) {
  for (std::size_t i = 0; i < expectations_.size(); ++i) {
    const Expectation& e = expectations_[i];
    if (!e.windowed || e.section != "clients" || e.subject != client) continue;
    if (start < e.window_from || start >= e.window_to) continue;
    const std::string& f = e.field;
    if (f == "calls") Fold(i, static_cast<double>(row.calls));
    if (f == "attempts") Fold(i, static_cast<double>(row.attempts));
    if (f == "succeeded") Fold(i, static_cast<double>(row.succeeded));
    if (f == "failed") Fold(i, static_cast<double>(row.failed));
    if (f == "http429") Fold(i, static_cast<double>(row.http429));
    // An interval in which no call ended has no latency percentiles.
    if (row.succeeded + row.failed > 0) {
      if (f == "latencySeconds.p50") Fold(i, Seconds(row.latency_p50));
      if (f == "latencySeconds.p99") Fold(i, Seconds(row.latency_p99));
    }
  }
}

void CheckExpectationLevels(const Scenario& scenario, const apf::FlowControlConfig& config) {
  std::vector<std::string> levels;
  if (scenario.apiservers.enable_priority_and_fairness) {
    for (const apf::PriorityLevel& pl : config.priority_levels) levels.push_back(pl.name);
    std::sort(levels.begin(), levels.end());
  } else {
    levels = {"mutating", "readonly"};
  }
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i) {
    const Expectation& e = scenario.expectations[i];
    if (e.section != "priorityLevels") continue;
    if (std::find(levels.begin(), levels.end(), e.subject) != levels.end()) continue;
    std::string known;
    for (const std::string& name : levels) known += (known.empty() ? "" : ", ") + name;
    throw InputError(
        e.where, fmt::format("spec.expect[{}].path", i),
        fmt::format("this run has no priority level \"{}\" (it has {})", e.subject, known));
  }
}

std::vector<ExpectationResult> EvaluateExpectations(const std::vector<Expectation>& expectations,
                                                    const nlohmann::json& summary,
                                                    const ExpectationWindows* windows) {
  std::vector<ExpectationResult> results;
  for (std::size_t i = 0; i < expectations.size(); ++i) {
    const Expectation& e = expectations[i];
    ExpectationResult r;
    r.expectation = e;
    const nlohmann::json* node = nullptr;
    if (summary.contains(e.section)) {
      node = &summary[e.section];
      if (!e.subject.empty()) {
        if (!node->contains(e.subject)) {
          std::string known;
          for (const auto& [name, unused] : node->items()) known += (known.empty() ? "" : ", ") + name;
          throw InputError(
              e.where, fmt::format("spec.expect[{}].path", i),
              fmt::format("this run has no {} \"{}\" (it has {})",
                          e.section == "clients" ? "client" : "priority level", e.subject, known));
        }
        node = &(*node)[e.subject];
      }
    }
    if (!node) {
      throw InputError(e.where, fmt::format("spec.expect[{}].path", i),
                       "this run's summary has no " + e.section);
    }
    if (e.windowed) {
      if (!windows) throw std::logic_error("windowed expectation without windows");
      r.measured = windows->value(i);
    } else {
      const size_t dot = e.field.find('.');
      const nlohmann::json* v = &(*node)[e.field.substr(0, dot)];
      if (dot != std::string::npos) v = &(*v)[e.field.substr(dot + 1)];
      if (v->is_number()) r.measured = v->get<double>();
    }
    r.passed = r.measured && CompareExpectation(*r.measured, e.op, e.value);
    results.push_back(std::move(r));
  }
  return results;
}

std::string FormatMeasured(const std::optional<double>& measured) {
  return measured ? fmt::format("{}", *measured) : "null";
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to carry these
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string JunitXml(const std::vector<ScenarioCheck>& checks) {
  int tests = 0, failures = 0;
  double seconds = 0;
  for (const ScenarioCheck& c : checks) {
    tests += static_cast<int>(c.results.size());
    for (const ExpectationResult& r : c.results) failures += r.passed ? 0 : 1;
    seconds += c.wall_seconds;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"apfsim check\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n",
                     tests, failures, seconds);
  for (const ScenarioCheck& c : checks) {
    int suite_failures = 0;
    for (const ExpectationResult& r : c.results) suite_failures += r.passed ? 0 : 1;
    out += fmt::format(
        "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" "
        "time=\"{:.3f}\">\n",
        XmlEscape(c.name), XmlEscape(c.file), c.results.size(), suite_failures, c.wall_seconds);
    for (const ExpectationResult& r : c.results) {
      const Expectation& e = r.expectation;
      std::string name = DescribeExpectation(e);
      if (!e.description.empty()) name += " (" + e.description + ")";
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\" time=\"0\"",
                         XmlEscape(c.name), XmlEscape(name), XmlEscape(c.file), e.where.line);
      if (r.passed) {
        out += "/>\n";
        continue;
      }
      const std::string message =
          fmt::format("measured {}, expected {} {}", FormatMeasured(r.measured),
                      ExpectationOpText(e.op), e.value);
      out += ">\n";
      out += fmt::format("      <failure message=\"{}\" type=\"expectation\">{}:{}:{}: {}: {}</failure>\n",
                         XmlEscape(message), XmlEscape(c.file), e.where.line, e.where.column,
                         XmlEscape(DescribeExpectation(e)), XmlEscape(message));
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace sim
