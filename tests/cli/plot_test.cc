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
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

// What a refused command must show: exit code 2, each of `messages` in its output (which
// names the file at fault), and no Python traceback.
void CheckRejected(const PlotResult& result, const std::vector<std::string>& messages) {
  CHECK(result.exit_code == 2);
  for (const std::string& message : messages) {
    CAPTURE(message);
    CHECK(result.Output().find(message) != std::string::npos);
  }
  CHECK(result.Output().find("Traceback") == std::string::npos);
}

// Replaces the first `from` in FILE by `to`, to spoil a fixture.
void Replace(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = ReadFile(file);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(file, std::ios::binary) << text;
}

// Runs plot_sweep.py ARGS on `csv`, written to SCRATCH/runs/DIR/sweep.csv, and checks that
// it drew the whole `png` in DIR. Written under a temporary name and renamed, as every
// picture is: none may be left over.
void CheckSweepDrawn(const std::string& dir, const std::string& csv, const std::string& args,
                     const std::string& png) {
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, dir + "/sweep.csv", csv);
  PlotResult result = RunPlotSweep(scratch, dir + "/sweep.csv" + args);
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CheckPng(scratch.path() / "runs" / dir / png);
  CHECK(FileNames(scratch.path() / "runs" / dir) == std::set<std::string>{"sweep.csv", png});
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
  for (const char* png : {"plot-apiserver-0.png", "plot-apiserver-1.png", "clients.png"}) {
    CheckPng(run / png);
  }
  // Outputs are written under a temporary name and renamed: none may be left over.
  CHECK(FileNames(run) == std::set<std::string>{"summary.json", "timeline.csv", "clients.csv",
                                                "plot-apiserver-0.png", "plot-apiserver-1.png",
                                                "clients.png"});
}

TEST_CASE("plot.py --compare writes compare-<A>-vs-<B>.png beside DIR_A, or to --out", "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
  struct Case {
    const char* args;
    const char* png;
  };
  for (const Case c : {Case{"--compare run-a run-b", "compare-run-a-vs-run-b.png"},
                       Case{"--compare run-a/ run-b --out side-by-side.png", "side-by-side.png"}}) {
    PlotResult result = RunPlot(scratch, c.args);
    INFO(c.args << "\n" << result.Output());
    REQUIRE(result.exit_code == 0);
    CheckPng(scratch.path() / "runs" / c.png);
  }
}

TEST_CASE("plot.py --compare drops the pairs of panels that are all zero in both runs", "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
  PlotResult result = RunPlot(scratch, "--compare run-a run-b --out c.png");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CheckPng(scratch.path() / "runs" / "c.png");
  // The fixtures (tests/fixtures/plot/README.md): global-default executes in both runs but
  // never queues nor rejects, and the kubectl user's two calls get no 429; workload-low
  // queues and rejects in run-a, so its pairs stay although run-b's are all zero.
  CHECK(result.out.find("dropped: ") != std::string::npos);
  CHECK(result.out.find("global-default: waiting, rejected, queue wait") != std::string::npos);
  CHECK(result.out.find("kubectl-user: 429s and failures") != std::string::npos);
  CHECK(result.out.find("workload-low:") == std::string::npos);
  // The picture says the same in its text (the footnote) and in the PNG's Description.
  const std::string png = ReadFile(scratch.path() / "runs" / "c.png");
  CHECK(png.find("global-default: waiting, rejected, queue wait") != std::string::npos);
}

