// What a run may cost before apfsim stops it, and what a scenario is likely to cost before
// it starts. A typo in a rate (1e6 where 1e2 was meant) turns a minute's run into hours;
// these bounds turn that into a message that names the client responsible.
#ifndef SIM_SCENARIO_RUN_BUDGET_H_
#define SIM_SCENARIO_RUN_BUDGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace sim {

struct RunBudget {
  // A busy day (bench/synthetic-day.yaml: 260 million calls) takes about 1.5 billion
  // events, so the default leaves room for several such days in one run.
  static constexpr std::uint64_t kDefaultMaxEvents = 5'000'000'000;
  static constexpr double kDefaultMaxWallSeconds = 30 * 60;
  // A client that issues calls faster than its rate limiter lets them out (a rate of 1e6
  // and qps 5) piles them up, about 900 bytes each with their events (measured: 878 MB of
  // resident memory at the limit); no scenario of scenarios/ holds more than a few
  // thousand.
  static constexpr std::uint64_t kDefaultMaxPendingCalls = 1'000'000;
  std::uint64_t max_events = kDefaultMaxEvents;               // 0: no limit
  double max_wall_seconds = kDefaultMaxWallSeconds;           // 0: no limit
  std::uint64_t max_pending_calls = kDefaultMaxPendingCalls;  // 0: no limit
};

// The calls a scenario's traffic will issue, client by client, from its rates, sweeps and
// closed-loop workers. A rough figure (closed loops and replays are guessed at), good for
// the order of magnitude a warning needs.
struct WorkEstimate {
  double calls = 0;
  std::vector<double> client_calls;  // by client index
};
WorkEstimate EstimateWork(const Scenario& scenario);

// The calls one process of a client issues from traffic `t` within [from, to) of the run
// (all of EstimateWork's figure for a client is the sum over its traffic from 0 to the
// run's end, times its processes).
double TrafficCallsIn(const Scenario& scenario, const TrafficSpec& t, apf::Nanos from,
                      apf::Nanos to);

// Above this many calls a run takes minutes even at full speed: warn before starting.
inline constexpr double kLargeRunCalls = 1e9;

// The warning for a run above kLargeRunCalls, naming the biggest client; "" otherwise.
std::string LargeRunWarning(const Scenario& scenario, const WorkEstimate& estimate);

// Warnings, one per client, for the clients whose open-loop traffic (poisson, constant,
// sweep) offers more calls per second per process, averaged over the run, than the
// process's client-go rate limiter lets through (clientGo.qps): their calls wait ever
// longer for tokens, and the backlog grows to the end of the run. Closed loops wait for
// their answers and cannot outrun the limiter; replays and informers are not counted.
std::vector<std::string> ClientOverloadWarnings(const Scenario& scenario);

}  // namespace sim

#endif  // SIM_SCENARIO_RUN_BUDGET_H_
