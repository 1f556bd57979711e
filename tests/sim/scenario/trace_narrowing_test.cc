// `apfsim run --trace` narrowed by --trace-window, --trace-sample and --trace-flow, in whole
// runs: each narrowed trace is held against the whole trace of the same run, line by line
// and byte by byte (sim/world/trace_filter.h), every other output against the run without
// narrowing; and the size estimate and its limit (sim/workflows/trace_size.h). The runs are
// of tests/fixtures/replay/trace-timing.yaml (arrivals known to the nanosecond) and
// trace-narrowing.yaml (6,400 calls of workload-low in 20 s, a few hundred of them retried).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/io/input_error.h"
#include "sim/workflows/run.h"
#include "sim/workflows/trace_size.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {

std::string Fixture(const std::string& name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/replay/" + name;
}

sim::RunRequest Request(const std::string& fixture, const std::string& trace,
                        const test_support::ScratchDir& dir, const std::string& out) {
  sim::RunRequest request;
  request.scenario_file = Fixture(fixture);
  request.out_dir = dir.File(out);
  request.trace = trace;
  request.quiet = true;
  return request;
}

sim::ReportWindow Window(apf::Nanos from, apf::Nanos to) { return sim::ReportWindow{from, to, {}}; }

// trace.jsonl's lines as written (no newline).
std::vector<std::string> TraceLines(const sim::RunOutcome& out) {
  std::ifstream in(out.out_dir + "/trace.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

apf::Nanos ArrivalNs(const std::string& line) {
  return std::llround(nlohmann::json::parse(line)["arrival"].get<double>() * 1e9);
}

// Every file of the run's folder but trace.jsonl, by name, with its bytes.
std::map<std::string, std::string> OtherOutputs(const sim::RunOutcome& out) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(out.out_dir)) {
    if (!e.is_regular_file() || e.path().filename() == "trace.jsonl") continue;
    files[fs::relative(e.path(), out.out_dir).string()] = test_support::ReadFile(e.path());
  }
  return files;
}

constexpr apf::Nanos kS = apf::kSecond;

}  // namespace

TEST_CASE("a windowed run traces the attempts arriving from FROM inclusive to TO exclusive",
          "[trace][trace-window]") {
  const test_support::ScratchDir dir("apfsim-trace-window-ends");
  // trace-timing.csv's rows arrive at 1.5, 2.0, 2.0 and 3.25 s exactly (1 s + their times:
  // replay_test.cc), with no limiter in the way and an idle server.
  auto arrivals = [&](apf::Nanos from, apf::Nanos to, const std::string& out) {
    sim::RunRequest request = Request("trace-timing.yaml", "replayer", dir, out);
    request.trace_window = Window(from, to);
    std::multiset<apf::Nanos> got;
    for (const std::string& line : TraceLines(sim::RunScenario(request)))
      got.insert(ArrivalNs(line));
    return got;
  };
  // 2s..3.25s: both rows at 2 s (FROM itself), not the one at 3.25 s (TO itself).
  CHECK(arrivals(2 * kS, 3250 * apf::kMillisecond, "a") ==
        std::multiset<apf::Nanos>{2 * kS, 2 * kS});
  // 1.5s..2s: the row at 1.5 s only; 3.25s..5s: the last row only.
  CHECK(arrivals(1500 * apf::kMillisecond, 2 * kS, "b") ==
        std::multiset<apf::Nanos>{1500 * apf::kMillisecond});
  CHECK(arrivals(3250 * apf::kMillisecond, 5 * kS, "c") ==
        std::multiset<apf::Nanos>{3250 * apf::kMillisecond});
  // A nanosecond past each arrival leaves it out.
  CHECK(arrivals(2 * kS + 1, 3250 * apf::kMillisecond + 1, "d") ==
        std::multiset<apf::Nanos>{3250 * apf::kMillisecond});
}