TEST_CASE("plot.py --compare --compare-json titles the picture with compare's verdict", "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
  const std::string verdict =
      "before: workload-low 155 rejected, wait max 14.8 s in workload-low; after: none "
      "rejected, wait max 0.400 s in workload-low (seed 7)";
  std::ofstream(scratch.path() / "runs" / "compare.json")
      << R"({"verdictLine": ")" << verdict << R"(", "before": {"reference": {"figures": [)"
      << R"({"line": "seeds/000 reports ~1,400 rejected in workload-low; this run 155"}]}}})";
  PlotResult result = RunPlot(scratch,
                              "--compare run-a run-b --out c.png --compare-json "
                              "compare.json");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  // The PNG's Title holds the verdict (a tEXt chunk, Latin-1: this one is plain ASCII).
  CHECK(ReadFile(scratch.path() / "runs" / "c.png").find(verdict) != std::string::npos);
  // Without --compare or --index, --compare-json is refused.
  result = RunPlot(scratch, "run-a --compare-json compare.json");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("--compare-json goes with --index or --compare") != std::string::npos);
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

TEST_CASE("plot.py --index --compare-json opens the page with what moved per client, moved first",
          "[plot]") {
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
  // compare.json's clientMoves as `apfsim compare` writes it (sim/report/client_moves.h):
  // the tenant-operator LIST of seed 000's fence (tests/sim/report/client_moves_test.cc has
  // its figures), then an unmoved write.
  const std::string side_before =
      R"({"flowSchema": "service-accounts", "priorityLevel": "workload-low",
          "flowDistinguisher": "system:serviceaccount:platform:tenant-operator",
          "initialSeats": 10, "finalSeats": 0, "additionalLatencySeconds": 0,
          "seatsFromTemplate": false, "hand": [112, 93, 83, 79, 23, 12], "handNote": null,
          "flows": 1, "flowHands": []})";
  const std::string side_after =
      R"({"flowSchema": "tenant-operator-lists", "priorityLevel": "tenant-sweep",
          "flowDistinguisher": "system:serviceaccount:platform:tenant-operator",
          "initialSeats": 7, "finalSeats": 0, "additionalLatencySeconds": 0,
          "seatsFromTemplate": false, "hand": [2, 3], "handNote": null, "flows": 1,
          "flowHands": []})";
  const std::string write_side =
      R"({"flowSchema": "service-accounts", "priorityLevel": "workload-low",
          "flowDistinguisher": "system:serviceaccount:platform:tenant-operator",
          "initialSeats": 1, "finalSeats": 3, "additionalLatencySeconds": 0.005,
          "seatsFromTemplate": false, "hand": [112, 93, 83, 79, 23, 12], "handNote": null,
          "flows": 1, "flowHands": []})";
  std::ofstream(scratch.path() / "runs" / "compare.json")
      << R"({"clientMoves": {"asOf": "t=0", "notes": ["a note"], "requests": [)"
      << R"({"client": "tenant-operator", "request": "LIST tenantbindings", "calls": 1800,
             "moved": true, "before": )"
      << side_before << R"(, "after": )" << side_after << "},"
      << R"({"client": "tenant-operator", "request": "UPDATE tenantbindings/status",
             "calls": 1800, "moved": false, "before": )"
      << write_side << R"(, "after": )" << write_side << "}]}}";
  REQUIRE(RunPlot(scratch, "run-a run-b").exit_code == 0);
  PlotResult result =
      RunPlot(scratch, "--index index.html run-a run-b --compare-json compare.json");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  const std::string page = ReadFile(scratch.path() / "runs" / "index.html");
  const std::size_t moves = page.find("<section id=\"moves\">");
  REQUIRE(moves != std::string::npos);
  CHECK(moves < page.find("<section id=\"overview\">"));  // before the runs side by side
  CHECK(page.find("1 of 2 client requests moved") != std::string::npos);
  const std::size_t list = page.find(
      "<td class=\"name changed\">service-accounts / workload-low → tenant-operator-lists / "
      "tenant-sweep</td>");
  const std::size_t write = page.find(">UPDATE tenantbindings/status<");
  CHECK(list != std::string::npos);
  CHECK(list < write);
  CHECK(page.find("<td class=\"name changed\">10 → 7</td>") != std::string::npos);
  CHECK(page.find("<td class=\"name changed\">112,93,83,79,23,12 → 2,3</td>") != std::string::npos);
  CHECK(page.find("<td class=\"name\">1, then 3 for 5 ms</td>") != std::string::npos);
  CHECK(page.find("a note") != std::string::npos);
  // A compare.json from before clientMoves existed is named, exit 2.
  std::ofstream(scratch.path() / "runs" / "old.json") << R"({"clients": {}})";
  result = RunPlot(scratch, "--index index.html run-a run-b --compare-json old.json");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("old.json: field clientMoves: missing") != std::string::npos);
}

