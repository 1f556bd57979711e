// Fuzz target: a Prometheus text-format scrape through the object-count importer
// (sim/scenario/metrics_import.h).
#include "sim/scenario/metrics_import.h"

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    sim::ResourcesFromMetricsText(fuzz_support::AsText(data, size), "fuzz-metrics.prom");
  });
}
