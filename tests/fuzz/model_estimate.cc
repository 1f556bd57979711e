// Fuzz target: the JSON cases of `apfsim model estimate` (sim/model/estimate.h), parsed and
// replayed as the command does.
#include "sim/io/json_input.h"
#include "sim/model/estimate.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    const nlohmann::json cases = sim::ParseJsonText(fuzz_support::AsText(data, size), "<stdin>");
    sim::ReplayEstimateCases(cases, "<stdin>").dump();
  });
}