TEST_CASE("plot.py rejects a timeline.csv with a wrong header: exit 2, file named, no PNG",
          "[plot]") {
  // tests/fixtures/plot/broken-header is run-a with the last column (retry_after_s) gone
  // from the timeline's header.
  ScratchDir scratch("apfsim-plot-test");
  fs::path run = CopyRun(scratch, "broken-header");
  PlotResult result = RunPlot(scratch, "broken-header");
  INFO(result.Output());
  CheckRejected(result, {"broken-header/timeline.csv:1:", "retry_after_s"});
  CHECK(FileNames(run) == std::set<std::string>{"summary.json", "timeline.csv", "clients.csv"});
}

TEST_CASE("plot.py reports other bad input with exit 2 and the file (and line) at fault",
          "[plot]") {
  struct Case {
    const char* what;
    std::function<void(const fs::path& run)> spoil;
    std::vector<std::string> messages;
  };
  const Case c = GENERATE(values<Case>({
      {"a missing summary.json",
       [](const fs::path& run) { fs::remove(run / "summary.json"); },
       {"run-a/summary.json"}},
      // Line 2 is "0,tenant-operator,0,..."; make its calls cell "many".
      {"a count in clients.csv that is not a number",
       [](const fs::path& run) {
         Replace(run / "clients.csv", "0,tenant-operator,0,", "0,tenant-operator,many,");
       },
       {"run-a/clients.csv:2: column calls"}},
      {"a field of the wrong type in summary.json",
       [](const fs::path& run) {
         Replace(run / "summary.json", "\"seed\": 7", "\"seed\": \"seven\"");
       },
       {"run-a/summary.json: field seed"}},
  }));
  INFO(c.what);
  ScratchDir scratch("apfsim-plot-test");
  fs::path run = CopyRun(scratch, "run-a");
  c.spoil(run);
  PlotResult result = RunPlot(scratch, "run-a");
  INFO(result.Output());
  CheckRejected(result, c.messages);
  // All input is read before anything is drawn.
  CHECK_FALSE(fs::exists(run / "plot-apiserver-0.png"));
}

TEST_CASE("plot_sweep.py draws sweep.png beside the CSV for one varied parameter, whole",
          "[plot]") {
  // The figure is 13 x 5 inches at 100 dots per inch (tools/apfplot/sweep.py's draw_one).
  CheckSweepDrawn("one",
                  "shares" + SweepColumns() + "\n50" + SweepCells("120", "14.8") + "\n100" +
                      SweepCells("30", "6.1") + "\n150" + SweepCells("0", "0.4") + "\n",
                  "", "sweep.png");
}

TEST_CASE("plot_sweep.py draws heat maps to --out for two varied parameters", "[plot]") {
  CheckSweepDrawn("two",
                  "shares,inflight" + SweepColumns() + "\n50,400" + SweepCells("120", "14.8") +
                      "\n50,600" + SweepCells("20", "3.2") + "\n100,400" + SweepCells("30", "6.1") +
                      "\n100,600" + SweepCells("0", "0.4") + "\n",
                  " --out two/heat.png", "heat.png");
}

