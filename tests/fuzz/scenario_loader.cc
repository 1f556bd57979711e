// Fuzz target: scenario YAML text through the scenario loader (sim/scenario/loader.h).
#include "sim/scenario/loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput(
      [&] { sim::ParseScenarioText(fuzz_support::AsText(data, size), "fuzz-scenario.yaml"); });
}
