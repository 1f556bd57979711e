#include "sim/world/level_timeline.h"

#include <algorithm>

namespace sim {

void GaugeIntegral::Set(apf::Nanos now, double value) {
  integral_ += value_ * static_cast<double>(now - last_);
  last_ = now;
  value_ = value;
}

double GaugeIntegral::CloseInterval(apf::Nanos start, apf::Nanos end) {
  Set(end, value_);
  const double mean = end > start ? integral_ / static_cast<double>(end - start) : value_;
  integral_ = 0;
  return mean;
}

void LevelTimeline::SetState(apf::Nanos now, int executing_requests, int executing_seats,
                             int waiting_requests, int waiting_seats) {
  executing_requests_.Set(now, executing_requests);
  executing_seats_.Set(now, executing_seats);
  waiting_requests_.Set(now, waiting_requests);
  waiting_seats_.Set(now, waiting_seats);
  peak_executing_seats_ = std::max(peak_executing_seats_, executing_seats);
  total_peak_executing_seats_ = std::max(total_peak_executing_seats_, executing_seats);
}

void LevelTimeline::SetLimits(int current_cl, int nominal_cl) {
  current_cl_ = current_cl;
  nominal_cl_ = nominal_cl;
}

LevelRow LevelTimeline::CloseInterval(apf::Nanos start, apf::Nanos end) {
  LevelRow row;
  row.executing_requests = executing_requests_.CloseInterval(start, end);
  row.executing_seats = executing_seats_.CloseInterval(start, end);
  row.waiting_requests = waiting_requests_.CloseInterval(start, end);
  row.waiting_seats = waiting_seats_.CloseInterval(start, end);
  row.peak_executing_seats = peak_executing_seats_;
  row.current_cl = current_cl_;
  row.nominal_cl = nominal_cl_;
  row.counters = interval_;
  const LatencyHistogram& waits = interval_waits_[open_waits_];
  row.waits_dispatched = waits.count();
  row.wait_p50 = waits.Quantile(0.5);
  row.wait_p99 = waits.Quantile(0.99);
  row.waits = &waits;
  row.retry_after = retry_after_;
  // The current limit over the run, weighted by how long each value held.
  run_cl_integral_ += static_cast<double>(current_cl_) * static_cast<double>(end - start);
  cl_since_ = end;
  peak_executing_seats_ = static_cast<int>(executing_seats_.value());
  AddIntervalToTotals();
  interval_ = LevelCounters{};
  open_waits_ ^= 1;
  interval_waits_[open_waits_].Clear();
  return row;
}

void LevelTimeline::AddIntervalToTotals() {
  totals_.dispatched += interval_.dispatched;
  for (int k = 0; k < kRejectionKinds; ++k) totals_.rejected[k] += interval_.rejected[k];
  total_waits_.Merge(interval_waits_[open_waits_]);
}

void LevelTimeline::EndRun() {
  AddIntervalToTotals();
  interval_ = LevelCounters{};
  interval_waits_[open_waits_].Clear();
}

double LevelTimeline::mean_current_cl(apf::Nanos end) {
  return end > 0 ? run_cl_integral_ / static_cast<double>(cl_since_ > 0 ? cl_since_ : end)
                 : current_cl_;
}

void ClientDistributions::Merge(const ClientDistributions& other) {
  latency.Merge(other.latency);
  queue_wait.Merge(other.queue_wait);
  throttle_wait.Merge(other.throttle_wait);
  iteration.Merge(other.iteration);
}

void ClientDistributions::Clear() {
  latency.Clear();
  queue_wait.Clear();
  throttle_wait.Clear();
  iteration.Clear();
}

ClientRow ClientTimeline::CloseInterval() {
  ClientRow row = interval_;
  row.latency_p50 = open().latency.Quantile(0.5);
  row.latency_p99 = open().latency.Quantile(0.99);
  row.distributions = &open();
  totals_.calls += row.calls;
  totals_.attempts += row.attempts;
  totals_.succeeded += row.succeeded;
  totals_.failed += row.failed;
  totals_.http429 += row.http429;
  totals_.calls_rejected += row.calls_rejected;
  total_.Merge(open());
  interval_ = ClientRow{};
  open_ ^= 1;
  open().Clear();
  return row;
}

void ClientTimeline::EndRun() {
  total_.Merge(open());
  open().Clear();
}

}  // namespace sim
