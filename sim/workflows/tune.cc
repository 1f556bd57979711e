#include "sim/workflows/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "apf/config/bootstrap.h"
#include "sim/flowcontrol/lint.h"
#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/manifest.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/output_file.h"
#include "sim/io/output_set.h"
#include "sim/report/expectations.h"
#include "sim/workflows/compare.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/provenance.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "sim/workflows/worker_pool.h"

namespace sim {
namespace {

using nlohmann::json;

// The fields of a limited level the search moves, in the order tried.
const std::vector<std::string> kLevelFields = {
    "nominalConcurrencyShares", "lendablePercent", "borrowingLimitPercent", "queues", "handSize",
    "queueLengthLimit"};

// One value the search may move: a field of an existing level, an apiserver flag, or a
// field of the fence's own level (only once a fence is in the candidate).
struct Param {
  enum class Kind { kLevel, kFlag, kFence };
  Kind kind;
  std::string level;        // kLevel: its name
  std::string field;        // a kLevelFields entry or "maxRequestsInflight"...
  std::optional<int> base;  // nullopt: unset (borrowingLimitPercent: unlimited)
};

// The value of `p` moved `step` steps along its ladder, or nullopt where the ladder ends.
// Counts move by factors (shares x1.5, x2, x3, x4, x6 up; x0.75, x0.5, x0.25 down), percents
// by 10, handSize by 1; an unlimited borrowing limit steps down to 100, 50, 0.
std::optional<int> StepValue(const Param& p, int step) {
  static const std::vector<double> up = {1.5, 2, 3, 4, 6};
  static const std::vector<double> down = {0.75, 0.5, 0.25};
  auto factor = [&](int base, int lo, int hi) -> std::optional<int> {
    const std::size_t k = static_cast<std::size_t>(std::abs(step)) - 1;
    if (step > 0 ? k >= up.size() : k >= down.size()) return std::nullopt;
    const int v = static_cast<int>(std::lround(base * (step > 0 ? up[k] : down[k])));
    if (v < lo || v > hi || v == base) return std::nullopt;
    return v;
  };
  const std::string& f = p.field;
  if (f == "lendablePercent" || f == "borrowingLimitPercent") {
    if (!p.base) {  // unlimited borrowing
      static const std::vector<int> ladder = {100, 50, 0};
      if (step >= 0 || -step > static_cast<int>(ladder.size())) return std::nullopt;
      return ladder[static_cast<std::size_t>(-step - 1)];
    }
    const int v = *p.base + 10 * step;
    const int hi = f == "lendablePercent" ? 100 : 400;
    if (v < 0 || v > hi) return std::nullopt;
    return v;
  }
  if (f == "handSize") {
    const int v = *p.base + step;
    if (v < 1 || v > 16 || std::abs(step) > 4) return std::nullopt;
    return v;
  }
  if (f == "queues") return factor(*p.base, 1, 128);
  if (f == "queueLengthLimit") return factor(*p.base, 1, 10000);
  return factor(*p.base, 1, 1000000);  // shares and the flags
}

// A fence: a client's requests (all, or one verb and resource of them) moved to a new level.
struct FenceVariant {
  std::string client;
  std::string subject_yaml;               // the subjects list entry
  std::string verb, api_group, resource;  // empty verb: every request of the subject
};

struct Candidate {
  std::map<std::size_t, int> steps;  // param index -> steps moved (never 0)
  int fence = -1;                    // index into the fence variants, -1: none
};

std::string CandidateKey(const Candidate& c) {
  std::string key = std::to_string(c.fence);
  for (const auto& [p, s] : c.steps) key += fmt::format(";{}:{}", p, s);
  return key;
}

// How close a judged candidate came: seeds passed, then assertions passed on the seed
// judged last, then the sum of the failing assertions' shortfalls (relative to their bound).
struct Score {
  int seeds_passed = 0;
  int assertions_passed = 0;
  double margin = 0;
  auto operator<=>(const Score&) const = default;
};

double Shortfall(const ExpectationResult& r) {
  if (r.passed) return 0;
  if (!r.measured) return -1;
  const Expectation& e = r.expectation;
  const double scale = std::max(std::abs(e.value), 1.0);
  return -std::min(std::abs(*r.measured - e.value) / scale, 1e6);
}

std::string DescribeAssertion(const Expectation& e) { return DescribeExpectation(e); }

// A candidate as files: its flow-control objects (YAML documents, a fence's two in one
// entry) and the apiserver flags it changes (field, value).
struct FixParts {
  std::vector<std::string> objects;
  std::vector<std::pair<std::string, int>> flags;
};

// fix.yaml: only the objects, for `kubectl apply -f`. With none (a fix of flags alone) an
// empty v1 List, which kubectl and apfsim read as no object, rather than an empty document.
std::string ManifestText(const FixParts& parts) {
  if (parts.objects.empty()) return "apiVersion: v1\nkind: List\nitems: []\n";
  std::string out;
  for (const std::string& object : parts.objects) out += (out.empty() ? "" : "---\n") + object;
  return out;
}

// "maxRequestsInflight" -> "--max-requests-inflight": kube-apiserver's flag of an apiservers
// field (scenarios/README.md names each after its flag).
std::string ServerFlag(const std::string& field) {
  std::string flag = "--";
  for (char ch : field) {
    if (ch >= 'A' && ch <= 'Z') {
      flag += '-';
      flag += static_cast<char>(ch - 'A' + 'a');
    } else {
      flag += ch;
    }
  }
  return flag;
}

// flags.txt: one kube-apiserver flag a line, "--max-requests-inflight=400"; empty when the
// fix changes no flag.
std::string FlagsText(const FixParts& parts) {
  std::string out;
  for (const auto& [field, value] : parts.flags)
    out += fmt::format("{}={}\n", ServerFlag(field), value);
  return out;
}

// Validates `text` as `apfsim lint` does (sim/flowcontrol/loader.h) before it is written:
// a manifest tune writes that the apiserver would refuse is a bug of tune, not of the input.
void ValidateBeforeWriting(const std::string& text, const std::string& name) {
  const FlowControlManifests manifests = ParseFlowControlYaml(text, name);
  const std::vector<InputError> errors = ValidateManifests(manifests);
  if (!errors.empty()) {
    throw std::logic_error("apfsim tune wrote an invalid " + name + ": " + errors.front().what());
  }
}

// How far the measured value is inside its bound (negative: outside it), in the assertion's
// own unit: `< 1` measured 1.3 is -0.3; `== 0` measured 511 is -511. Null when nothing was
// measured (a null in summary.json).
json AssertionMargin(const ExpectationResult& r) {
  if (!r.measured) return nullptr;
  const double m = *r.measured, v = r.expectation.value;
  switch (r.expectation.op) {
    case Expectation::Op::kLt:
    case Expectation::Op::kLe:
      return v - m;
    case Expectation::Op::kGt:
    case Expectation::Op::kGe:
      return m - v;
    case Expectation::Op::kEq:
      return -std::abs(m - v);
    case Expectation::Op::kNe:
      return std::abs(m - v);
  }
  return nullptr;
}

// The progress line's pace, as sim/workflows/progress.cc draws run's: a live line after a
// second, then at most five times a second; off a terminal a line every 10 s.
constexpr double kLiveProgressFirstSeconds = 1.0;
constexpr double kLiveProgressEverySeconds = 0.2;
constexpr double kPlainProgressEverySeconds = 10.0;

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The warnings `apfsim lint --config fix.yaml --strict` would count on a fix's objects (lint's
// own defaults, the scenario's Kubernetes version), reported with the fix.
std::vector<std::string> StrictLintWarnings(const std::string& manifest,
                                            apf::KubernetesVersion version) {
  const FlowControlManifests manifests = ParseFlowControlYaml(manifest, "fix.yaml");
  std::vector<std::string> out;
  for (const LintWarning& w :
       LintFlowControl(manifests, BuildFlowControl(version, manifests), LintOptions{})) {
    if (!w.stock) out.push_back(FormatLintWarning(w));
  }
  return out;
}

class Tuner {
 public:
  explicit Tuner(const TuneRequest& request) : request_(request) {}