TEST_CASE("a windowed trace is the whole trace's lines that arrive in the window, byte for byte",
          "[trace][trace-window]") {
  const test_support::ScratchDir dir("apfsim-trace-window-lines");
  const sim::RunOutcome whole =
      sim::RunScenario(Request("trace-narrowing.yaml", "workload-low", dir, "whole"));
  const std::vector<std::string> all = TraceLines(whole);
  REQUIRE(all.size() > 6000);  // 6,400 calls and their retries (the fixture's header)
  // 2s..2.5s holds the first sweep (600 LISTs within 20 ms from 2 s), which waits up to
  // seconds in its queues: most of its attempts end after TO and are kept whole.
  sim::RunRequest request = Request("trace-narrowing.yaml", "workload-low", dir, "window");
  request.trace_window = Window(2 * kS, 2500 * apf::kMillisecond);
  const sim::RunOutcome windowed = sim::RunScenario(request);
  std::vector<std::string> expected;
  int ends_after_to = 0;
  for (const std::string& line : all) {
    const apf::Nanos at = ArrivalNs(line);
    if (at < 2 * kS || at >= 2500 * apf::kMillisecond) continue;
    expected.push_back(line);
    ends_after_to += nlohmann::json::parse(line)["released"].get<double>() > 2.5 ? 1 : 0;
  }
  CHECK(TraceLines(windowed) == expected);
  CHECK(expected.size() > 600);
  CHECK(ends_after_to > 100);
  // The rest of the run's outputs do not change with the trace narrowed.
  CHECK(OtherOutputs(windowed) == OtherOutputs(whole));
}

TEST_CASE("a trace sample is the same for a seed and keeps about its fraction of the calls",
          "[trace][trace-sample]") {
  const test_support::ScratchDir dir("apfsim-trace-sample");
  const sim::RunOutcome whole =
      sim::RunScenario(Request("trace-narrowing.yaml", "workload-low", dir, "whole"));
  auto sampled = [&](double fraction, const std::string& out) {
    sim::RunRequest request = Request("trace-narrowing.yaml", "workload-low", dir, out);
    request.trace_sample = fraction;
    return sim::RunScenario(request);
  };
  // Fraction 1 is no sampling: the same file.
  const sim::RunOutcome one = sampled(1, "one");
  CHECK(test_support::ReadFile(one.out_dir + "/trace.jsonl") ==
        test_support::ReadFile(whole.out_dir + "/trace.jsonl"));
  // The same seed, the same sample, byte for byte.
  const sim::RunOutcome quarter = sampled(0.25, "quarter");
  const sim::RunOutcome again = sampled(0.25, "again");
  CHECK(test_support::ReadFile(quarter.out_dir + "/trace.jsonl") ==
        test_support::ReadFile(again.out_dir + "/trace.jsonl"));
  // The sample is the whole trace's lines of the calls the seed's hash keeps (the fixture's
  // seed 7): every try of a kept call, none of another.
  sim::TraceFilter filter;
  filter.fraction = 0.25;
  filter.seed = 7;
  std::vector<std::string> expected;
  std::set<std::uint64_t> calls, kept_calls;
  for (const std::string& line : TraceLines(whole)) {
    const std::uint64_t call = nlohmann::json::parse(line)["call"].get<std::uint64_t>();
    calls.insert(call);
    if (!filter.SampledCall(call)) continue;
    expected.push_back(line);
    kept_calls.insert(call);
  }
  const std::vector<std::string> got = TraceLines(quarter);
  CHECK(got == expected);
  // Binomial(n, 0.25) over the run's n calls (6,398): mean n/4, standard deviation
  // sqrt(n * 0.25 * 0.75) = 35; four of them bound a fair hash (the number is fixed by the
  // seed, so the test cannot flake).
  const double n = static_cast<double>(calls.size());
  CHECK(std::abs(static_cast<double>(kept_calls.size()) - n / 4) < 4 * std::sqrt(n * 0.1875));
  // A call retried is kept with all its tries: some kept call has more than one line.
  CHECK(got.size() > kept_calls.size());
  CHECK(OtherOutputs(quarter) == OtherOutputs(whole));
}

