// Bounded reading of user files (sim/io/input_file.h): a folder, an endless device and an
// over-long line are refused at once with the limit named; a byte-order mark is dropped.
#include "sim/io/input_file.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>

#include "tests/support/test_support.h"

namespace {

std::string MessageOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a whole-file read refuses a folder, a missing file and a file over the limit",
          "[input-file]") {
  const test_support::ScratchDir scratch("apfsim-input-file");
  const std::string dir = scratch.path().string();
  CHECK_THAT(MessageOf([&] { sim::ReadInputFile(dir); }),
             Catch::Contains("cannot read the file: is a directory, not a file"));
  CHECK_THAT(MessageOf([&] { sim::ReadInputFile(dir + "/absent.yaml"); }),
             Catch::Contains("cannot read the file: no such file"));
  const std::string file = scratch.File("big.yaml");
  std::ofstream(file) << std::string(101, 'x');
  CHECK_THAT(MessageOf([&] { sim::ReadInputFile(file, 100); }),
             Catch::Contains("larger than 100 bytes, the most apfsim reads"));
  CHECK(sim::ReadInputFile(file, 101) == std::string(101, 'x'));
}

TEST_CASE("an endless device is refused after the limit, not read to the end", "[input-file]") {
  // /dev/zero never ends: before the limit the read took all memory.
  CHECK_THAT(MessageOf([] { sim::ReadInputFile("/dev/zero", 1 << 20); }),
             Catch::Contains("/dev/zero: larger than 1 MiB"));
  std::istringstream in(std::string(3000, 'x'));
  CHECK_THAT(MessageOf([&] { sim::ReadInputStream(in, "<stdin>", 2048); }),
             Catch::Contains("<stdin>: larger than 2 KiB"));
}

TEST_CASE("a line reader reads lines as std::getline does and stops at an over-long one",
          "[input-file]") {
  std::istringstream in("a,b\n\nlast");
  std::string line;
  CHECK(sim::ReadInputLine(in, line, {"t.csv", 1, 1}));
  CHECK(line == "a,b");
  CHECK(sim::ReadInputLine(in, line, {"t.csv", 2, 1}));
  CHECK(line.empty());
  CHECK(sim::ReadInputLine(in, line, {"t.csv", 3, 1}));
  CHECK(line == "last");
  CHECK(in.eof());  // the audit reader's test for a last line cut off
  CHECK_FALSE(sim::ReadInputLine(in, line, {"t.csv", 4, 1}));

  std::istringstream endless(std::string(5000, '\0'));
  CHECK_THAT(MessageOf([&] {
               sim::ReadInputLine(endless, line, {"t.csv", 7, 1}, 4096);
             }),
             Catch::Contains("t.csv:7:1: line 7 is longer than 4 KiB"));
}

TEST_CASE("a byte-order mark is dropped, and nothing else", "[input-file]") {
  CHECK(sim::WithoutByteOrderMark("\xEF\xBB\xBFtime,client") == "time,client");
  CHECK(sim::WithoutByteOrderMark("time,client") == "time,client");
  CHECK(sim::WithoutByteOrderMark("\xEF\xBB") == "\xEF\xBB");
}