  TuneOutcome Run();

 private:
  void BuildSpace();
  FixParts Parts(const Candidate& c) const;
  json ChangesJson(const Candidate& c) const;
  int ObjectsTouched(const Candidate& c) const;
  int StepsMoved(const Candidate& c) const;
  std::vector<Candidate> Children(const Candidate& c) const;
  // Judges `c` on the seeds in order; returns its record for tune.json.
  json Judge(const Candidate& c, std::size_t index, Score* score, bool* holds, bool* complete);

  // The progress line, drawn when due (a live line at most five times a second, a plain one
  // every 10 s of wall time).
  void Progress(std::size_t candidates, const json* best, bool force_clear = false);
  double Now() const { return request_.clock ? request_.clock() : SteadySeconds(); }

  const TuneRequest& request_;
  std::string dir_;      // where the files are written: the output set's staging folder
  int interrupted_ = 0;  // the signal that stopped the search
  double start_seconds_ = 0, next_progress_seconds_ = 0;
  bool live_line_ = false;
  ResolvedRun baseline_;
  nlohmann::json provenance_;
  std::vector<Param> params_;
  std::vector<FenceVariant> fences_;
  int spent_ = 0;
};

void Tuner::BuildSpace() {
  for (const apf::PriorityLevelConfiguration& pl : baseline_.flow_control.objects.priority_levels) {
    const std::string& name = pl.metadata.name;
    // catch-all is mandatory: its spec is fixed, the apiserver puts it back.
    if (!pl.spec.limited || name == "catch-all") continue;
    if (!request_.only_levels.empty() &&
        std::find(request_.only_levels.begin(), request_.only_levels.end(), name) ==
            request_.only_levels.end()) {
      continue;
    }
    const auto& l = *pl.spec.limited;
    params_.push_back({Param::Kind::kLevel, name, "nominalConcurrencyShares",
                       l.nominal_concurrency_shares.value_or(30)});
    params_.push_back(
        {Param::Kind::kLevel, name, "lendablePercent", l.lendable_percent.value_or(0)});
    params_.push_back(
        {Param::Kind::kLevel, name, "borrowingLimitPercent", l.borrowing_limit_percent});
    if (const auto& q = l.limit_response.queuing) {
      params_.push_back({Param::Kind::kLevel, name, "queues", q->queues ? q->queues : 64});
      params_.push_back({Param::Kind::kLevel, name, "handSize", q->hand_size ? q->hand_size : 8});
      params_.push_back({Param::Kind::kLevel, name, "queueLengthLimit",
                         q->queue_length_limit ? q->queue_length_limit : 50});
    }
  }
  for (const std::string& level : request_.only_levels) {
    if (std::none_of(params_.begin(), params_.end(),
                     [&](const Param& p) { return p.level == level; })) {
      throw InputError({"--only-levels", 0, 0}, "",
                       "\"" + level + "\" is not a limited priority level of the scenario");
    }
  }
  if (!request_.keep_flags) {
    params_.push_back({Param::Kind::kFlag, "", "maxRequestsInflight",
                       baseline_.scenario.apiservers.max_requests_inflight});
    params_.push_back({Param::Kind::kFlag, "", "maxMutatingRequestsInflight",
                       baseline_.scenario.apiservers.max_mutating_requests_inflight});
  }
  if (request_.no_fence) return;
  // The fence's level starts as seed 000's did (20 shares, half lendable, no borrowing:
  // a wall of its own) and its fields then move like any level's.
  params_.push_back({Param::Kind::kFence, "", "nominalConcurrencyShares", 20});
  params_.push_back({Param::Kind::kFence, "", "lendablePercent", 50});
  params_.push_back({Param::Kind::kFence, "", "borrowingLimitPercent", 0});
  params_.push_back({Param::Kind::kFence, "", "queues", 8});
  params_.push_back({Param::Kind::kFence, "", "handSize", 2});
  params_.push_back({Param::Kind::kFence, "", "queueLengthLimit", 50});
  // A client can be fenced when its identity is one subject: a fixed user (no {process}).
  for (const ClientSpec& client : baseline_.scenario.clients) {
    if (client.user.empty() || client.user.find('{') != std::string::npos) continue;
    std::string subject;
    const std::string sa = "system:serviceaccount:";
    if (client.user.rfind(sa, 0) == 0 && client.user.find(':', sa.size()) != std::string::npos) {
      const std::string rest = client.user.substr(sa.size());
      const std::size_t colon = rest.find(':');
      subject = fmt::format(
          "    - kind: ServiceAccount\n      serviceAccount:\n        name: {}\n"
          "        namespace: {}\n",
          rest.substr(colon + 1), rest.substr(0, colon));
    } else {
      subject = fmt::format("    - kind: User\n      user:\n        name: \"{}\"\n", client.user);
    }
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const TrafficSpec& t : client.traffic) {
      if (t.calls.size() != 1 || t.calls[0].resource.empty()) continue;
      const RequestTemplate& r = t.calls[0];
      if (!seen.insert({r.verb, r.api_group, r.resource}).second) continue;
      fences_.push_back({client.name, subject, r.verb, r.api_group, r.resource});
    }
    fences_.push_back({client.name, subject, "", "", ""});
  }
}

FixParts Tuner::Parts(const Candidate& c) const {
  FixParts parts;
  std::map<std::string, apf::PriorityLevelConfiguration> levels;
  std::map<std::string, int> fence_fields;
  for (const auto& [index, step] : c.steps) {
    const Param& p = params_[index];
    const int value = *StepValue(p, step);
    if (p.kind == Param::Kind::kFlag) {
      parts.flags.emplace_back(p.field, value);
      continue;
    }
    if (p.kind == Param::Kind::kFence) {
      fence_fields[p.field] = value;
      continue;
    }
    if (!levels.count(p.level)) {
      for (const auto& pl : baseline_.flow_control.objects.priority_levels) {
        if (pl.metadata.name == p.level) levels[p.level] = pl;
      }
      // A suggested object the apiserver would put back unless told not to
      // (doc/config-loading.md#specs-put-back); the scenario's own levels are left as written.
      if (apf::IsSuggestedPriorityLevel(baseline_.flow_control.version, p.level)) {
        levels[p.level].metadata.annotations["apf.kubernetes.io/autoupdate-spec"] = "false";
      }
    }
    auto& l = *levels[p.level].spec.limited;
    if (p.field == "nominalConcurrencyShares") l.nominal_concurrency_shares = value;
    if (p.field == "lendablePercent") l.lendable_percent = value;
    if (p.field == "borrowingLimitPercent") l.borrowing_limit_percent = value;
    if (auto& q = l.limit_response.queuing) {
      if (p.field == "queues") q->queues = value;
      if (p.field == "handSize") q->hand_size = value;
      if (p.field == "queueLengthLimit") q->queue_length_limit = value;
    }
  }
  for (const auto& [name, pl] : levels) {
    json manifest = PriorityLevelToJson(pl);
    // The digested object's bookkeeping is not the user's to apply.
    if (manifest.contains("metadata")) manifest["metadata"].erase("generation");
    parts.objects.push_back(JsonToYaml(manifest));
  }
  if (c.fence >= 0) {
    const FenceVariant& f = fences_[static_cast<std::size_t>(c.fence)];
    auto field = [&](const std::string& name, int fallback) {
      return fence_fields.count(name) ? fence_fields[name] : fallback;
    };
    const std::string name = "fence-" + f.client;
    std::string fence = fmt::format(
        "# A fence: {}'s {} on a level of their own.\n"
        "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\n"
        "metadata:\n  name: {}\nspec:\n  type: Limited\n  limited:\n"
        "    nominalConcurrencyShares: {}\n    lendablePercent: {}\n"
        "    borrowingLimitPercent: {}\n    limitResponse:\n      type: Queue\n"
        "      queuing:\n        queues: {}\n        handSize: {}\n"
        "        queueLengthLimit: {}\n---\n"
        "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\n"
        "metadata:\n  name: {}\nspec:\n  priorityLevelConfiguration:\n    name: {}\n"
        "  matchingPrecedence: 1000\n  distinguisherMethod:\n    type: ByUser\n"
        "  rules:\n  - subjects:\n{}",
        f.client, f.verb.empty() ? "requests" : f.verb + " " + f.resource, name,
        field("nominalConcurrencyShares", 20), field("lendablePercent", 50),
        field("borrowingLimitPercent", 0), field("queues", 8), field("handSize", 2),
        field("queueLengthLimit", 50), name, name, f.subject_yaml);
    if (f.verb.empty()) {
      fence +=
          "    resourceRules:\n    - verbs: [\"*\"]\n      apiGroups: [\"*\"]\n"
          "      resources: [\"*\"]\n      namespaces: [\"*\"]\n      clusterScope: true\n"
          "    nonResourceRules:\n    - verbs: [\"*\"]\n      nonResourceURLs: [\"*\"]\n";
    } else {
      fence += fmt::format(
          "    resourceRules:\n    - verbs: [\"{}\"]\n      apiGroups: [\"{}\"]\n"
          "      resources: [\"{}\"]\n      namespaces: [\"*\"]\n      clusterScope: true\n",
          f.verb, f.api_group, f.resource);
    }
    parts.objects.push_back(fence);
  }
  return parts;
}

std::string OverlayText(const FixParts& parts) {
  std::string out;
  for (const std::string& object : parts.objects) out += (out.empty() ? "" : "---\n") + object;
  // Flags are no object of the cluster: an Overlay document carries them (and is there
  // even when empty, so that the file always reads as an overlay).
  out += (out.empty() ? "" : "---\n") +
         std::string(
             "# The apiservers' flags, as apfsim --set values.\n"
             "apiVersion: apfsim/v1alpha1\nkind: Overlay\nset:") +
         (parts.flags.empty() ? " []\n" : "\n");
  for (const auto& [field, value] : parts.flags) {
    out += fmt::format("- apiservers.{}={}\n", field, value);
  }
  return out;
}

json Tuner::ChangesJson(const Candidate& c) const {
  json changes = json::array();
  if (c.fence >= 0) {
    const FenceVariant& f = fences_[static_cast<std::size_t>(c.fence)];
    changes.push_back(
        {{"fence", f.client}, {"requests", f.verb.empty() ? "all" : f.verb + " " + f.resource}});
  }
  for (const auto& [index, step] : c.steps) {
    const Param& p = params_[index];
    const std::string object = p.kind == Param::Kind::kFlag    ? "apiservers"
                               : p.kind == Param::Kind::kFence ? "fence"
                                                               : p.level;
    changes.push_back({{"object", object},
                       {"field", p.field},
                       {"from", p.base ? json(*p.base) : json(nullptr)},
                       {"to", *StepValue(p, step)}});
  }
  return changes;
}

int Tuner::ObjectsTouched(const Candidate& c) const {
  std::set<std::string> objects;
  for (const auto& [index, step] : c.steps) {
    const Param& p = params_[index];
    if (p.kind == Param::Kind::kLevel) objects.insert("level/" + p.level);
    if (p.kind == Param::Kind::kFlag) objects.insert("flag/" + p.field);
  }
  return static_cast<int>(objects.size()) + (c.fence >= 0 ? 2 : 0);
}

int Tuner::StepsMoved(const Candidate& c) const {
  int steps = c.fence >= 0 ? 1 : 0;
  for (const auto& [index, step] : c.steps) steps += std::abs(step);
  return steps;
}

std::vector<Candidate> Tuner::Children(const Candidate& c) const {
  std::vector<Candidate> children;
  if (c.fence < 0) {
    for (std::size_t f = 0; f < fences_.size(); ++f) {
      Candidate child = c;
      child.fence = static_cast<int>(f);
      children.push_back(child);
    }
  }
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].kind == Param::Kind::kFence && c.fence < 0) continue;
    const auto it = c.steps.find(i);
    std::vector<int> next;
    if (it == c.steps.end()) {
      next = {1, -1};
    } else {
      next = {it->second + (it->second > 0 ? 1 : -1)};
    }
    for (int step : next) {
      if (!StepValue(params_[i], step)) continue;
      Candidate child = c;
      child.steps[i] = step;
      children.push_back(child);
    }
  }
  return children;
}

