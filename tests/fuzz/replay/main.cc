// The libFuzzer targets of tests/fuzz without libFuzzer: a main that feeds every file of a
// corpus folder, once each and in name order, to the target's LLVMFuzzerTestOneInput. The
// normal build links each target with it and runs it on the target's seed corpus
// (tests/fuzz/corpus/<target>/) as the ctest test fuzz_replay_<target> (CMakeLists.txt),
// so the inputs fuzzing found keep being run after the fix, with any compiler.
//
// The target itself says what a finding is (tests/fuzz/fuzz_support.h): sim::InputError is
// the normal answer to bad input and is swallowed there; any other exception reaches this
// main, which names the input and exits 1; a crash kills the process. Both fail the test,
// and so does an empty or missing corpus, which would otherwise pass by checking nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_FOLDER\n";
    return 2;
  }
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(argv[1], error)) {
    if (entry.is_regular_file()) inputs.push_back(entry.path());
  }
  if (error || inputs.empty()) {
    std::cerr << argv[1] << ": no corpus inputs" << (error ? " (" + error.message() + ")" : "")
              << "\n";
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    // A buffer of exactly the input's size, as libFuzzer passes it, so that a sanitizer
    // build sees a read past the end.
    const std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(data.data(), data.size());
    } catch (const std::exception& e) {
      std::cerr << input.string() << ": " << e.what() << "\n";
      return 1;
    } catch (...) {
      std::cerr << input.string() << ": an exception that is not a std::exception\n";
      return 1;
    }
  }
  std::cout << inputs.size() << " inputs of " << argv[1] << " replayed\n";
  return 0;
}