TEST_CASE("a run traced by flow keeps the lines of the flows it names", "[trace][trace-flow]") {
  const test_support::ScratchDir dir("apfsim-trace-flow");
  const sim::RunOutcome whole =
      sim::RunScenario(Request("trace-narrowing.yaml", "workload-low", dir, "whole"));
  // The service-accounts FlowSchema distinguishes by user: op-1 is one of the fixture's
  // four operators, ops:lister the sweep.
  sim::RunRequest request = Request("trace-narrowing.yaml", "workload-low", dir, "flows");
  request.trace_flows = {"system:serviceaccount:ops:op-1", "system:serviceaccount:ops:lister"};
  const sim::RunOutcome flows = sim::RunScenario(request);
  std::vector<std::string> expected;
  std::set<std::string> seen;
  for (const std::string& line : TraceLines(whole)) {
    const std::string d = nlohmann::json::parse(line)["distinguisher"].get<std::string>();
    if (d != request.trace_flows[0] && d != request.trace_flows[1]) continue;
    expected.push_back(line);
    seen.insert(d);
  }
  CHECK(TraceLines(flows) == expected);
  CHECK(seen.size() == 2);
  CHECK(OtherOutputs(flows) == OtherOutputs(whole));
}

TEST_CASE("narrowing the trace changes no other output, and neither does tracing", "[trace]") {
  const test_support::ScratchDir dir("apfsim-trace-others");
  sim::RunRequest untraced = Request("trace-narrowing.yaml", "", dir, "untraced");
  sim::RunRequest narrowed = Request("trace-narrowing.yaml", "operators", dir, "narrowed");
  narrowed.trace_window = Window(5 * kS, 15 * kS);
  narrowed.trace_sample = 0.5;
  narrowed.trace_flows = {"system:serviceaccount:ops:op-2"};
  const sim::RunOutcome a = sim::RunScenario(untraced), b = sim::RunScenario(narrowed);
  CHECK_FALSE(TraceLines(b).empty());
  const std::map<std::string, std::string> outputs = OtherOutputs(a);
  // The files compared: summary.json, timeline.csv, clients.csv, metrics.prom.
  for (const char* file : {"summary.json", "timeline.csv", "clients.csv", "metrics.prom"}) {
    INFO(file);
    CHECK_FALSE(outputs.at(file).empty());
  }
  CHECK(outputs == OtherOutputs(b));
}

TEST_CASE("the estimate of trace.jsonl's size is within a factor of 1.5 of what is written",
          "[trace][trace-size]") {
  const test_support::ScratchDir dir("apfsim-trace-size");
  // The factor: kTraceBytesPerCall is the drift sweep's bytes per call; this fixture's lines
  // are shorter (shorter names: about 610 bytes, not 668) and a few of its calls retry
  // (6% more lines than calls), which the constant does not know. The calls themselves are
  // open-loop traffic, estimated to within a few percent (trace_size.cc).
  struct Case {
    const char* name;
    std::optional<sim::ReportWindow> window;
    double sample;
  };
  for (const Case& c :
       {Case{"whole run", std::nullopt, 1}, Case{"2s..7s", Window(2 * kS, 7 * kS), 1},
        Case{"half of 8s..20s", Window(8 * kS, 20 * kS), 0.5}}) {
    INFO(c.name);
    sim::RunRequest request = Request("trace-narrowing.yaml", "workload-low", dir, c.name);
    request.trace_window = c.window;
    request.trace_sample = c.sample;
    const sim::ResolvedRun resolved = sim::ResolveRunInputs(request);
    const std::optional<sim::TraceSizeEstimate> estimate =
        sim::EstimateTraceSize(resolved.scenario, resolved.flow_control.config, request.trace,
                               sim::TraceFilterOf(request, resolved.scenario));
    REQUIRE(estimate);
    const sim::RunOutcome out = sim::RunScenario(resolved, request);
    const double written = static_cast<double>(fs::file_size(out.out_dir + "/trace.jsonl"));
    INFO("estimated " << estimate->bytes << " bytes, written " << written);
    CHECK(estimate->bytes < 1.5 * written);
    CHECK(estimate->bytes > written / 1.5);
  }
}