json Tuner::Judge(const Candidate& c, std::size_t index, Score* score, bool* holds,
                  bool* complete) {
  const std::string dir = fmt::format("{}/candidates/{:04}", dir_, index);
  json record = {{"index", index},
                 {"changes", ChangesJson(c)},
                 {"objectsTouched", ObjectsTouched(c)},
                 {"steps", StepsMoved(c)}};
  RunRequest run;
  run.scenario_file = request_.scenario_file;
  run.overrides = request_.overrides;
  run.quiet = true;
  run.write_timelines = false;
  run.budget = request_.budget;
  ResolvedRun resolved;
  try {
    if (c.fence >= 0 || !c.steps.empty()) {
      MakeOutputDirectory(dir);
      WriteOutputFile(dir + "/overlay.yaml", OverlayText(Parts(c)));
      run.overlay_files = {dir + "/overlay.yaml"};
      // Named by its place in the search's folder, as tune.json names what is in it.
      run.provenance_folder = {dir_, ""};
      resolved = ResolveRunInputs(run);
    } else {
      resolved = baseline_;
    }
  } catch (const InputError& e) {
    // A combination validation refuses (a hand larger than the queues allow): no run.
    // Named inside DIR, so that tune.json does not depend on where DIR is.
    std::string why = e.what();
    if (why.rfind(dir_ + "/", 0) == 0) why.erase(0, dir_.size() + 1);
    record["invalid"] = why;
    *holds = false;
    *complete = true;
    return record;
  }
  const std::vector<std::uint64_t>& seeds = request_.seeds;
  std::vector<std::vector<ExpectationResult>> per_seed;
  json judged = json::array();
  *holds = false;
  *complete = false;
  std::size_t next = 0;
  bool failed = false;
  while (next < seeds.size() && !failed) {
    const int left = request_.max_runs - spent_;
    if (left <= 0) break;
    const std::size_t batch = std::min<std::size_t>(
        {seeds.size() - next, static_cast<std::size_t>(ThreadsFor(request_.jobs, seeds.size())),
         static_cast<std::size_t>(left)});
    std::vector<RunOutcome> outcomes(batch);
    RunTasks(batch, request_.jobs, [&](std::size_t i) {
      ResolvedRun replication = resolved;
      replication.scenario.seed = seeds[next + i];
      RunRequest r = run;
      r.seed = seeds[next + i];
      r.out_dir = SeedDir(dir, seeds[next + i]);
      outcomes[i] = RunScenario(replication, r);
    });
    // A run cut short by a signal has no verdicts: judging it would pass it. The candidate
    // is left unjudged and the search stops with the best found before it (Run).
    if (const int signal_number = PendingInterrupt(); signal_number != 0) {
      interrupted_ = signal_number;
      return record;
    }
    // Judged in seed order; the runs after a failing seed are not looked at nor charged,
    // so the batch size (--jobs) never changes the answer.
    for (std::size_t i = 0; i < batch && !failed; ++i) {
      ++spent_;
      per_seed.push_back(outcomes[i].expectations);
      int passed = 0;
      double margin = 0;
      const ExpectationResult* first_failure = nullptr;
      for (const ExpectationResult& r : outcomes[i].expectations) {
        if (r.passed) ++passed;
        margin += Shortfall(r);
        if (!r.passed && r.expectation.seeds_mode == Expectation::SeedsMode::kEvery &&
            !first_failure) {
          first_failure = &r;
        }
      }
      score->assertions_passed = passed;
      score->margin = margin;
      json seed_record = {{"seed", seeds[next + i]}, {"assertionsPassed", passed}};
      if (first_failure) {
        failed = true;
        seed_record["failed"] = {
            {"assertion", DescribeAssertion(first_failure->expectation)},
            {"line", first_failure->expectation.where.line},
            {"measured", first_failure->measured ? json(*first_failure->measured) : json(nullptr)},
            {"margin", AssertionMargin(*first_failure)}};
        record["failedSeed"] = seeds[next + i];
        record["failedAssertion"] = seed_record["failed"];
      } else {
        ++score->seeds_passed;
      }
      judged.push_back(seed_record);
    }
    next += batch;
  }
  record["seeds"] = judged;
  if (failed) {
    *complete = true;
    return record;
  }
  if (per_seed.size() < seeds.size()) {
    record["unfinished"] = "the budget ran out before every seed was judged";
    return record;
  }
  *complete = true;
  int passed = 0;
  const std::vector<ExpectationResult> combined = CombineSeedVerdicts(per_seed, seeds);
  for (const ExpectationResult& r : combined) {
    if (r.passed) {
      ++passed;
    } else if (!record.contains("failedAssertion")) {
      record["failedAssertion"] = {{"assertion", DescribeAssertion(r.expectation)},
                                   {"line", r.expectation.where.line},
                                   {"verdict", DescribeSeedVerdict(r)}};
    }
  }
  *holds = passed == static_cast<int>(combined.size());
  record["holds"] = *holds;
  return record;
}

