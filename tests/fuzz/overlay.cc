// Fuzz target: an overlay file (sim/scenario/overlay.h), which only a file path reaches.
#include "sim/scenario/overlay.h"

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    sim::LoadOverlay(fuzz_support::WriteInputFile(fuzz_support::AsText(data, size), ".yaml"));
  });
}
