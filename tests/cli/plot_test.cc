// tools/plot.py draws what `apfsim run` writes, tools/plot_sweep.py what `apfsim sweep`
// writes; both are command lines over tools/apfplot/. These tests run them the way the
// Makefile and apfsim do, through tools/find-python.sh, from a directory other than tools/,
// on the hand-written runs in tests/fixtures/plot/ (copied to a scratch directory, since
// the script writes into the run directory) and on small sweep.csv files written here, and
// check what comes out: whole PNG files, an HTML page that names the fixture's levels and
// clients and links to existing pictures, and exit code 2 with the file named for bad
// input. What the pictures look like is checked by eye, not here.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;
using test_support::ReadFile;
using test_support::ScratchDir;

const fs::path kSourceDir = APFSIM_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests" / "fixtures" / "plot";

// Copies the fixture run `name` into SCRATCH/runs/`name` and returns its path.
fs::path CopyRun(const ScratchDir& scratch, const std::string& name) {
  fs::path to = scratch.path() / "runs" / name;
  fs::create_directories(to.parent_path());
  fs::copy(kFixtures / name, to, fs::copy_options::recursive);
  return to;
}

using PlotResult = test_support::CommandResult;

// Runs `tools/SCRIPT ARGS` in SCRATCH/runs with the Python tools/find-python.sh picks.
PlotResult RunTool(const ScratchDir& scratch, const std::string& script, const std::string& args) {
  fs::path runs = scratch.path() / "runs";
  fs::create_directories(runs);
  return test_support::RunShellCommand(
      "cd '" + runs.string() + "' && py=$('" + (kSourceDir / "tools" / "find-python.sh").string() +
          "') && \"$py\" '" + (kSourceDir / "tools" / script).string() + "' " + args,
      scratch.path());
}

PlotResult RunPlot(const ScratchDir& scratch, const std::string& args) {
  return RunTool(scratch, "plot.py", args);
}

PlotResult RunPlotSweep(const ScratchDir& scratch, const std::string& args) {
  return RunTool(scratch, "plot_sweep.py", args);
}

// The level columns of a sweep.csv as `apfsim sweep` writes them (README.md, "Capacity
// what-ifs"), for the levels workload-low and catch-all; a client column ends the row.
std::string SweepColumns() {
  std::string columns;
  for (const char* level : {"workload-low", "catch-all"}) {
    for (const char* field : {"nominal_cl", "dispatched", "rejected_queue_full",
                              "rejected_time_out", "rejected_concurrency_limit", "wait_p50_s",
                              "wait_p99_s", "wait_max_s", "peak_executing_seats"}) {
      columns += std::string(",level.") + level + "." + field;
    }
  }
  return columns + ",client.tenant.calls";
}

// A row's cells after the varied values: workload-low rejecting `queue_full` requests with
// a wait p99 of `wait_p99`, catch-all idle (empty wait cells, as for a level that
// dispatched nothing), the client's calls.
std::string SweepCells(const std::string& queue_full, const std::string& wait_p99) {
  return ",61,900," + queue_full + ",0,0,0.5," + wait_p99 + ",15,61,13,0,0,0,0,,,,0,1000";
}

// Writes `text` to SCRATCH/runs/`name` and returns its path.
fs::path WriteRunsFile(const ScratchDir& scratch, const std::string& name,
                       const std::string& text) {
  fs::path path = scratch.path() / "runs" / name;
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
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
  ScratchDir scratch("apfsim-plot-test");
  fs::path run = CopyRun(scratch, "run-a");
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
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
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
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
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
  std::regex src("<img src=\"([^\"]+)\"");
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
  // The timelines are drawn in the page by the uPlot inlined into it: no script is
  // fetched from anywhere (tests/ci/page_test.sh checks in a browser that they render).
  CHECK(page.find("<script src") == std::string::npos);
  CHECK(page.find("id=\"timelines-root\"") != std::string::npos);
  CHECK(page.find("uPlot") != std::string::npos);
  // The data of the overlaid timelines: every active level of both runs on both replicas
  // (tenant-sweep only in run-b's), and the fixtures' marks.
  const size_t data_at = page.find("<script type=\"application/json\" id=\"timelines-data\">");
  REQUIRE(data_at != std::string::npos);
  const std::string data = page.substr(data_at, page.find("</script>", data_at) - data_at);
  for (const char* name : {"\"level\":\"workload-low\"", "\"level\":\"tenant-sweep\"",
                           "\"replica\":\"apiserver-1\"", "\"client\":\"tenant-operator\""}) {
    CHECK(data.find(name) != std::string::npos);
  }
}