TEST_CASE("a trace estimated above --trace-max-bytes is refused before anything is written",
          "[trace][trace-size]") {
  const test_support::ScratchDir dir("apfsim-trace-refused");
  // The fixture's estimate: 6,400 calls (trace-narrowing.yaml: 4 x 50/s for 20 s and four
  // sweeps of 600) of 668 bytes, 4.3 MB.
  sim::RunRequest request = Request("trace-narrowing.yaml", "workload-low", dir, "out");
  request.trace_max_bytes = 4'000'000;
  try {
    sim::RunScenario(request);
    FAIL("the run was not refused");
  } catch (const sim::InputError& e) {
    CHECK(e.where().file == "--trace-max-bytes");
    CHECK_THAT(e.message(), Catch::StartsWith("trace.jsonl would be about 4.3 MB (about 6400 "
                                              "calls of priority level workload-low), above "
                                              "the limit of 4000000 bytes"));
  }
  CHECK_FALSE(fs::exists(dir.File("out")));
  // Raised, or given as 0 (no limit), the same trace is written.
  request.trace_max_bytes = 5'000'000;
  CHECK_NOTHROW(sim::RunScenario(request));
  request.trace_max_bytes = 0;
  CHECK_NOTHROW(sim::RunScenario(request));
}

TEST_CASE("apfsim run refuses a trace above the limit with exit code 2 and keeps the last run",
          "[trace][trace-size][cli]") {
  const test_support::ScratchDir dir("apfsim-trace-refused-cli");
  using test_support::RunApfsim;
  using test_support::ShellQuote;
  const std::string out = " --out " + ShellQuote(dir.File("out"));
  const std::string fixture = ShellQuote(Fixture("trace-narrowing.yaml"));
  // A first run writes its trace and prints the estimate on standard error.
  const test_support::CommandResult first =
      RunApfsim("run " + fixture + " --trace workload-low --progress never" + out, dir.path());
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.err, Catch::Contains("trace.jsonl: about 4.3 MB for about 6400 calls of "
                                        "priority level workload-low\n"));
  const std::string trace = test_support::ReadFile(dir.File("out/trace.jsonl"));
  // Refused: bad input (sim/cli/command.h kExitBadInput), and the first run's files stay.
  const test_support::CommandResult refused = RunApfsim(
      "run " + fixture + " --trace workload-low --trace-max-bytes 1000000" + out, dir.path());
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err,
             Catch::StartsWith("apfsim run: error: --trace-max-bytes: trace.jsonl would be "
                               "about 4.3 MB"));
  CHECK_THAT(refused.err, Catch::Contains("--trace-window FROM..TO"));
  CHECK(test_support::ReadFile(dir.File("out/trace.jsonl")) == trace);
  // The default limit, 1 GiB, refuses the drift sweep's whole workload-low: 2.36 million
  // calls estimated (trace_size.cc), 1.6 GB; refused before the run, so this takes no time.
  const std::string drift =
      ShellQuote(std::string(APFSIM_SOURCE_DIR) + "/scenarios/drift-sweep.yaml");
  const test_support::CommandResult whole =
      RunApfsim("run " + drift + " --trace workload-low" + out, dir.path());
  CHECK(whole.exit_code == 2);
  CHECK_THAT(whole.err, Catch::Contains("trace.jsonl would be about 1.6 GB"));
  CHECK_THAT(whole.err, Catch::Contains("above the limit of 1073741824 bytes"));
  CHECK(test_support::ReadFile(dir.File("out/trace.jsonl")) == trace);
}
