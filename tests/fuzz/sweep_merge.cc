// Fuzz target: `apfsim sweep merge` on part files (sim/workflows/sweep.h MergeSweepParts).
// The input is split at its first form feed into two parts, so that the checks across
// parts (their grid sizes, columns and indices) are reached as well as those of one part.
#include "sim/workflows/sweep.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    const std::string_view text = fuzz_support::AsText(data, size);
    const std::size_t split = text.find('\f');
    std::vector<std::string> parts = {std::string(text.substr(0, split))};
    std::vector<std::string> names = {"sweep.part-0-of-2.csv"};
    if (split != std::string_view::npos) {
      parts.emplace_back(text.substr(split + 1));
      names.emplace_back("sweep.part-1-of-2.csv");
    }
    sim::MergeSweepParts(parts, names);
  });
}
