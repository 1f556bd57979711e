// `--progress auto|always|never` of run, compare, sweep and check: how far the runs of one
// command have got, as a line on stderr. On a terminal (auto or always) it is one live line
// redrawn in place; with `always` off a terminal (CI logs, `kubectl logs` of the sweep Job)
// it is a plain line every 10 s of wall time; `never`, and `auto` off a terminal, print
// nothing. The fields are the same either way: the runs finished (several runs only), the
// simulated time done of the total, its percent, and an ETA from the wall time so far.
//
// The meter adds up several runs (a sweep's grid points run on threads at once, compare's
// two runs one after the other): each run is planned with its simulated duration, then
// advanced from the world's interval callback. The wall clock and the writer are injected,
// so that tests drive the formatting with a fake clock. Tested by
// tests/sim/workflows/progress_test.cc.
#ifndef SIM_WORKFLOWS_PROGRESS_H_
#define SIM_WORKFLOWS_PROGRESS_H_

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

enum class ProgressMode { kAuto, kAlways, kNever };

// Parses --progress's value; throws InputError (field "--progress") on anything else.
ProgressMode ParseProgressMode(const std::string& text);

// How the meter shows itself, decided from the mode, --quiet and whether stderr is a
// terminal: auto shows a live line on a terminal unless --quiet; always shows a live line
// on a terminal and plain lines elsewhere; never shows nothing.
enum class ProgressStyle { kNone, kLive, kPlain };
ProgressStyle ChooseProgressStyle(ProgressMode mode, bool quiet, bool stderr_is_terminal);

// What the line shows, without the wall clock.
struct ProgressFigures {
  std::string label;  // the scenario's name, or "sweep drift-sweep"
  apf::Nanos simulated_done = 0;
  apf::Nanos simulated_total = 0;
  std::size_t runs_done = 0;
  std::size_t runs_total = 0;
};

// "drift-sweep: 3m00s of 15m00s simulated (20%), ETA 1m12s"; with several runs,
// "sweep drift-sweep: 2 of 8 runs, 31m00s of 2h00m simulated (26%), ETA 4m05s". The ETA
// is the wall time so far scaled by what is left ("ETA ?" before any simulated time).
std::string FormatProgressLine(const ProgressFigures& figures, double wall_seconds);

// Seconds as a clock: "4m05s", "1h02m".
std::string FormatClock(double seconds);

class ProgressMeter {
 public:
  using WallClock = std::function<double()>;  // seconds, from any fixed origin
  using Writer = std::function<void(const std::string&)>;

  // The real one: stderr, the steady clock, the style from the mode and the terminal.
  ProgressMeter(ProgressMode mode, bool quiet, std::string label);
  // For tests: a given style, clock and writer.
  ProgressMeter(ProgressStyle style, std::string label, WallClock clock, Writer writer);
  // Clears a live line, so that what is printed next (a table, an error) starts clean.
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  bool shown() const { return style_ != ProgressStyle::kNone; }

  // Adds a run of `duration` simulated to the total; returns its slot.
  std::size_t Plan(apf::Nanos duration);
  // The run in `slot` has simulated up to `now`; may draw the line. Thread-safe.
  void Advance(std::size_t slot, apf::Nanos now);
  // The run in `slot` ended (all its duration counts as done). Thread-safe.
  void Finish(std::size_t slot);
  // Clears a live line now (the destructor does too).
  void Clear();

 private:
  void MaybeDraw(double now_seconds);  // with mutex_ held

  ProgressStyle style_;
  std::string label_;
  WallClock clock_;
  Writer writer_;
  double start_seconds_;
  double next_draw_seconds_;
  bool live_line_on_screen_ = false;
  std::mutex mutex_;
  std::vector<apf::Nanos> durations_;
  std::vector<apf::Nanos> done_;
  std::vector<bool> finished_;
};

}  // namespace sim

#endif  // SIM_WORKFLOWS_PROGRESS_H_
