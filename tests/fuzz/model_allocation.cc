// Fuzz target: the JSON cases of `apfsim model allocation` (sim/model/allocation.h), parsed and
// replayed as the command does.
#include "sim/io/json_input.h"
#include "sim/model/allocation.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    const nlohmann::json cases = sim::ParseJsonText(fuzz_support::AsText(data, size), "<stdin>");
    sim::ReplayAllocationCases(cases, "<stdin>").dump();
  });
}
