#include "sim/scenario/expectation_paths.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/yaml_input.h"

namespace sim {
namespace {

struct FieldInfo {
  const char* name;  // below the level or client, as in summary.json
  ExpectationFold fold;
};

// summary.json's numbers per priority level (sim/report/run_report.cc) and how timeline.csv's
// rows give them for a window.
constexpr FieldInfo kLevelFields[] = {
    {"nominalCL", ExpectationFold::kMax},
    {"meanCurrentCL", ExpectationFold::kNone},
    {"maxSeats", ExpectationFold::kNone},
    {"peakRequestSeats", ExpectationFold::kNone},
    {"dispatched", ExpectationFold::kSum},
    {"rejected.queue-full", ExpectationFold::kSum},
    {"rejected.time-out", ExpectationFold::kSum},
    {"rejected.concurrency-limit", ExpectationFold::kSum},
    {"waitSeconds.p50", ExpectationFold::kMax},
    {"waitSeconds.p99", ExpectationFold::kMax},
    {"waitSeconds.max", ExpectationFold::kNone},
    {"peakExecutingSeats", ExpectationFold::kMax},
};

// summary.json's numbers per client and how clients.csv's rows give them.
constexpr FieldInfo kClientFields[] = {
    {"calls", ExpectationFold::kSum},
    {"attempts", ExpectationFold::kSum},
    {"succeeded", ExpectationFold::kSum},
    {"failed", ExpectationFold::kSum},
    {"http429", ExpectationFold::kSum},
    {"latencySeconds.p50", ExpectationFold::kMax},
    {"latencySeconds.p99", ExpectationFold::kMax},
    {"latencySeconds.max", ExpectationFold::kNone},
    {"callsRejected", ExpectationFold::kSum},
    {"pendingAtEnd", ExpectationFold::kNone},
    {"brokenConnections", ExpectationFold::kNone},
    {"queueWaitSeconds.p50", ExpectationFold::kMax},
    {"queueWaitSeconds.p99", ExpectationFold::kMax},
    {"queueWaitSeconds.max", ExpectationFold::kMax},
    {"throttleWaitSeconds.p50", ExpectationFold::kMax},
    {"throttleWaitSeconds.p99", ExpectationFold::kMax},
    {"throttleWaitSeconds.max", ExpectationFold::kMax},
    {"iterationSeconds.p50", ExpectationFold::kMax},
    {"iterationSeconds.p99", ExpectationFold::kMax},
    {"iterationSeconds.max", ExpectationFold::kMax},
};

constexpr FieldInfo kGatewayFields[] = {
    {"requestRateExceeded", ExpectationFold::kNone},
    {"tooManyConcurrentRequests", ExpectationFold::kNone},
    {"tooManyStreams", ExpectationFold::kNone},
    {"sessionEnded401", ExpectationFold::kNone},
    {"refused.session_request_burst", ExpectationFold::kNone},
    {"refused.session_concurrent_requests", ExpectationFold::kNone},
    {"refused.concurrent_requests", ExpectationFold::kNone},
    {"refused.session_streams", ExpectationFold::kNone},
    {"refused.streams", ExpectationFold::kNone},
    {"cutShort.response_duration", ExpectationFold::kNone},
    {"cutShort.session_ended", ExpectationFold::kNone},
    {"cutShort.stream_write_timeout", ExpectationFold::kNone},
    {"peak.session_concurrent_requests", ExpectationFold::kNone},
    {"peak.concurrent_requests", ExpectationFold::kNone},
    {"peak.session_streams", ExpectationFold::kNone},
    {"peak.streams", ExpectationFold::kNone},
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
    if (windowed && f.fold == ExpectationFold::kNone) continue;
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

}  // namespace

bool IsSummaryField(const std::string& section, std::string_view field, bool windowed) {
  const FieldInfo* f = section == "priorityLevels" ? FindField(kLevelFields, field)
                                                   : FindField(kClientFields, field);
  return f && (!windowed || f->fold != ExpectationFold::kNone);
}

std::string SummaryFieldNames(const std::string& section, bool windowed) {
  return section == "priorityLevels" ? FieldNames(kLevelFields, windowed)
                                     : FieldNames(kClientFields, windowed);
}

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
           "found \"" +
           section + "\"";
  }
  const bool level = section == "priorityLevels";
  const std::string rest = dot == std::string::npos ? "" : path.substr(dot + 1);
  // The longest known field that ends the path, after a non-empty name and a dot.
  const FieldInfo* found = nullptr;
  auto try_fields = [&](const auto& fields) {
    for (const FieldInfo& f : fields) {
      const std::string_view name = f.name;
      if (rest.size() > name.size() + 1 &&
          rest.compare(rest.size() - name.size(), name.size(), name) == 0 &&
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
  const std::string names =
      level ? FieldNames(kLevelFields, false) : FieldNames(kClientFields, false);
  if (!found) {
    return fmt::format("expected {}.NAME.FIELD where FIELD is one of {}", section, names);
  }
  if (windowed && found->fold == ExpectationFold::kNone) {
    return fmt::format(
        "{} cannot be limited to a window (the report rows do not carry it); "
        "windowed fields are {}",
        found->name, level ? FieldNames(kLevelFields, true) : FieldNames(kClientFields, true));
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
    case Expectation::Op::kEq:
      return "==";
    case Expectation::Op::kNe:
      return "!=";
    case Expectation::Op::kLt:
      return "<";
    case Expectation::Op::kLe:
      return "<=";
    case Expectation::Op::kGt:
      return ">";
    case Expectation::Op::kGe:
      return ">=";
  }
  return "?";
}

bool CompareExpectation(double measured, Expectation::Op op, double value) {
  switch (op) {
    case Expectation::Op::kEq:
      return measured == value;
    case Expectation::Op::kNe:
      return measured != value;
    case Expectation::Op::kLt:
      return measured < value;
    case Expectation::Op::kLe:
      return measured <= value;
    case Expectation::Op::kGt:
      return measured > value;
    case Expectation::Op::kGe:
      return measured >= value;
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

ExpectationFold FoldOf(const Expectation& e) {
  const FieldInfo* f = FieldOf(e);
  return f ? f->fold : ExpectationFold::kNone;
}

void CheckExpectationLevels(const Scenario& scenario, const apf::FlowControlConfig& config,
                            const std::vector<apf::FlowControlConfig>& event_configs) {
  std::vector<std::string> levels;
  if (scenario.apiservers.enable_priority_and_fairness) {
    for (const apf::PriorityLevel& pl : config.priority_levels) levels.push_back(pl.name);
    // A level an `apply` event brings is reported for the whole run.
    for (const apf::FlowControlConfig& later : event_configs) {
      for (const apf::PriorityLevel& pl : later.priority_levels) levels.push_back(pl.name);
    }
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  } else {
    levels = {"mutating", "readonly"};
  }
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i) {
    const Expectation& e = scenario.expectations[i];
    if (e.section != "priorityLevels") continue;
    if (std::find(levels.begin(), levels.end(), e.subject) != levels.end()) continue;
    std::string known;
    for (const std::string& name : levels) known += (known.empty() ? "" : ", ") + name;
    const std::string near = ClosestMatch(e.subject, levels);
    throw InputError(e.where, fmt::format("spec.expect[{}].path", i),
                     fmt::format("this run has no priority level \"{}\" ({}it has {})", e.subject,
                                 near.empty() ? "" : "did you mean \"" + near + "\"? ", known));
  }
}

}  // namespace sim
