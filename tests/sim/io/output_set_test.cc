// A folder of outputs appears whole or not at all (sim/io/output_set.h): the previous
// run's files stay until the new set is committed, and none of them is left beside it
// after.
#include "sim/io/output_set.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {

std::set<std::string> Entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

const std::vector<std::string> kOwned = {"summary.json", "trace.jsonl", "dumps"};

}  // namespace

TEST_CASE("a committed output set replaces the previous one whole", "[output]") {
  const test_support::ScratchDir scratch("apfsim-output-set");
  const fs::path out = scratch.path() / "out";
  {
    sim::OutputSet set(out.string(), kOwned);
    std::ofstream(fs::path(set.staging_dir()) / "summary.json") << "first";
    std::ofstream(fs::path(set.staging_dir()) / "trace.jsonl") << "first trace";
    fs::create_directory(fs::path(set.staging_dir()) / "dumps");
    CHECK_FALSE(fs::exists(out));  // nothing appears before the commit
    set.Commit();
  }
  std::ofstream(out / "notes.txt") << "the user's";
  CHECK(Entries(out) == std::set<std::string>{"summary.json", "trace.jsonl", "dumps", "notes.txt"});
  {
    // A second run without --trace and without dumps: before, the old trace.jsonl and
    // dumps/ stayed beside the new summary.json.
    sim::OutputSet set(out.string(), kOwned);
    std::ofstream(fs::path(set.staging_dir()) / "summary.json") << "second";
    set.Commit();
  }
  CHECK(Entries(out) == std::set<std::string>{"summary.json", "notes.txt"});
  CHECK(Entries(scratch.path()) == std::set<std::string>{"out"});  // no staging left
}

TEST_CASE("an output set abandoned before its commit leaves the previous one untouched",
          "[output]") {
  const test_support::ScratchDir scratch("apfsim-output-set");
  const fs::path out = scratch.path() / "out";
  fs::create_directory(out);
  std::ofstream(out / "summary.json") << "old";
  std::ofstream(out / "trace.jsonl") << "old trace";
  {
    sim::OutputSet set(out.string(), kOwned);
    std::ofstream(fs::path(set.staging_dir()) / "summary.json") << "new, but the run failed";
  }
  CHECK(Entries(out) == std::set<std::string>{"summary.json", "trace.jsonl"});
  std::ifstream in(out / "summary.json");
  std::string text;
  std::getline(in, text);
  CHECK(text == "old");
  CHECK(Entries(scratch.path()) == std::set<std::string>{"out"});
}

TEST_CASE("an output set refuses the current folder and a file in the way", "[output]") {
  const test_support::ScratchDir scratch("apfsim-output-set");
  CHECK_THROWS_WITH(sim::OutputSet(".", kOwned), Catch::Contains("an output folder of its own"));
  std::ofstream(scratch.path() / "plain") << "x";
  CHECK_THROWS_WITH(sim::OutputSet((scratch.path() / "plain").string(), kOwned),
                    Catch::Contains("is not a folder"));
}

TEST_CASE("an owned name ending in * replaces every entry it begins", "[output]") {
  // check --seeds 1..3 after a run over 1..5: seed-4 and seed-5 belong to the older set and
  // must not be carried into the new one beside its seed-1..3; "seedling" is the user's.
  const test_support::ScratchDir scratch("apfsim-output-set");
  const fs::path out = scratch.path() / "out";
  fs::create_directories(out / "seed-4");
  fs::create_directories(out / "seed-5");
  std::ofstream(out / "seedling") << "the user's";
  {
    sim::OutputSet set(out.string(), {"seed-*", "replications.json"});
    for (const char* seed : {"seed-1", "seed-2", "seed-3"}) {
      fs::create_directory(fs::path(set.staging_dir()) / seed);
    }
    set.Commit();
  }
  CHECK(Entries(out) == std::set<std::string>{"seed-1", "seed-2", "seed-3", "seedling"});
}
