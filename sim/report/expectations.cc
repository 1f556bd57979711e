#include "sim/report/expectations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/io/input_error.h"
#include "sim/io/text.h"

namespace sim {
namespace {

// Seconds as summary.json writes them: microsecond resolution, six decimals.
double Seconds(apf::Nanos ns) { return Round6(apf::ToSeconds(ns / 1000 * 1000)); }

}  // namespace

ExpectationWindows::ExpectationWindows(const std::vector<Expectation>& expectations)
    : expectations_(expectations), values_(expectations.size(), 0.0) {}

void ExpectationWindows::Fold(std::size_t i, double v) {
  if (FoldOf(expectations_[i]) == ExpectationFold::kSum) {
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
    if (f == "callsRejected") Fold(i, static_cast<double>(row.calls_rejected));
    // The client's own distributions: per-interval percentiles (an interval with no
    // sample has none), and the maximum, which over a window is exact.
    if (!row.distributions) continue;
    const std::string_view name(f);
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) continue;
    const std::string_view which = name.substr(0, dot), stat = name.substr(dot + 1);
    const LatencyHistogram* h = which == "queueWaitSeconds"      ? &row.distributions->queue_wait
                                : which == "throttleWaitSeconds" ? &row.distributions->throttle_wait
                                : which == "iterationSeconds"    ? &row.distributions->iteration
                                                                 : nullptr;
    if (!h || h->count() == 0) continue;
    if (stat == "p50") Fold(i, Seconds(h->Quantile(0.5)));
    if (stat == "p99") Fold(i, Seconds(h->Quantile(0.99)));
    if (stat == "max") Fold(i, Seconds(h->max()));
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
          for (const auto& [name, unused] : node->items())
            known += (known.empty() ? "" : ", ") + name;
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

std::vector<ExpectationResult> CombineSeedVerdicts(
    const std::vector<std::vector<ExpectationResult>>& per_seed,
    const std::vector<std::uint64_t>& seeds) {
  std::vector<ExpectationResult> combined;
  if (per_seed.empty()) return combined;
  for (std::size_t e = 0; e < per_seed[0].size(); ++e) {
    ExpectationResult r;
    r.expectation = per_seed[0][e].expectation;
    r.seeds = seeds;
    double sum = 0;
    bool all_numbers = true;
    for (std::size_t i = 0; i < per_seed.size(); ++i) {
      const ExpectationResult& one = per_seed[i][e];
      r.seed_measured.push_back(one.measured);
      if (one.measured) {
        sum += *one.measured;
      } else {
        all_numbers = false;
      }
      if (!one.passed) r.failed_seeds.push_back(seeds[i]);
    }
    if (all_numbers) r.measured = sum / static_cast<double>(per_seed.size());
    const std::size_t n = per_seed.size(), held = n - r.failed_seeds.size();
    switch (r.expectation.seeds_mode) {
      case Expectation::SeedsMode::kEvery:
        r.passed = held == n;
        break;
      case Expectation::SeedsMode::kMean:
        r.passed =
            r.measured && CompareExpectation(*r.measured, r.expectation.op, r.expectation.value);
        break;
      case Expectation::SeedsMode::kShare:
        // held / n >= share, with room for the share's own rounding ("95%" is 0.95).
        r.passed =
            static_cast<double>(held) >= r.expectation.seeds_share * static_cast<double>(n) - 1e-9;
        break;
    }
    combined.push_back(std::move(r));
  }
  return combined;
}

std::string DescribeSeedVerdict(const ExpectationResult& r) {
  if (r.seeds.empty()) return "";
  const std::size_t n = r.seeds.size(), held = n - r.failed_seeds.size();
  std::string needs;
  switch (r.expectation.seeds_mode) {
    case Expectation::SeedsMode::kEvery:
      needs = "every seed needed";
      break;
    case Expectation::SeedsMode::kMean:
      needs = "the mean decides";
      break;
    case Expectation::SeedsMode::kShare:
      needs = fmt::format("{:g}% of the seeds needed", r.expectation.seeds_share * 100);
      break;
  }
  std::string text = fmt::format("mean over {} seeds, holds in {} of {} ({})", n, held, n, needs);
  if (!r.failed_seeds.empty()) {
    text += fmt::format(", failed in seed{} {}", r.failed_seeds.size() > 1 ? "s" : "",
                        fmt::join(r.failed_seeds, ", "));
  }
  return text;
}

std::string FormatMeasured(const std::optional<double>& measured) {
  return measured ? fmt::format("{}", *measured) : "null";
}

std::string FormatMeasured(const std::optional<double>& measured, const Expectation& e) {
  if (!measured || e.value_decimals < 0) return FormatMeasured(measured);
  const bool verdict = CompareExpectation(*measured, e.op, e.value);
  // 17 significant digits always read back as the same double: stop there at the latest.
  for (int decimals = e.value_decimals; decimals <= 17; ++decimals) {
    std::string text = fmt::format("{:.{}f}", *measured, decimals);
    if (text == "-0" || text.rfind("-0.", 0) == 0) {
      if (std::strtod(text.c_str(), nullptr) == 0) text.erase(0, 1);  // no "-0"
    }
    if (CompareExpectation(std::strtod(text.c_str(), nullptr), e.op, e.value) == verdict) {
      return text;
    }
  }
  return FormatMeasured(measured);
}

}  // namespace sim
