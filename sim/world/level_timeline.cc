#include "sim/world/level_timeline.h"

#include <algorithm>

namespace sim {

void LevelGauges::CloseInterval(apf::Nanos start, apf::Nanos end) {
  Advance(end);
  for (int g = 0; g < kCount; ++g) {
    mean_[g] = end > start ? integral_[g] / static_cast<double>(end - start)
                           : static_cast<double>(value_[g]);
    integral_[g] = 0;
  }
}

void LevelTimeline::SetLimits(int current_cl, int nominal_cl) {
  current_cl_ = current_cl;
  nominal_cl_ = nominal_cl;
}

LevelRow LevelTimeline::CloseInterval(apf::Nanos start, apf::Nanos end) {
  LevelRow row;
  gauges_.CloseInterval(start, end);
  row.executing_requests = gauges_.mean(LevelGauges::kExecutingRequests);
  row.executing_seats = gauges_.mean(LevelGauges::kExecutingSeats);
  row.waiting_requests = gauges_.mean(LevelGauges::kWaitingRequests);
  row.waiting_seats = gauges_.mean(LevelGauges::kWaitingSeats);
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
  peak_executing_seats_ = gauges_.value(LevelGauges::kExecutingSeats);
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

double LevelTimeline::mean_current_cl(apf::Nanos end) const {
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
  totals_.broken_connections += row.broken_connections;
  for (int i = 0; i < kGatewayRefusalKinds; ++i)
    totals_.gateway_refused[i] += row.gateway_refused[i];
  for (int i = 0; i < kGatewayCutKinds; ++i) totals_.gateway_cut[i] += row.gateway_cut[i];
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
