// Output files appear whole or not at all.
#include "sim/io/output_file.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/io/input_error.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("an output file appears only when committed", "[output]") {
  const test_support::ScratchDir scratch("apfsim-output-file");
  const fs::path& dir = scratch.path();
  fs::path target = dir / "summary.json";
  {
    sim::OutputFile out(target.string());
    out.Write("{\"a\": 1}\n");
    CHECK_FALSE(fs::exists(target));  // only the temporary name exists so far
    out.Commit();
  }
  CHECK(Slurp(target) == "{\"a\": 1}\n");
  // An abandoned rewrite leaves the old file and no temporary behind.
  {
    sim::OutputFile out(target.string());
    out.Write("partial");
  }
  CHECK(Slurp(target) == "{\"a\": 1}\n");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("an unwritable output folder is a clear error", "[output]") {
  CHECK_THROWS_WITH(sim::WriteOutputFile("/nonexistent-apfsim-dir/x.csv", "x"),
                    Catch::Contains("/nonexistent-apfsim-dir/x.csv: cannot write output"));
}
