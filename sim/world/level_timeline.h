// What a run records about one priority level on one apiserver replica (or one
// MaxInFlight pool when APF is off): gauges integrated over time, counters, and wait
// percentiles, closed into one timeline.csv row per report interval and summed into the
// run's totals. Memory is constant: nothing is kept per request.
#ifndef SIM_WORLD_LEVEL_TIMELINE_H_
#define SIM_WORLD_LEVEL_TIMELINE_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "apf/base/virtual_time.h"
#include "apf/filter/flow_control.h"
#include "sim/world/latency_histogram.h"

namespace sim {

// The time integrals of a level's gauges (executing requests and seats, waiting requests
// and seats), piecewise constant. They change together, so they share one clock.
class LevelGauges {
 public:
  enum Gauge { kExecutingRequests, kExecutingSeats, kWaitingRequests, kWaitingSeats, kCount };
  // Inline: a level's state is set a few times per request.
  void Set(apf::Nanos now, int executing_requests, int executing_seats, int waiting_requests,
           int waiting_seats) {
    Advance(now);
    value_[kExecutingRequests] = executing_requests;
    value_[kExecutingSeats] = executing_seats;
    value_[kWaitingRequests] = waiting_requests;
    value_[kWaitingSeats] = waiting_seats;
  }
  // The time-weighted mean of `gauge` over [start, end): CloseInterval(start, end) first.
  double mean(Gauge gauge) const { return mean_[gauge]; }
  // Ends the interval [start, end) (its means) and starts a new one at `end`.
  void CloseInterval(apf::Nanos start, apf::Nanos end);
  int value(Gauge gauge) const { return value_[gauge]; }

 private:
  void Advance(apf::Nanos now) {
    // A level's state changes several times within most instants, and nothing accrues
    // within one: adding 0 would leave each integral as it is.
    if (now == last_) return;
    const double elapsed = static_cast<double>(now - last_);
    for (int g = 0; g < kCount; ++g) integral_[g] += static_cast<double>(value_[g]) * elapsed;
    last_ = now;
  }

  int value_[kCount] = {0, 0, 0, 0};
  apf::Nanos last_ = 0;
  double integral_[kCount] = {0, 0, 0, 0};  // value x ns since the interval began
  double mean_[kCount] = {0, 0, 0, 0};      // of the last closed interval
};

// A level counts its rejections by apf::RejectReason's first three reasons, in that order
// (apf::RejectReasonName spells them); MaxInFlight's refusals count as concurrency-limit,
// the reason its metric gives them.
inline constexpr int kRejectionKinds = 3;
inline apf::RejectReason CountedRejectReason(apf::RejectReason reason) {
  return reason == apf::RejectReason::kMaxInFlight ? apf::RejectReason::kConcurrencyLimit : reason;
}
static_assert(static_cast<int>(apf::RejectReason::kQueueFull) == 0 &&
              static_cast<int>(apf::RejectReason::kTimeOut) == 1 &&
              static_cast<int>(apf::RejectReason::kConcurrencyLimit) == 2);

struct LevelCounters {
  std::uint64_t dispatched = 0;
  std::uint64_t rejected[kRejectionKinds] = {0, 0, 0};
};

struct LevelRow {  // one timeline.csv row
  double executing_requests, executing_seats, waiting_requests, waiting_seats;
  int peak_executing_seats;
  int current_cl, nominal_cl;
  LevelCounters counters;
  std::uint64_t waits_dispatched;
  apf::Nanos wait_p50, wait_p99;
  int retry_after;
  // The interval's queue waits (those of `waits_dispatched`), so that a report can merge
  // intervals into a window's exact percentiles. Valid until the next CloseInterval.
  const LatencyHistogram* waits;
};

class LevelTimeline {
 public:
  // The level's state after any change (dispatch, enqueue, finish, release, time-out).
  void SetState(apf::Nanos now, int executing_requests, int executing_seats, int waiting_requests,
                int waiting_seats) {
    gauges_.Set(now, executing_requests, executing_seats, waiting_requests, waiting_seats);
    peak_executing_seats_ = std::max(peak_executing_seats_, executing_seats);
    total_peak_executing_seats_ = std::max(total_peak_executing_seats_, executing_seats);
  }
  void SetLimits(int current_cl, int nominal_cl);
  void SetRetryAfter(int seconds) { retry_after_ = seconds; }
  void SetMaxSeats(int max_seats) { max_seats_ = max_seats; }
  // A request was dispatched after waiting `wait` and charged `seats` (its max seats).
  // Inline, as the world's other per-request updates: most waits are a constant 0.
  void OnDispatched(apf::Nanos wait, int seats) {
    ++interval_.dispatched;
    interval_waits_[open_waits_].Add(wait);
    peak_request_seats_ = std::max(peak_request_seats_, seats);
  }
  void OnRejected(apf::RejectReason reason) {  // a counted reason (CountedRejectReason)
    ++interval_.rejected[static_cast<int>(reason)];
  }

  LevelRow CloseInterval(apf::Nanos start, apf::Nanos end);
  // The run ended. An interval gets no row when the run ends at its start, but what its
  // first instant dispatched or rejected still counts in the totals.
  void EndRun();

