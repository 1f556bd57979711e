// Fuzz target: a CSV trace (sim/scenario/trace_replay.h) read to its end, as a replay would.
#include "sim/scenario/trace_replay.h"

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    sim::CsvTraceReader reader(
        fuzz_support::WriteInputFile(fuzz_support::AsText(data, size), ".csv"), "controller",
        5 * apf::kSecond, sim::LineReader::Digest::kSha256);
    sim::ReplayRow row;
    while (reader.Next(&row)) reader.FillRequest(&row);
    reader.FinishSha256();
  });
}
