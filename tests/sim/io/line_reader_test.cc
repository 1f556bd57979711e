// The block reader of traces (sim/io/line_reader.h): lines as std::getline splits them,
// across block boundaries; the line bound of ReadInputLine; and a SHA-256 taken on the way
// that equals sha256sum's of the whole file however much of it was read.
#include "sim/io/line_reader.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/io/file_digest.h"
#include "sim/io/input_file.h"
#include "tests/support/test_support.h"

namespace {

std::vector<std::string> LinesOf(const std::string& path) {
  sim::LineReader reader(path, sim::LineReader::Digest::kNone);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.Next(&line)) lines.emplace_back(line);
  CHECK(reader.lines() == static_cast<int>(lines.size()));
  return lines;
}

// What std::getline gives, the reader's specification.
std::vector<std::string> GetlineLinesOf(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("lines split as std::getline splits them", "[line-reader]") {
  const test_support::ScratchDir scratch("apfsim-line-reader");
  const std::string file = scratch.File("t.csv");
  for (const std::string text : {"", "\n", "a", "a\nb\n", "a\nb", "\n\nx\r\n\r\n", "x,y\n\n"}) {
    std::ofstream(file, std::ios::binary) << text;
    CHECK(LinesOf(file) == GetlineLinesOf(text));
  }
}

TEST_CASE("a line across a block boundary, and one longer than a block, come whole",
          "[line-reader]") {
  const test_support::ScratchDir scratch("apfsim-line-reader");
  const std::string file = scratch.File("t.csv");
  // The block is 1 MiB: the second line straddles the first boundary, the third is 2.5
  // blocks long, and the last has no line end.
  const std::string a((1 << 20) - 3, 'a'), b(10, 'b'), c((5 << 20) / 2, 'c'), d = "end";
  std::ofstream(file, std::ios::binary) << a << "\n" << b << "\n" << c << "\n" << d;
  const std::vector<std::string> lines = LinesOf(file);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == a);
  CHECK(lines[1] == b);
  CHECK(lines[2] == c);
  CHECK(lines[3] == d);
}

TEST_CASE("a line over the bound is refused with ReadInputLine's message", "[line-reader]") {
  const test_support::ScratchDir scratch("apfsim-line-reader");
  const std::string file = scratch.File("t.csv");
  std::ofstream(file, std::ios::binary) << "ok\n" << std::string(sim::kMaxInputLineBytes + 1, 'x');
  sim::LineReader reader(file, sim::LineReader::Digest::kNone);
  std::string_view line;
  REQUIRE(reader.Next(&line));
  CHECK_THROWS_WITH(reader.Next(&line), Catch::Contains("t.csv:2:1") &&
                                            Catch::Contains("line 2 is longer than 16 MiB"));
  // Exactly the bound is a line.
  std::ofstream(file, std::ios::binary) << std::string(sim::kMaxInputLineBytes, 'x') << "\n";
  CHECK(LinesOf(file).at(0).size() == sim::kMaxInputLineBytes);
}

TEST_CASE("the SHA-256 taken while reading is the whole file's, however far it was read",
          "[line-reader]") {
  const test_support::ScratchDir scratch("apfsim-line-reader");
  const std::string file = scratch.File("t.csv");
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "0." + std::to_string(i) + ",get,pods\n";  // 3.6 MB
  std::ofstream(file, std::ios::binary) << text;
  const std::string whole = sim::Sha256Hex(text);
  REQUIRE(sim::FileSha256(file) == whole);
  for (int read : {0, 1, 70000, 200000}) {
    sim::LineReader reader(file, sim::LineReader::Digest::kSha256);
    std::string_view line;
    for (int i = 0; i < read; ++i) REQUIRE(reader.Next(&line));
    CHECK(reader.FinishSha256() == whole);
    CHECK_FALSE(reader.Next(&line));
  }
  // Without a digest asked for, none is taken.
  sim::LineReader plain(file, sim::LineReader::Digest::kNone);
  CHECK(plain.FinishSha256().empty());
}

TEST_CASE("an unreadable path names the file and says why", "[line-reader]") {
  const test_support::ScratchDir scratch("apfsim-line-reader");
  CHECK_THROWS_WITH(
      sim::LineReader(scratch.File("absent.csv"), sim::LineReader::Digest::kNone, "trace file"),
      Catch::Contains("cannot read the trace file: no such file"));
}
