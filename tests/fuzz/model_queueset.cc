// Fuzz target: the JSON cases of `apfsim model queueset` (sim/model/queueset.h), parsed and
// replayed as the command does.
#include "sim/io/json_input.h"
#include "sim/model/queueset.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    const nlohmann::json cases = sim::ParseJsonText(fuzz_support::AsText(data, size), "<stdin>");
    sim::ReplayQueueSetCases(cases, "<stdin>").dump();
  });
}
