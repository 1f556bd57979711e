// Throughput of `apfsim model queueset` without the process around it: one case of the
// workload-low shape (245 seats, 128 queues, hand 6, queue length 50, 200 flows, 2,000
// arrivals per second, 90% one-seat 20 ms and 10% ten-seat 80 ms mean exponential
// service, 15 s wait limit), as JSON text in memory, read, replayed and written by
// sim::StreamQueueSetCases. The counter is requests per wall second, JSON included; the
// README's Performance section has the whole process on a million requests
// (bench/make_queueset_case.py), which this mirrors at a size a benchmark repeats.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "sim/engine/random.h"
#include "sim/model/queue_set_replay.h"

namespace {

std::string WorkloadLowCase(int requests) {
  sim::Random random(18, "model-queueset-bench");
  std::string text = R"([{"queueset": {"concurrencyLimit": 245, "queues": 128, "handSize": 6,
    "queueLengthLimit": 50}, "requests": [)";
  double t = 0;
  char line[200];
  for (int i = 0; i < requests; ++i) {
    t += random.Exponential(2000.0);
    const auto flow = random.UniformInt(200);
    const bool large = random.Uniform01() >= 0.9;
    const double service = random.Exponential(large ? 1 / 0.080 : 1 / 0.020);
    std::snprintf(line, sizeof line,
                  R"(%s{"id":%d,"arrive":%.6f,"flowSchema":"s","distinguisher":"f%d",%s)"
                  R"("service":%.6f,"waitLimit":15})",
                  i == 0 ? "\n" : ",\n", i, t, static_cast<int>(flow),
                  large ? R"("initialSeats":10,)" : "", service);
    text += line;
  }
  return text + "]}]\n";
}

void BM_ModelQueueSetStream(benchmark::State& state) {
  const int requests = static_cast<int>(state.range(0));
  const std::string text = WorkloadLowCase(requests);
  for (auto _ : state) {
    std::istringstream in(text);
    std::ostringstream out;
    sim::StreamQueueSetCases(in, out, "<stdin>");
    benchmark::DoNotOptimize(out.str().size());
  }
  state.counters["requests/s"] =
      benchmark::Counter(static_cast<double>(requests) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ModelQueueSetStream)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
