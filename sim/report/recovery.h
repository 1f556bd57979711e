// "Time to recover" after a scenario event (summary.json's "recovery"): for each priority
// level, the first report interval from which the level stays under its bounds (its
// rejections and its queue-wait maximum per interval) until the next event or the end of
// the run. One quiet interval in the middle of a storm is not a recovery, so the level must
// stay under; a level never over its bounds after the event recovers at the event itself
// (time 0), and one still over in the last interval never recovered (null, with the reason).
//
// The intervals are the report rows' (timeline.csv, `--interval`), merged over replicas as
// the cluster sees them: rejections summed, the wait maximum the largest. The intervals
// considered start with the one holding the event (its rows after the event decide as much
// as those before) and end before the next event (or the run's end). A level's bounds come
// from `--recovered-when` for every level, or else from the scenario's upper-bound
// expectations of the level (spec.expect `<`, `<=` or `==` on rejected.* and waitSeconds.*,
// each applied to every interval on its own), or else the default: no rejection.
// Tested by tests/sim/report/recovery_test.cc.
#ifndef SIM_REPORT_RECOVERY_H_
#define SIM_REPORT_RECOVERY_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apf/base/virtual_time.h"
#include "sim/scenario/scenario.h"
#include "sim/world/level_timeline.h"

namespace sim {

// An upper bound on an interval's figure: value < bound (strict) or value <= bound.
struct RecoveryBound {
  double value = 0;
  bool strict = false;
  bool Holds(double v) const { return strict ? v < value : v <= value; }
};

// What "back under" means for a level.
struct RecoveryBounds {
  std::optional<RecoveryBound> rejected;                      // all reasons summed
  std::optional<RecoveryBound> rejected_by[kRejectionKinds];  // one reason (spec.expect)
  std::optional<RecoveryBound> wait_max_seconds;
  std::string source;  // "--recovered-when", "spec.expect" or "default"
  // "rejected<=0, waitMax<=1s", as summary.json shows it.
  std::string Describe() const;
};

// Parses `--recovered-when "rejected=0,waitMax=1s"`: a comma-separated list of
// rejected=N (an interval's rejections, all reasons, at most N) and waitMax=DURATION (its
// longest queue wait at most that). Throws InputError with field "--recovered-when".
RecoveryBounds ParseRecoveredWhen(const std::string& text);

// The bounds of `level` from the scenario's expectations (source "spec.expect"), or the
// default (no rejection) when none is an upper bound on its rejections or waits.
RecoveryBounds BoundsFromExpectations(const std::vector<Expectation>& expectations,
                                      const std::string& level);

struct RecoverySpec {
  std::optional<int> event;              // spec.events[event]; nullopt: `at` is another run's event
  apf::Nanos at = 0;                     // the instant recovery is measured from
  apf::Nanos until = 0;                  // the next event, or the end of the run
  bool until_next_event = false;         // whether `until` is the next event's time
  apf::Nanos interval = 0;               // the report interval
  std::optional<RecoveryBounds> bounds;  // --recovered-when; nullopt: per level, as above
};

class RecoveryTracker {
 public:
  RecoveryTracker(RecoverySpec spec, const std::vector<Expectation>& expectations)
      : spec_(std::move(spec)), expectations_(expectations) {}

  void OnLevelRow(apf::Nanos start, const std::string& level, const LevelRow& row);

  // {"event", "atSeconds", "untilSeconds", "intervalSeconds", "levels": {NAME:
  // {"bounds", "boundsFrom", "recoveredAtSeconds", "timeToRecoverSeconds"[, "reason"]}}}.
  nlohmann::json Json() const;

 private:
  struct Interval {
    std::uint64_t rejected[kRejectionKinds] = {0, 0, 0};
    apf::Nanos wait_max = 0;
  };
  RecoveryBounds BoundsOf(const std::string& level) const;

  RecoverySpec spec_;
  const std::vector<Expectation>& expectations_;
  std::map<std::string, std::map<apf::Nanos, Interval>> levels_;  // by interval start
};

}  // namespace sim

#endif  // SIM_REPORT_RECOVERY_H_
