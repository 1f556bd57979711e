#include "sim/workflows/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "sim/io/input_error.h"
#include "sim/io/terminal.h"

namespace sim {
namespace {

// A live line appears only once a run has taken a second, so quick runs do not flash
// one; it is then redrawn at most five times a second.
constexpr double kLiveFirstSeconds = 1.0;
constexpr double kLiveEverySeconds = 0.2;
// Off a terminal a line is a log line: one every 10 s keeps a long sweep's log readable.
constexpr double kPlainEverySeconds = 10.0;

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string SimulatedClock(apf::Nanos ns) { return FormatClock(static_cast<double>(ns) / 1e9); }

}  // namespace

ProgressMode ParseProgressMode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "always") return ProgressMode::kAlways;
  if (text == "never") return ProgressMode::kNever;
  throw InputError({"--progress", 0, 0}, text, "expected auto, always or never");
}

ProgressStyle ChooseProgressStyle(ProgressMode mode, bool quiet, bool stderr_is_terminal) {
  switch (mode) {
    case ProgressMode::kNever:
      return ProgressStyle::kNone;
    case ProgressMode::kAuto:
      return !quiet && stderr_is_terminal ? ProgressStyle::kLive : ProgressStyle::kNone;
    case ProgressMode::kAlways:
      return stderr_is_terminal ? ProgressStyle::kLive : ProgressStyle::kPlain;
  }
  return ProgressStyle::kNone;
}

std::string FormatClock(double seconds) {
  const auto s = static_cast<long long>(std::max(0.0, seconds) + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60)
                   : fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string FormatProgressLine(const ProgressFigures& f, double wall_seconds) {
  const double fraction = f.simulated_total > 0
                              ? std::clamp(static_cast<double>(f.simulated_done) /
                                               static_cast<double>(f.simulated_total),
                                           0.0, 1.0)
                              : 0.0;
  const std::string runs =
      f.runs_total > 1 ? fmt::format("{} of {} runs, ", f.runs_done, f.runs_total) : "";
  const std::string eta =
      fraction > 0 ? FormatClock(wall_seconds * (1 - fraction) / fraction) : std::string("?");
  return fmt::format("{}: {}{} of {} simulated ({:.0f}%), ETA {}", f.label, runs,
                     SimulatedClock(f.simulated_done), SimulatedClock(f.simulated_total),
                     std::floor(100 * fraction), eta);
}

ProgressMeter::ProgressMeter(ProgressMode mode, bool quiet, std::string label)
    : ProgressMeter(ChooseProgressStyle(mode, quiet, IsTerminal(2)), std::move(label),
                    SteadySeconds, [](const std::string& text) {
                      std::fputs(text.c_str(), stderr);
                      std::fflush(stderr);
                    }) {}

ProgressMeter::ProgressMeter(ProgressStyle style, std::string label, WallClock clock, Writer writer)
    : style_(style),
      label_(std::move(label)),
      clock_(std::move(clock)),
      writer_(std::move(writer)),
      start_seconds_(clock_()),
      next_draw_seconds_(start_seconds_ + (style_ == ProgressStyle::kPlain ? kPlainEverySeconds
                                                                           : kLiveFirstSeconds)) {}

ProgressMeter::~ProgressMeter() { Clear(); }

std::size_t ProgressMeter::Plan(apf::Nanos duration) {
  std::lock_guard<std::mutex> lock(mutex_);
  durations_.push_back(std::max<apf::Nanos>(0, duration));
  done_.push_back(0);
  finished_.push_back(false);
  return durations_.size() - 1;
}

void ProgressMeter::Advance(std::size_t slot, apf::Nanos now) {
  if (style_ == ProgressStyle::kNone) return;
  std::lock_guard<std::mutex> lock(mutex_);
  done_.at(slot) = std::clamp<apf::Nanos>(now, 0, durations_.at(slot));
  MaybeDraw(clock_());
}

void ProgressMeter::Finish(std::size_t slot) {
  if (style_ == ProgressStyle::kNone) return;
  std::lock_guard<std::mutex> lock(mutex_);
  done_.at(slot) = durations_.at(slot);
  finished_.at(slot) = true;
  MaybeDraw(clock_());
}

void ProgressMeter::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (live_line_on_screen_) writer_("\r\033[K");
  live_line_on_screen_ = false;
}

void ProgressMeter::MaybeDraw(double now_seconds) {
  if (now_seconds < next_draw_seconds_) return;
  ProgressFigures figures;
  figures.label = label_;
  figures.runs_total = durations_.size();
  for (std::size_t i = 0; i < durations_.size(); ++i) {
    figures.simulated_total += durations_[i];
    figures.simulated_done += done_[i];
    figures.runs_done += finished_[i] ? 1 : 0;
  }
  const std::string line = FormatProgressLine(figures, now_seconds - start_seconds_);
  if (style_ == ProgressStyle::kLive) {
    writer_("\r\033[K" + line);
    live_line_on_screen_ = true;
    next_draw_seconds_ = now_seconds + kLiveEverySeconds;
  } else {
    writer_(line + "\n");
    // The next multiple of 10 s from the start: a slow interval skips lines, never bunches them.
    next_draw_seconds_ =
        start_seconds_ +
        kPlainEverySeconds * (std::floor((now_seconds - start_seconds_) / kPlainEverySeconds) + 1);
  }
}

}  // namespace sim