  // Totals over the run, as of the last CloseInterval: a request adds to its interval
  // only, and each closed interval is added to the totals (one merge per interval instead
  // of a second update per request).
  const LevelCounters& totals() const { return totals_; }
  const LatencyHistogram& total_waits() const { return total_waits_; }
  int peak_executing_seats() const { return total_peak_executing_seats_; }
  int peak_request_seats() const { return peak_request_seats_; }
  int nominal_cl() const { return nominal_cl_; }
  int max_seats() const { return max_seats_; }
  // Mean of the current limit over the run, weighted by time.
  double mean_current_cl(apf::Nanos end) const;

 private:
  void AddIntervalToTotals();

  LevelGauges gauges_;
  double run_cl_integral_ = 0;
  int peak_executing_seats_ = 0;
  int total_peak_executing_seats_ = 0;
  int peak_request_seats_ = 0;
  int current_cl_ = 0, nominal_cl_ = 0, max_seats_ = 0;
  int retry_after_ = 0;
  LevelCounters interval_, totals_;
  // Two interval histograms in turn: the one a closed row points at stays intact while
  // the next interval fills the other.
  LatencyHistogram interval_waits_[2], total_waits_;
  int open_waits_ = 0;
  apf::Nanos cl_since_ = 0;
};

// The distributions a client records, per interval and over the run.
struct ClientDistributions {
  LatencyHistogram latency;        // a call's issue to its answer, retries included
  LatencyHistogram queue_wait;     // an attempt's APF queue wait (0 when it ran at once)
  LatencyHistogram throttle_wait;  // a call's waits for its client-go rate limiter
  LatencyHistogram iteration;      // closedLoop: one pass through the pattern's calls
  void Merge(const ClientDistributions& other);
  void Clear();
};

// The gateway's answers instead of the apiserver's and its cuts, per client (indexed by
// sim/world/gateway.h's GatewayRefusal, and GatewayCut less one).
inline constexpr int kGatewayRefusalKinds = 5;
inline constexpr int kGatewayCutKinds = 4;

// What a run records about one client: logical calls, attempts and their outcomes.
struct ClientRow {
  std::uint64_t calls, attempts, succeeded, failed, http429;
  // Calls that got their first 429 in the interval (a call retried ten times counts once).
  std::uint64_t calls_rejected;
  // Behind the gateway: attempts it answered, by reason; responses it cut short, by cause.
  std::uint64_t gateway_refused[kGatewayRefusalKinds];
  std::uint64_t gateway_cut[kGatewayCutKinds];
  // Attempts in flight at a replica that stopped (spec.events): their connection broke.
  std::uint64_t broken_connections;
  apf::Nanos latency_p50, latency_p99;
  // The interval's distributions, valid until the next CloseInterval (null in totals()).
  const ClientDistributions* distributions;
};

class ClientTimeline {
 public:
  void OnCall() { ++interval_.calls; }
  void OnAttempt() { ++interval_.attempts; }
  void On429() { ++interval_.http429; }
  void OnCallRejected() { ++interval_.calls_rejected; }
  void OnGatewayRefused(int why) { ++interval_.gateway_refused[why]; }
  void OnGatewayCut(int cause) { ++interval_.gateway_cut[cause]; }
  void OnBrokenConnection() { ++interval_.broken_connections; }
  // An attempt left the APF queue (dispatched, or timed out there) after `wait`; one that
  // ran at once waited 0. Attempts refused on arrival never queued and are not counted.
  // Inline: most waits are a constant 0.
  void OnQueueWait(apf::Nanos wait) { open().queue_wait.Add(wait); }
  // A closedLoop worker finished one pass through its calls in `duration`.
  void OnIteration(apf::Nanos duration) { open().iteration.Add(duration); }
  // The call ended (after all its retries) with `latency` from issue to answer, having
  // waited `throttle_wait` in all for its client-side rate limiter.
  void OnCallDone(bool succeeded, apf::Nanos latency, apf::Nanos throttle_wait = 0) {
    ++(succeeded ? interval_.succeeded : interval_.failed);
    ClientDistributions& d = open();
    d.latency.Add(latency);
    d.throttle_wait.Add(throttle_wait);
  }

  ClientRow CloseInterval();
  // The run ended. An interval gets no row when the run ends at its start, but the
  // distributions of its first instant still count in the totals (its counters do not).
  void EndRun();
  // Totals over the run, as of the last CloseInterval (a call or attempt adds to its
  // interval only; each closed interval is merged into the totals) and EndRun.
  const ClientRow& totals() const { return totals_; }
  // Calls issued so far, the open interval's included.
  std::uint64_t calls_so_far() const { return totals_.calls + interval_.calls; }
  const LatencyHistogram& total_latencies() const { return total_.latency; }
  const ClientDistributions& total_distributions() const { return total_; }
  // Calls issued and not yet answered (after the last CloseInterval of a run: pending at
  // its end).
  std::uint64_t pending() const {
    return calls_so_far() - totals_.succeeded - totals_.failed - interval_.succeeded -
           interval_.failed;
  }

 private:
  ClientDistributions& open() { return interval_dists_[open_]; }
  ClientRow interval_{}, totals_{};
  ClientDistributions interval_dists_[2], total_;  // two in turn, as LevelTimeline's waits
  int open_ = 0;
};

}  // namespace sim

#endif  // SIM_WORLD_LEVEL_TIMELINE_H_