// A sweep.csv whose varied column is a --set path as apfsim writes it, with a client:
// workload-low's wait p99 is 0 at every point and its max moves, as in the shipped example.
std::string PathSweepCsv(const std::string& first_column) {
  std::string csv =
      first_column + SweepColumns() + ",client.tenant.http429,client.tenant.latency_p99_s\n";
  const char* rows[][3] = {{"50", "120", "26.1"}, {"100", "30", "13.2"}, {"150", "0", "0.9"}};
  for (const auto& row : rows) {
    // SweepCells' wait p99 is "0"; its wait max is 15 at every point, so move it by hand.
    std::string cells = SweepCells(row[1], "0");
    cells.replace(cells.find(",15,"), 4, std::string(",") + row[1] + ",");
    csv += std::string(row[0]) + cells + "," + row[1] + "," + row[2] + "\n";
  }
  return csv;
}

// `csv` with a second varied column after the first, its rows repeated for each of `values`.
std::string WithSecondVaried(const std::string& csv, const std::vector<std::string>& values) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::string two = line + "\n";
  std::vector<std::string> rows;
  while (std::getline(lines, line)) rows.push_back(line);
  for (const std::string& value : values) {
    for (const std::string& row : rows) {
      const std::size_t comma = row.find(',');
      two += row.substr(0, comma) + "," + value + row.substr(comma) + "\n";
    }
  }
  return two;
}

TEST_CASE("plot_sweep.py colours the wait heat map by the worst level's wait max, not its p99",
          "[plot]") {
  // A burst under handSize 6 and 4: workload-low's whole-run p99 is 0.004 s or 0 while its
  // max is 10.6 to 12.1 s (catch-all waits 0.5 s at most). The panel once showed the p99
  // ("worst level's wait p99 (s)", cells 0.004, 0, 0.008, 0: handSize 4 looked like no
  // wait at all); it is the max, with the same level's p99 in each cell.
  std::string csv = "handSize,inflight" + SweepColumns() + "\n";
  const char* rows[][4] = {{"6", "400", "0.004", "10.6"},
                           {"4", "400", "0", "11.2"},
                           {"6", "600", "0.008", "10.9"},
                           {"4", "600", "0", "12.1"}};
  for (const auto& row : rows) {
    std::string cells = SweepCells("0", row[2]);
    cells.replace(cells.find(",15,"), 4, std::string(",") + row[3] + ",");
    csv += std::string(row[0]) + "," + row[1] + cells + "\n";
  }
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, "burst/sweep.csv", csv);
  PlotResult result = RunPlotSweep(scratch, "burst/sweep.csv --describe");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("panel: worst level's wait max (s), with its p99 | x: handSize | y: "
                        "inflight\n"
                        "cells: 10.6 p99 0.004; 11.2 p99 0; 10.9 p99 0.008; 12.1 p99 0\n") !=
        std::string::npos);
}

