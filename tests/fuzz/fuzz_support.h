// What every libFuzzer target (tests/fuzz/*.cc) shares: bad input is a normal outcome,
// anything else is a finding.
//
// A reader given bytes it cannot use must throw sim::InputError (the CLI turns it into a
// message and exit code 2). RunFuzzInput swallows exactly that; any other exception
// escapes LLVMFuzzerTestOneInput, std::terminate aborts, and libFuzzer saves the input as
// a crash. Crashes, sanitizer reports, leaks and hangs are reported by libFuzzer itself.
#ifndef TESTS_FUZZ_FUZZ_SUPPORT_H_
#define TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "sim/io/input_error.h"
#include "tests/support/scratch_dir.h"

namespace fuzz_support {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Runs `read` on one input: an InputError is the expected answer to bad input.
template <typename Read>
int RunFuzzInput(Read&& read) {
  try {
    read();
  } catch (const sim::InputError&) {
  }
  return 0;
}

// For readers that take a file (traces, audit logs, overlays): writes the input to a file
// in a scratch folder of this process (removed when it exits), replaced by each input, and
// returns its path.
inline std::string WriteInputFile(std::string_view text, const std::string& extension) {
  static const test_support::ScratchDir scratch("apfsim-fuzz");
  static const std::string path = scratch.File("input" + extension);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

}  // namespace fuzz_support

#endif  // TESTS_FUZZ_FUZZ_SUPPORT_H_