void Tuner::Progress(std::size_t candidates, const json* best, bool clear) {
  if (request_.progress == ProgressStyle::kNone) return;
  auto write = [&](const std::string& text) {
    if (request_.progress_writer) {
      request_.progress_writer(text);
    } else {
      std::fputs(text.c_str(), stderr);
      std::fflush(stderr);
    }
  };
  if (clear) {
    if (live_line_) write("\r\033[K");
    live_line_ = false;
    return;
  }
  const double now = Now();
  if (now < next_progress_seconds_) return;
  std::string line = fmt::format("tune {}: {} candidate{}, {} of {} runs, {}",
                                 baseline_.scenario.name, candidates, candidates == 1 ? "" : "s",
                                 spent_, request_.max_runs, FormatClock(now - start_seconds_));
  if (best) {
    const json& score = (*best)["score"];
    line += fmt::format("; best so far: candidate {} ({} of {} seeds, margin {:.4g})",
                        (*best)["index"].get<std::size_t>(), score["seedsPassed"].get<int>(),
                        request_.seeds.size(), score["margin"].get<double>());
  }
  if (request_.progress == ProgressStyle::kLive) {
    write("\r\033[K" + line);
    live_line_ = true;
    next_progress_seconds_ = now + kLiveProgressEverySeconds;
  } else {
    write(line + "\n");
    // The next multiple of 10 s from the start, as `run --progress always` does.
    next_progress_seconds_ =
        start_seconds_ + kPlainProgressEverySeconds *
                             (std::floor((now - start_seconds_) / kPlainProgressEverySeconds) + 1);
  }
}

