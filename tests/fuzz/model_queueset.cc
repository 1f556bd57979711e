// Fuzz target: the JSON cases of `apfsim model queueset` (sim/model/queue_set_replay.h), read,
// replayed and written as the command does: streamed, case by case.
#include <sstream>
#include <string>

#include "sim/model/queue_set_replay.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    std::istringstream in{std::string(fuzz_support::AsText(data, size))};
    std::ostringstream out;
    sim::StreamQueueSetCases(in, out, "<stdin>");
  });
}
