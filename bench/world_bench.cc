// Whole runs of the simulator: a scenario from
// file to outputs through sim::RunScenario, as `apfsim run --quiet` does it, timed in wall
// time. Counters: items_per_second is simulated attempts (requests that reached an
// apiserver, retries included) per wall second; peak_rss_MB is the process's peak resident
// memory so far (getrusage ru_maxrss), so run one benchmark per process, with
// --benchmark_filter, to read one run's peak.
//
//   apfsim_bench --benchmark_filter=WholeRun/drift-sweep
//   apfsim_bench --benchmark_filter=WholeRun/synthetic-hour
//   APFSIM_LONG_BENCH=1 apfsim_bench --benchmark_filter=WholeRun/synthetic-day
//
// The synthetic day (bench/synthetic-day.yaml, 24 virtual hours at about 3,000 requests
// per second) takes minutes, so it is registered only when APFSIM_LONG_BENCH is set; the
// synthetic hour is the same scenario cut to one virtual hour with --set duration=1h.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/workflows/run.h"

namespace {

double PeakRssMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::string SourcePath(const std::string& relative) {
  return std::string(APFSIM_SOURCE_DIR) + "/" + relative;
}

void RunWhole(benchmark::State& state, const std::string& scenario,
              const std::vector<std::string>& overrides) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("apfsim-world-bench-" + std::to_string(getpid()));
  std::int64_t attempts = 0;
  std::int64_t events = 0;
  for (auto _ : state) {
    sim::RunRequest request;
    request.scenario_file = SourcePath(scenario);
    request.overrides = overrides;
    request.out_dir = out.string();
    request.quiet = true;
    const sim::RunOutcome outcome = sim::RunScenario(request);
    attempts += outcome.summary.at("attempts").get<std::int64_t>();
    events += outcome.summary.at("events").get<std::int64_t>();
  }
  std::filesystem::remove_all(out);
  state.SetItemsProcessed(attempts);
  state.counters["attempts"] =
      benchmark::Counter(static_cast<double>(attempts), benchmark::Counter::kAvgIterations);
  state.counters["events"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kAvgIterations);
  state.counters["peak_rss_MB"] = PeakRssMegabytes();
}

void BM_WholeRunDriftSweep(benchmark::State& state) {
  RunWhole(state, "scenarios/drift-sweep.yaml", {});
}
BENCHMARK(BM_WholeRunDriftSweep)
    ->Name("WholeRun/drift-sweep")
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

void BM_WholeRunSyntheticHour(benchmark::State& state) {
  RunWhole(state, "bench/synthetic-day.yaml", {"duration=1h"});
}
BENCHMARK(BM_WholeRunSyntheticHour)
    ->Name("WholeRun/synthetic-hour")
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

void BM_WholeRunSyntheticDay(benchmark::State& state) {
  RunWhole(state, "bench/synthetic-day.yaml", {});
}
[[maybe_unused]] const bool kDayRegistered = [] {
  if (std::getenv("APFSIM_LONG_BENCH") == nullptr) return false;
  benchmark::RegisterBenchmark("WholeRun/synthetic-day", BM_WholeRunSyntheticDay)
      ->Unit(benchmark::kSecond)
      ->Iterations(1)
      ->UseRealTime();
  return true;
}();

}  // namespace