TEST_CASE("plot_sweep.py titles the picture with the scenario and the varied values", "[plot]") {
  struct Case {
    const char* what;
    std::string dir, csv, args, description;
  };
  const Case c = GENERATE(values<Case>({
      {"one varied path: lines, the wait panel with max dashed, the clients' panels", "one",
       PathSweepCsv("flowControl.priorityLevels.workload-low.nominalConcurrencyShares"),
       " --scenario drift-sweep --subtitle 'apfsim 0.1.0' --describe",
       "title: apfsim sweep of drift-sweep: workload-low nominalConcurrencyShares = 50, 100, "
       "150 / apfsim 0.1.0\n"
       "panel: rejected requests per level (all reasons) | x: workload-low "
       "nominalConcurrencyShares | y: requests\n"
       "panel: queue wait per level: max solid, p99 dashed | x: workload-low "
       "nominalConcurrencyShares | y: seconds\n"
       "panel: HTTP 429s per client | x: workload-low nominalConcurrencyShares | y: "
       "responses\n"
       "panel: latency p99 per client | x: workload-low nominalConcurrencyShares | y: "
       "seconds\n"},
      // Every row gets a second varied value: 400 for these three, 600 for three more. No
      // --scenario: the title falls back to the CSV's name (no runs/ beside it).
      {"two varied paths: heat maps, the wait panel of the max", "two",
       WithSecondVaried(PathSweepCsv("flowControl.priorityLevels.workload-low.spec.limited."
                                     "limitResponse.queuing.queueLengthLimit,apiservers."
                                     "maxRequestsInflight"),
                        {"400", "600"}),
       " --describe",
       "title: apfsim sweep of sweep.csv: workload-low queueLengthLimit = 50, 100, 150; "
       "apiservers maxRequestsInflight = 400, 600\n"
       "panel: rejected requests, all levels | x: workload-low queueLengthLimit | y: "
       "apiservers maxRequestsInflight\n"
       "cells: 120; 30; 0; 120; 30; 0\n"
       // PathSweepCsv's max is its rejections' count (120, 30, 0 s), its p99 0; catch-all
       // never waits.
       "panel: worst level's wait max (s), with its p99 | x: workload-low "
       "queueLengthLimit | y: apiservers maxRequestsInflight\n"
       "cells: 120 p99 0; 30 p99 0; 0 p99 0; 120 p99 0; 30 p99 0; 0 p99 0\n"
       "panel: HTTP 429s, all clients | x: workload-low queueLengthLimit | y: apiservers "
       "maxRequestsInflight\n"
       "cells: 120; 30; 0; 120; 30; 0\n"
       "panel: worst client's latency p99 (s) | x: workload-low queueLengthLimit | y: "
       "apiservers maxRequestsInflight\n"
       "cells: 26.1; 13.2; 0.9; 26.1; 13.2; 0.9\n"},
  }));
  INFO(c.what);
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, c.dir + "/sweep.csv", c.csv);
  PlotResult result = RunPlotSweep(scratch, c.dir + "/sweep.csv" + c.args);
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == c.description);
  CheckPng(scratch.path() / "runs" / c.dir / "sweep.png");
}

TEST_CASE("plot_sweep.py reports bad input with exit 2 and the file at fault, and no PNG",
          "[plot]") {
  struct Case {
    const char* what;
    std::string dir, csv, args, message;
  };
  const Case c = GENERATE(values<Case>({
      {"three varied parameters", "three",
       "a,b,c" + SweepColumns() + "\n1,2,3" + SweepCells("0", "0.4") + "\n", "",
       "three/sweep.csv: 3 varied parameters"},
      {"a cell that is not a number", "bad",
       "shares" + SweepColumns() + "\n50" + SweepCells("many", "0.4") + "\n", "",
       "bad/sweep.csv: 'many' is not a number"},
      // The atomic writer plot.py and plot_sweep.py share says so in one line.
      {"--out in a directory that does not exist", "one",
       "shares" + SweepColumns() + "\n50" + SweepCells("0", "0.4") + "\n",
       " --out nowhere/sweep.png", "plot_sweep.py: nowhere/sweep.png: cannot write"},
  }));
  INFO(c.what);
  ScratchDir scratch("apfsim-plot-test");
  WriteRunsFile(scratch, c.dir + "/sweep.csv", c.csv);
  PlotResult result = RunPlotSweep(scratch, c.dir + "/sweep.csv" + c.args);
  INFO(result.Output());
  CheckRejected(result, {c.message});
  // Nothing is written: not beside the CSV, nor in a directory of its own (as --out would).
  CHECK(FileNames(scratch.path() / "runs" / c.dir) == std::set<std::string>{"sweep.csv"});
  CHECK(FileNames(scratch.path() / "runs") == std::set<std::string>{c.dir});
}

