// tools/plot.py draws what `apfsim run` writes. These tests run it the way the Makefile
// does, through tools/find-python.sh, on the hand-written runs in tests/fixtures/plot/
// (copied to a scratch directory, since the script writes into the run directory) and
// check what comes out: whole PNG files, an HTML page that names the fixture's levels and
// clients and links to existing pictures, and exit code 2 with the file named for bad
// input. What the pictures look like is checked by eye, not here.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = APFSIM_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests" / "fixtures" / "plot";

// A fresh directory under the system temporary directory, removed with everything in it
// when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string name = (fs::temp_directory_path() / "apfsim-plot-test-XXXXXX").string();
    REQUIRE(mkdtemp(name.data()) != nullptr);
    path_ = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const fs::path& path() const { return path_; }

  // Copies the fixture run `name` into runs/`name` and returns its path.
  fs::path CopyRun(const std::string& name) const {
    fs::path to = path_ / "runs" / name;
    fs::create_directories(to.parent_path());
    fs::copy(kFixtures / name, to, fs::copy_options::recursive);
    return to;
  }

 private:
  fs::path path_;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

using PlotResult = test_support::CommandResult;

// Runs `tools/plot.py ARGS` in SCRATCH/runs with the Python tools/find-python.sh picks.
PlotResult RunPlot(const ScratchDir& scratch, const std::string& args) {
  fs::path runs = scratch.path() / "runs";
  fs::create_directories(runs);
  return test_support::RunShellCommand(
      "cd '" + runs.string() + "' && py=$('" + (kSourceDir / "tools" / "find-python.sh").string() +
          "') && \"$py\" '" + (kSourceDir / "tools" / "plot.py").string() + "' " + args,
      scratch.path());
}

std::uint32_t BigEndian32(const std::string& bytes, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(bytes[at])} << 24) |
         (std::uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8) |
         std::uint32_t{static_cast<unsigned char>(bytes[at + 3])};
}

// A whole PNG (RFC 2083): the 8-byte signature, an IHDR chunk first (whose width and height
// are big-endian at bytes 16 and 20), and the IEND chunk last. A picture of a few panels
// with text is tens of kilobytes and at least 1000x400 pixels at our sizes.
void CheckPng(const fs::path& path) {
  INFO(path.string());
  REQUIRE(fs::is_regular_file(path));
  std::string bytes = ReadFile(path);
  REQUIRE(bytes.size() > 20000);
  CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(bytes.substr(12, 4) == "IHDR");
  CHECK(BigEndian32(bytes, 16) >= 1000);
  CHECK(BigEndian32(bytes, 20) >= 400);
  CHECK(bytes.substr(bytes.size() - 8, 4) == "IEND");
}

std::set<std::string> FileNames(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

}  // namespace

TEST_CASE("plot.py draws one whole PNG per replica plus one of the clients, and nothing else",
          "[plot]") {
  ScratchDir scratch;
  fs::path run = scratch.CopyRun("run-a");
  PlotResult result = RunPlot(scratch, "run-a");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  // The fixture's timeline has the replicas apiserver-0 and apiserver-1.
  CheckPng(run / "plot-apiserver-0.png");
  CheckPng(run / "plot-apiserver-1.png");
  CheckPng(run / "clients.png");
  // Outputs are written under a temporary name and renamed: none may be left over.
  CHECK(FileNames(run) == std::set<std::string>{"summary.json", "timeline.csv", "clients.csv",
                                                "plot-apiserver-0.png", "plot-apiserver-1.png",
                                                "clients.png"});
}

TEST_CASE("plot.py --compare writes compare-<A>-vs-<B>.png beside DIR_A, or to --out", "[plot]") {
  ScratchDir scratch;
  scratch.CopyRun("run-a");
  scratch.CopyRun("run-b");
  PlotResult by_default = RunPlot(scratch, "--compare run-a run-b");
  INFO(by_default.Output());
  REQUIRE(by_default.exit_code == 0);
  CheckPng(scratch.path() / "runs" / "compare-run-a-vs-run-b.png");

  PlotResult to_file = RunPlot(scratch, "--compare run-a/ run-b --out side-by-side.png");
  INFO(to_file.Output());
  REQUIRE(to_file.exit_code == 0);
  CheckPng(scratch.path() / "runs" / "side-by-side.png");
}