// The sentence for a change of tune.json's "changes".
std::string DescribeChange(const json& change) {
  return change.contains("fence")
             ? fmt::format("fence {}'s {} requests on a level of their own",
                           change["fence"].get<std::string>(),
                           change["requests"].get<std::string>())
             : fmt::format("{} {}: {} -> {}", change["object"].get<std::string>(),
                           change["field"].get<std::string>(), change["from"].dump(),
                           change["to"].dump());
}

TuneOutcome Tuner::Run() {
  RunInputs inputs;
  inputs.scenario_file = request_.scenario_file;
  inputs.overrides = request_.overrides;
  baseline_ = ResolveRunInputs(inputs);
  // The candidates' runs are quiet: what the scenario itself warns about is said once.
  std::set<std::string> shown;
  PrintRunWarnings(baseline_, &shown);
  // Where the search started from, as summary.json records a run's; the seeds it judged
  // on are tune.json's own "seeds", so the scenario's default seed is left out.
  provenance_ = RunProvenance(inputs, baseline_);
  provenance_.erase("seed");
  if (baseline_.scenario.expectations.empty()) {
    throw InputError({request_.scenario_file, 0, 0}, "spec.expect",
                     "apfsim tune needs a goal: the scenario has no spec.expect assertions");
  }
  if (request_.seeds.empty()) {
    throw InputError({"--seeds", 0, 0}, "", "no seeds to judge the candidates on");
  }
  if (request_.max_runs < 1) throw InputError({"--budget", 0, 0}, "", "at least 1 run");
  if (request_.time_budget_seconds < 0) {
    throw InputError({"--time-budget", 0, 0}, "", "must not be negative");
  }
  BuildSpace();
  // One output set: the folder keeps the previous search's files until this one ends, and
  // then holds this one's alone, however it ended (a fix, a budget, a signal). The fix-N
  // files of the previous search are replaced whatever their number.
  std::vector<std::string> owned = {"fix.yaml",    "flags.txt",  "check-overlay.yaml",
                                    "tune.json",   "candidates", "compare.json",
                                    "compare.png", "before",     "after"};
  {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(request_.out_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("fix-", 0) == 0 && name.size() > 9 &&
          name.compare(name.size() - 5, 5, ".yaml") == 0) {
        owned.push_back(name);
      }
    }
  }
  OutputSet set(request_.out_dir, owned);
  dir_ = set.staging_dir();
  start_seconds_ = Now();
  next_progress_seconds_ =
      start_seconds_ + (request_.progress == ProgressStyle::kPlain ? kPlainProgressEverySeconds
                                                                   : kLiveProgressFirstSeconds);

  // The frontier, best first: fewest objects, then fewest steps, then the best score of the
  // candidate it grew from, then the order it was found in (deterministic).
  using Priority = std::tuple<int, int, Score, std::size_t>;
  auto better = [](const Priority& a, const Priority& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) < std::get<1>(b);
    if (std::get<2>(a) != std::get<2>(b)) return std::get<2>(a) > std::get<2>(b);
    return std::get<3>(a) < std::get<3>(b);
  };
  std::map<Priority, Candidate, decltype(better)> frontier(better);
  std::set<std::string> seen;
  std::size_t found = 0;
  auto push = [&](const Candidate& c, const Score& parent) {
    if (!seen.insert(CandidateKey(c)).second) return;
    frontier.emplace(Priority{ObjectsTouched(c), StepsMoved(c), parent, found++}, c);
  };
  push(Candidate{}, Score{});

  json tried = json::array();
  std::optional<Candidate> best;
  Score best_score;
  bool best_holds = false;
  std::size_t best_index = 0;
  bool out_of_time = false;
  while (!frontier.empty() && spent_ < request_.max_runs) {
    const Candidate c = frontier.begin()->second;
    const Score parent = std::get<2>(frontier.begin()->first);
    frontier.erase(frontier.begin());
    Score score;
    bool holds = false, complete = false;
    json record = Judge(c, tried.size(), &score, &holds, &complete);
    // A candidate whose runs a signal cut short is not judged: the search ends with the
    // best before it.
    if (interrupted_ != 0) break;
    record["score"] = {{"seedsPassed", score.seeds_passed},
                       {"assertionsPassed", score.assertions_passed},
                       {"margin", score.margin}};
    const bool invalid = record.contains("invalid");
    tried.push_back(record);
    if (!invalid && (!best || holds || score > best_score)) {
      best = c;
      best_score = score;
      best_holds = holds;
      best_index = tried.size() - 1;
    }
    Progress(tried.size(), best ? &tried[best_index] : nullptr);
    if (request_.after_candidate) request_.after_candidate(static_cast<int>(tried.size()));
    if (holds) break;
    // Only a move that brought the goal closer is built on (the unchanged configuration
    // always is): otherwise the one-object combinations alone would outlast any budget
    // before a second object or a fence is tried.
    if (!invalid && complete && ((c.steps.empty() && c.fence < 0) || score > parent)) {
      for (const Candidate& child : Children(c)) push(child, score);
    }
    // A signal between candidates (in the hook, or while the last one was being judged
    // after its runs ended) stops the search the same way.
    if (interrupted_ == 0) interrupted_ = PendingInterrupt();
    if (interrupted_ != 0) break;
    if (request_.time_budget_seconds > 0 &&
        Now() - start_seconds_ >= request_.time_budget_seconds) {
      out_of_time = true;
      break;
    }
  }
  Progress(tried.size(), nullptr, /*clear=*/true);

  TuneOutcome outcome;
  outcome.holds = best_holds;
  outcome.runs_spent = spent_;
  outcome.candidates = static_cast<int>(tried.size());
  outcome.interrupted_by = interrupted_;
  outcome.fix_file = request_.out_dir + "/fix.yaml";
  const Candidate fix = best.value_or(Candidate{});
  const FixParts parts = Parts(fix);
  const std::string manifest = ManifestText(parts);
  const std::string overlay = OverlayText(parts);
  ValidateBeforeWriting(manifest, "fix.yaml");
  // The fixes found, best first (one so far: the search stops at the first that holds, or
  // keeps the closest); fix.yaml is the chosen one.
  WriteOutputFile(dir_ + "/fix-1.yaml", manifest);
  WriteOutputFile(dir_ + "/fix.yaml", manifest);
  WriteOutputFile(dir_ + "/flags.txt", FlagsText(parts));
  WriteOutputFile(dir_ + "/check-overlay.yaml", overlay);
  // The overlay is read back as `check --overlay` reads it, objects and --set values, on the
  // scenario: the same validation, in the scenario's own context.
  try {
    RunInputs check;
    check.scenario_file = request_.scenario_file;
    check.overrides = request_.overrides;
    check.overlay_files = {dir_ + "/check-overlay.yaml"};
    ResolveRunInputs(check);
  } catch (const InputError& e) {
    throw std::logic_error(std::string("apfsim tune wrote an invalid check-overlay.yaml: ") +
                           e.what());
  }
  const std::string seeds_text =
      fmt::format("{} seed{}", request_.seeds.size(), request_.seeds.size() == 1 ? "" : "s");
  const std::string result = best_holds          ? "holds"
                             : interrupted_ != 0 ? "interrupted"
                             : out_of_time       ? "time-budget"
                             : frontier.empty()  ? "exhausted"
                                                 : "budget";
  json flags = json::array();
  for (const auto& [field, value] : parts.flags)
    flags.push_back(fmt::format("{}={}", ServerFlag(field), value));
  outcome.tune = {{"scenario", baseline_.scenario.name},
                  {"method",
                   "best-first search over discrete step ladders, ordered by (objects touched, "
                   "steps moved, parent's score); each candidate judged over the seeds in order "
                   "and dropped at its first failing seed"},
                  {"seeds", request_.seeds},
                  {"budget", request_.max_runs},
                  {"budgetSpent", spent_},
                  {"result", result},
                  {"holds", best_holds},
                  {"fix",
                   {{"candidate", best_index},
                    {"changes", ChangesJson(fix)},
                    {"file", "fix.yaml"},
                    {"flags", flags},
                    {"flagsFile", "flags.txt"},
                    {"checkOverlay", "check-overlay.yaml"}}},
                  {"fixes", json::array({{{"rank", 1},
                                          {"candidate", best_index},
                                          {"holds", best_holds},
                                          {"changes", ChangesJson(fix)},
                                          {"file", "fix-1.yaml"}}})},
                  {"candidates", tried},
                  {"provenance", provenance_}};
  // The wall-time budget is recorded only when given: it is the one input that makes the
  // result depend on the machine.
  if (request_.time_budget_seconds > 0) {
    outcome.tune["timeBudget"] =
        FormatDuration(static_cast<apf::Nanos>(std::llround(request_.time_budget_seconds * 1e9)));
  }
  if (interrupted_ != 0) outcome.tune["interruptedBy"] = SignalName(interrupted_);

  std::string changes;
  for (const json& change : ChangesJson(fix)) changes += "  " + DescribeChange(change) + "\n";
  if (changes.empty()) changes = "  (no change)\n";
  const std::string why_stopped =
      result == "interrupted"   ? fmt::format(", stopped by {}", SignalName(interrupted_))
      : result == "time-budget" ? fmt::format(", the time budget of {} spent",
                                              outcome.tune["timeBudget"].get<std::string>())
      : result == "exhausted"   ? ", the search space exhausted"
                                : ", the budget spent";
  if (best_holds) {
    outcome.message =
        fmt::format("a fix that holds on every one of {} ({} candidates, {} of {} runs):\n{}",
                    seeds_text, tried.size(), spent_, request_.max_runs, changes);
  } else {
    outcome.message =
        fmt::format("no candidate held on every one of {} ({} candidates, {} of {} runs{})",
                    seeds_text, tried.size(), spent_, request_.max_runs, why_stopped);
    // What blocks the goal: the assertion the closest candidate failed, how far it missed,
    // and how many of the candidates judged failed the same one.
    if (best && tried[best_index].contains("failedAssertion")) {
      const json& failed = tried[best_index]["failedAssertion"];
      int failed_by = 0, judged = 0;
      for (const json& t : tried) {
        if (t.contains("invalid") || !t.contains("failedAssertion")) continue;
        ++judged;
        if (t["failedAssertion"]["line"] == failed["line"]) ++failed_by;
      }
      json blocked = {{"assertion", failed["assertion"]},
                      {"line", failed["line"]},
                      {"candidate", best_index},
                      {"failedBy", failed_by},
                      {"candidatesJudged", judged}};
      std::string measured;
      if (failed.contains("measured")) {
        blocked["measured"] = failed["measured"];
        blocked["margin"] = failed.value("margin", json(nullptr));
        blocked["seed"] = tried[best_index]["failedSeed"];
        measured = failed["measured"].is_null()
                       ? fmt::format(" on seed {} (nothing measured)",
                                     tried[best_index]["failedSeed"].dump())
                       : fmt::format(" on seed {}: measured {}, margin {:.6g}",
                                     tried[best_index]["failedSeed"].dump(),
                                     failed["measured"].dump(), blocked["margin"].get<double>());
      } else if (failed.contains("verdict")) {
        blocked["verdict"] = failed["verdict"];
        measured = ": " + failed["verdict"].get<std::string>();
      }
      outcome.tune["blockedBy"] = blocked;
      outcome.message += fmt::format(
          ".\nblocked by `{}` (line {}), failed by {} of the {} candidates judged; the closest, "
          "candidate {} ({} of {} seeds passed, margin {:.4g}), failed it{}:\n{}",
          failed["assertion"].get<std::string>(), failed["line"].dump(), failed_by, judged,
          best_index, best_score.seeds_passed, request_.seeds.size(), best_score.margin, measured,
          changes);
    } else {
      outcome.message += fmt::format("; the closest (candidate {}):\n{}", best_index, changes);
    }
  }
  // What lint --strict would say of fix.yaml: a fence's queue length is often not enforced
  // at lint's assumed server size (queue-length-unenforced); the search does not steer by it.
  const std::vector<std::string> lint_warnings =
      StrictLintWarnings(manifest, baseline_.flow_control.version);
  outcome.tune["fix"]["lintWarnings"] = lint_warnings;
  for (const std::string& w : lint_warnings) {
    outcome.message += "note: `apfsim lint --config fix.yaml --strict` warns: " + w + "\n";
  }
  WriteOutputFile(dir_ + "/tune.json", outcome.tune.dump(2) + "\n");
  set.Commit();
  dir_ = request_.out_dir;

  if (request_.compare && interrupted_ == 0) {
    CompareRequest compare;
    compare.scenario_file = request_.scenario_file;
    compare.overrides = request_.overrides;
    compare.overlay_files = {request_.out_dir + "/check-overlay.yaml"};
    compare.seeds = request_.seeds;
    compare.jobs = request_.jobs;
    compare.out_dir = request_.out_dir;
    compare.budget = request_.budget;
    try {
      RunCompare(compare);
    } catch (const RunInterrupted& e) {
      // The fix is kept whole; only the compare of it is missing.
      outcome.interrupted_by = e.signal_number();
    }
  }
  return outcome;
}

}  // namespace

TuneOutcome RunTune(const TuneRequest& request) { return Tuner(request).Run(); }

}  // namespace sim