// A sweep over seeds (`apfsim sweep --seeds`) has FIGURE_mean, FIGURE_ci95_lo and
// FIGURE_ci95_hi for each figure; plot_sweep.py reads the means and draws the intervals as
// bands.
TEST_CASE("plot_sweep.py draws a sweep over seeds: means as lines, intervals as bands",
          "[plot][seeds]") {
  ScratchDir scratch("apfsim-plot-test");
  auto triple = [](const std::string& columns) {
    std::string out;
    std::size_t start = 1;  // after the leading comma
    while (start <= columns.size()) {
      std::size_t end = columns.find(',', start);
      if (end == std::string::npos) end = columns.size();
      const std::string name = columns.substr(start, end - start);
      for (const char* suffix : {"_mean", "_ci95_lo", "_ci95_hi"}) out += "," + name + suffix;
      start = end + 1;
    }
    return out;
  };
  // Each cell a point interval but the wait p99's, which is [mean - 1, mean + 1].
  auto cells = [](const std::string& queue_full, const std::string& wait_p99) {
    const double wait = std::stod(wait_p99);
    auto three = [](const std::string& v) { return "," + v + "," + v + "," + v; };
    return three("61") + three("900") + three(queue_full) + three("0") + three("0") + three("0.5") +
           "," + wait_p99 + "," + std::to_string(wait - 1) + "," + std::to_string(wait + 1) +
           three("15") + three("61") + three("13") + three("0") + three("0") + three("0") +
           three("0") + ",,," + ",,," + ",,," + three("0") + three("1000");
  };
  WriteRunsFile(scratch, "seeds/sweep.csv",
                "shares" + triple(SweepColumns()) + "\n50" + cells("120", "14.8") + "\n100" +
                    cells("30", "6.1") + "\n150" + cells("0", "0.4") + "\n");
  PlotResult result = RunPlotSweep(scratch, "seeds/sweep.csv");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CheckPng(scratch.path() / "runs" / "seeds" / "sweep.png");
}

TEST_CASE("plot.py --compare marks each level's recovery and gives the times to recover",
          "[plot][recovery]") {
  ScratchDir scratch("apfsim-plot-test");
  CopyRun(scratch, "run-a");
  CopyRun(scratch, "run-b");
  // summary.json's "recovery" as RunReport writes it (sim/report/recovery.h), added to the
  // fixtures: after an event at 2 s, workload-low recovers at 8 s in run A (6 s) and never
  // in run B; global-default, never over its bounds, recovers at once in A and is not
  // measured in B, so it is left out of the line.
  const auto add_recovery = [&](const char* run, const std::string& levels) {
    const fs::path path = scratch.path() / "runs" / run / "summary.json";
    std::string text = ReadFile(path);
    text.insert(text.find_last_of('}'),
                R"(, "recovery": {"event": 0, "atSeconds": 2.0, "untilSeconds": 10.0, )"
                R"("intervalSeconds": 1.0, "levels": {)" +
                    levels + "}}");
    std::ofstream(path) << text;
  };
  add_recovery("run-a",
               R"("workload-low": {"recoveredAtSeconds": 8.0, "timeToRecoverSeconds": 6.0}, )"
               R"("global-default": {"recoveredAtSeconds": 2.0, "timeToRecoverSeconds": 0.0})");
  add_recovery("run-b",
               R"("workload-low": {"recoveredAtSeconds": null, "timeToRecoverSeconds": null})");
  PlotResult result = RunPlot(scratch, "--compare run-a run-b --out c.png");
  INFO(result.Output());
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("Time to recover after the event at 2 s") != std::string::npos);
  CHECK(result.out.find("workload-low 6 s \u2192 never.") != std::string::npos);
  CHECK(result.out.find("global-default") == result.out.find("global-default: waiting"));
  CHECK(ReadFile(scratch.path() / "runs" / "c.png").find("workload-low 6 s") != std::string::npos);
  // A recovery whose level lacks its instant is bad input, named (a second "recovery" key:
  // the last one read wins).
  add_recovery("run-b", R"("catch-all": {"timeToRecoverSeconds": 1.0})");
  result = RunPlot(scratch, "--compare run-a run-b --out c.png");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("recovery.levels.catch-all.recoveredAtSeconds") != std::string::npos);
}