TEST_CASE("plot.py --index writes a page with each run's levels, clients and plots", "[plot]") {
  ScratchDir scratch;
  scratch.CopyRun("run-a");
  scratch.CopyRun("run-b");
  REQUIRE(RunPlot(scratch, "run-a run-b").exit_code == 0);
  REQUIRE(RunPlot(scratch, "--compare run-a run-b --out compare.png").exit_code == 0);
  PlotResult result = RunPlot(scratch, "--index index.html run-a run-b --compare-png compare.png");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  std::string page = ReadFile(scratch.path() / "runs" / "index.html");
  INFO(page);
  // Names from the fixtures' summary.json: scenarios, levels (tenant-sweep only in
  // run-b), clients (idle-client made no call but is in the table).
  for (const char* name :
       {"fixture-sweep", "fixture-sweep-fixed", "workload-low", "global-default", "catch-all",
        "tenant-sweep", "tenant-operator", "kubectl-user", "idle-client"}) {
    CHECK(page.find(name) != std::string::npos);
  }
  // run-a's summary.json: workload-low rejected 150 queue-full and 5 time-out; the table
  // of both runs side by side shows the total, 155.
  CHECK(page.find(">150<") != std::string::npos);
  CHECK(page.find("id=\"overview\"") != std::string::npos);
  CHECK(page.find(">155<") != std::string::npos);
  // Every picture is linked relative to the page and exists: the comparison, and per run
  // two replicas and the clients.
  std::regex src("src=\"([^\"]+)\"");
  std::set<std::string> pictures;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), src); it != std::sregex_iterator();
       ++it) {
    std::string link = (*it)[1];
    CHECK(fs::path(link).is_relative());
    CHECK(fs::is_regular_file(scratch.path() / "runs" / link));
    pictures.insert(link);
  }
  CHECK(pictures == std::set<std::string>{"compare.png", "run-a/plot-apiserver-0.png",
                                          "run-a/plot-apiserver-1.png", "run-a/clients.png",
                                          "run-b/plot-apiserver-0.png",
                                          "run-b/plot-apiserver-1.png", "run-b/clients.png"});
  CHECK(page.find("<script") == std::string::npos);
}

TEST_CASE("plot.py rejects a timeline.csv with a wrong header: exit 2, file named, no PNG",
          "[plot]") {
  // tests/fixtures/plot/broken-header is run-a with the last column (retry_after_s) gone
  // from the timeline's header.
  ScratchDir scratch;
  fs::path run = scratch.CopyRun("broken-header");
  PlotResult result = RunPlot(scratch, "broken-header");
  INFO(result.Output());
  CHECK(result.exit_code == 2);
  CHECK(result.Output().find("broken-header/timeline.csv:1:") != std::string::npos);
  CHECK(result.Output().find("retry_after_s") != std::string::npos);
  CHECK(result.Output().find("Traceback") == std::string::npos);
  CHECK(FileNames(run) == std::set<std::string>{"summary.json", "timeline.csv", "clients.csv"});
}

TEST_CASE("plot.py reports other bad input with exit 2 and the file (and line) at fault",
          "[plot]") {
  ScratchDir scratch;
  SECTION("a missing summary.json") {
    fs::remove(scratch.CopyRun("run-a") / "summary.json");
    PlotResult result = RunPlot(scratch, "run-a");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("run-a/summary.json") != std::string::npos);
    CHECK(result.Output().find("Traceback") == std::string::npos);
  }
  SECTION("a count in clients.csv that is not a number") {
    fs::path run = scratch.CopyRun("run-a");
    std::string text = ReadFile(run / "clients.csv");
    // Line 2 is "0,tenant-operator,0,..."; make its calls cell "many".
    std::size_t at = text.find("0,tenant-operator,0,");
    REQUIRE(at != std::string::npos);
    text.replace(at, 20, "0,tenant-operator,many,");
    std::ofstream(run / "clients.csv", std::ios::binary) << text;
    PlotResult result = RunPlot(scratch, "run-a");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("run-a/clients.csv:2: column calls") != std::string::npos);
    CHECK(result.Output().find("Traceback") == std::string::npos);
    // All input is read before anything is drawn.
    CHECK_FALSE(fs::exists(run / "plot-apiserver-0.png"));
  }
  SECTION("a field of the wrong type in summary.json") {
    fs::path run = scratch.CopyRun("run-a");
    std::string text = ReadFile(run / "summary.json");
    std::size_t at = text.find("\"seed\": 7");
    REQUIRE(at != std::string::npos);
    text.replace(at, 9, "\"seed\": \"seven\"");
    std::ofstream(run / "summary.json", std::ios::binary) << text;
    PlotResult result = RunPlot(scratch, "run-a");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("run-a/summary.json: field seed") != std::string::npos);
  }
}
