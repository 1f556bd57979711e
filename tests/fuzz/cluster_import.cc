// Fuzz target: the readers of `apfsim import` that no other target covers: the generic
// Prometheus sample parser (sim/scenario/metrics_import.h ParseMetricsText) and the APF
// debug-dump parser (sim/scenario/cluster_import.h ParseDebugDump).
#include "sim/scenario/cluster_import.h"

#include "sim/scenario/metrics_import.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
           const std::string_view text = fuzz_support::AsText(data, size);
           sim::ParseMetricsText(text, "fuzz-metrics.prom");
         }) |
         fuzz_support::RunFuzzInput([&] {
           sim::ParseDebugDump(fuzz_support::AsText(data, size), "fuzz-dump.txt",
                               "PriorityLevelName", 9);
         });
}
