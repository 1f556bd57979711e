// The --progress line (sim/workflows/progress.h) driven by a fake wall clock: its fields,
// when a live line is redrawn and cleared, and the plain line every 10 s of wall time off a
// terminal. No real time passes: every instant is set by hand. The expected ETAs are hand
// calculations: wall time so far x (1 - done) / done.
#include "sim/workflows/progress.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/io/input_error.h"

using apf::kSecond;
using sim::ProgressMeter;
using sim::ProgressStyle;

namespace {

struct FakeTerminal {
  double now = 100.0;  // any origin: the meter counts from its construction
  std::vector<std::string> writes;
  ProgressMeter Meter(ProgressStyle style, const std::string& label) {
    return ProgressMeter(
        style, label, [this] { return now; },
        [this](const std::string& t) { writes.push_back(t); });
  }
};

}  // namespace

TEST_CASE("the progress line has simulated time, percent and ETA", "[progress]") {
  sim::ProgressFigures f;
  f.label = "drift-sweep";
  f.simulated_done = 180 * kSecond;
  f.simulated_total = 900 * kSecond;
  f.runs_total = 1;
  // 20% done in 18 s of wall time: 18 x 0.8 / 0.2 = 72 s to go.
  CHECK(sim::FormatProgressLine(f, 18.0) ==
        "drift-sweep: 3m00s of 15m00s simulated (20%), ETA 1m12s");
  f.label = "sweep drift-sweep";
  f.runs_done = 2;
  f.runs_total = 8;
  f.simulated_done = 31 * 60 * kSecond;
  f.simulated_total = 2 * 3600 * kSecond;
  // 1860 of 7200 s (25.8%, shown 25%) in 60 s: 60 x 5340 / 1860 = 172.3 s, 2m52s.
  CHECK(sim::FormatProgressLine(f, 60.0) ==
        "sweep drift-sweep: 2 of 8 runs, 31m00s of 2h00m simulated (25%), ETA 2m52s");
  f.simulated_done = 0;
  CHECK(sim::FormatProgressLine(f, 3.0) ==
        "sweep drift-sweep: 2 of 8 runs, 0m00s of 2h00m simulated (0%), ETA ?");
}

TEST_CASE("clocks round to whole seconds and switch to hours at an hour", "[progress]") {
  CHECK(sim::FormatClock(0) == "0m00s");
  CHECK(sim::FormatClock(59.6) == "1m00s");
  CHECK(sim::FormatClock(3599) == "59m59s");
  CHECK(sim::FormatClock(3720) == "1h02m");
  CHECK(sim::FormatClock(-5) == "0m00s");
}

TEST_CASE("the progress mode picks live, plain or no lines from the terminal and --quiet",
          "[progress]") {
  using sim::ProgressMode;
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAuto, false, true) == ProgressStyle::kLive);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAuto, false, false) == ProgressStyle::kNone);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAuto, true, true) == ProgressStyle::kNone);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAlways, false, true) == ProgressStyle::kLive);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAlways, false, false) == ProgressStyle::kPlain);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kAlways, true, false) == ProgressStyle::kPlain);
  CHECK(sim::ChooseProgressStyle(ProgressMode::kNever, false, true) == ProgressStyle::kNone);
  CHECK(sim::ParseProgressMode("always") == ProgressMode::kAlways);
  CHECK_THROWS_AS(sim::ParseProgressMode("yes"), sim::InputError);
}

TEST_CASE("off a terminal, always prints a plain line every 10 s of wall time", "[progress]") {
  FakeTerminal t;
  {
    ProgressMeter meter = t.Meter(ProgressStyle::kPlain, "mini");
    const std::size_t slot = meter.Plan(100 * kSecond);
    t.now += 9.9;
    meter.Advance(slot, 10 * kSecond);
    CHECK(t.writes.empty());  // not yet 10 s
    t.now = 110.0;
    meter.Advance(slot, 10 * kSecond);
    // 10% in 10 s: 90 s to go.
    REQUIRE(t.writes.size() == 1);
    CHECK(t.writes[0] == "mini: 0m10s of 1m40s simulated (10%), ETA 1m30s\n");
    t.now = 115.0;
    meter.Advance(slot, 20 * kSecond);
    CHECK(t.writes.size() == 1);
    // A slow stretch past 30 s gives one line, not one per 10 s missed.
    t.now = 131.0;
    meter.Advance(slot, 50 * kSecond);
    REQUIRE(t.writes.size() == 2);
    CHECK(t.writes[1] == "mini: 0m50s of 1m40s simulated (50%), ETA 0m31s\n");
    t.now = 139.0;
    meter.Advance(slot, 60 * kSecond);
    CHECK(t.writes.size() == 2);  // the next is due at 40 s from the start
  }
  CHECK(t.writes.size() == 2);  // plain lines are log lines: nothing to clear
}

TEST_CASE("on a terminal the line is redrawn in place and cleared at the end", "[progress]") {
  FakeTerminal t;
  {
    ProgressMeter meter = t.Meter(ProgressStyle::kLive, "sweep mini");
    const std::size_t a = meter.Plan(60 * kSecond);
    const std::size_t b = meter.Plan(60 * kSecond);
    t.now += 0.5;
    meter.Advance(a, 30 * kSecond);
    CHECK(t.writes.empty());  // a run under a second shows no line
    t.now += 0.5;
    meter.Advance(b, 30 * kSecond);
    REQUIRE(t.writes.size() == 1);
    // Half of the 2 minutes in 1 s: 1 s to go.
    CHECK(t.writes[0] ==
          "\r\033[Ksweep mini: 0 of 2 runs, 1m00s of 2m00s simulated (50%), ETA 0m01s");
    t.now = 101.1;
    meter.Finish(a);
    CHECK(t.writes.size() == 1);  // at most five redraws a second
    t.now = 101.3;
    meter.Advance(b, 45 * kSecond);
    REQUIRE(t.writes.size() == 2);
    CHECK(t.writes[1] ==
          "\r\033[Ksweep mini: 1 of 2 runs, 1m45s of 2m00s simulated (87%), ETA 0m00s");
  }
  REQUIRE(t.writes.size() == 3);
  CHECK(t.writes[2] == "\r\033[K");
}

TEST_CASE("with no progress the meter writes nothing", "[progress]") {
  FakeTerminal t;
  {
    ProgressMeter meter = t.Meter(ProgressStyle::kNone, "quiet");
    const std::size_t slot = meter.Plan(kSecond);
    t.now += 100;
    meter.Advance(slot, kSecond / 2);
    meter.Finish(slot);
    CHECK_FALSE(meter.shown());
  }
  CHECK(t.writes.empty());
}