TEST_CASE("plot.py rejects a timeline.csv with a wrong header: exit 2, file named, no PNG",
          "[plot]") {
  // tests/fixtures/plot/broken-header is run-a with the last column (retry_after_s) gone
  // from the timeline's header.
  ScratchDir scratch("apfsim-plot-test");
  fs::path run = CopyRun(scratch, "broken-header");
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
  ScratchDir scratch("apfsim-plot-test");
  SECTION("a missing summary.json") {
    fs::remove(CopyRun(scratch, "run-a") / "summary.json");
    PlotResult result = RunPlot(scratch, "run-a");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("run-a/summary.json") != std::string::npos);
    CHECK(result.Output().find("Traceback") == std::string::npos);
  }
  SECTION("a count in clients.csv that is not a number") {
    fs::path run = CopyRun(scratch, "run-a");
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
    fs::path run = CopyRun(scratch, "run-a");
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

TEST_CASE("plot_sweep.py draws sweep.png beside the CSV for one varied parameter, whole",
          "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, "one/sweep.csv",
                "shares" + SweepColumns() + "\n50" + SweepCells("120", "14.8") + "\n100" +
                    SweepCells("30", "6.1") + "\n150" + SweepCells("0", "0.4") + "\n");
  PlotResult result = RunPlotSweep(scratch, "one/sweep.csv");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  // The figure is 13 x 5 inches at 100 dots per inch (tools/apfplot/sweep.py's draw_one).
  CheckPng(scratch.path() / "runs" / "one" / "sweep.png");
  // Written under a temporary name and renamed, as every picture is: none is left over.
  CHECK(FileNames(scratch.path() / "runs" / "one") ==
        std::set<std::string>{"sweep.csv", "sweep.png"});
}

TEST_CASE("plot_sweep.py draws heat maps to --out for two varied parameters", "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, "two/sweep.csv",
                "shares,inflight" + SweepColumns() + "\n50,400" + SweepCells("120", "14.8") +
                    "\n50,600" + SweepCells("20", "3.2") + "\n100,400" + SweepCells("30", "6.1") +
                    "\n100,600" + SweepCells("0", "0.4") + "\n");
  PlotResult result = RunPlotSweep(scratch, "two/sweep.csv --out two/heat.png");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CheckPng(scratch.path() / "runs" / "two" / "heat.png");
  CHECK(FileNames(scratch.path() / "runs" / "two") ==
        std::set<std::string>{"sweep.csv", "heat.png"});
}

TEST_CASE("plot_sweep.py reports bad input with exit 2 and the file at fault, and no PNG",
          "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  SECTION("three varied parameters") {
    WriteRunsFile(scratch, "three/sweep.csv",
                  "a,b,c" + SweepColumns() + "\n1,2,3" + SweepCells("0", "0.4") + "\n");
    PlotResult result = RunPlotSweep(scratch, "three/sweep.csv");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("three/sweep.csv: 3 varied parameters") != std::string::npos);
    CHECK(FileNames(scratch.path() / "runs" / "three") == std::set<std::string>{"sweep.csv"});
  }
  SECTION("a cell that is not a number") {
    WriteRunsFile(scratch, "bad/sweep.csv",
                  "shares" + SweepColumns() + "\n50" + SweepCells("many", "0.4") + "\n");
    PlotResult result = RunPlotSweep(scratch, "bad/sweep.csv");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("bad/sweep.csv: 'many' is not a number") != std::string::npos);
    CHECK(result.Output().find("Traceback") == std::string::npos);
    CHECK(FileNames(scratch.path() / "runs" / "bad") == std::set<std::string>{"sweep.csv"});
  }
  SECTION("--out in a directory that does not exist") {
    // The atomic writer plot.py and plot_sweep.py share says so in one line.
    WriteRunsFile(scratch, "one/sweep.csv",
                  "shares" + SweepColumns() + "\n50" + SweepCells("0", "0.4") + "\n");
    PlotResult result = RunPlotSweep(scratch, "one/sweep.csv --out nowhere/sweep.png");
    INFO(result.Output());
    CHECK(result.exit_code == 2);
    CHECK(result.Output().find("plot_sweep.py: nowhere/sweep.png: cannot write") !=
          std::string::npos);
    CHECK(result.Output().find("Traceback") == std::string::npos);
    CHECK_FALSE(fs::exists(scratch.path() / "runs" / "nowhere"));
  }
}
