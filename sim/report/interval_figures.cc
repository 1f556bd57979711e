#include "sim/report/interval_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/text.h"

namespace sim {
namespace {

nlohmann::json StartJson(const WorstInterval& w) {
  return w.start ? nlohmann::json(apf::ToSeconds(*w.start)) : nlohmann::json(nullptr);
}

nlohmann::json CountJson(const WorstInterval& w) {
  return {{"startSeconds", StartJson(w)}, {"value", static_cast<std::uint64_t>(w.value)}};
}

nlohmann::json SecondsJson(const WorstInterval& w) {
  return {{"startSeconds", StartJson(w)}, {"seconds", Round6(w.value)}};
}

double P99Seconds(const LatencyHistogram& h) { return apf::ToSeconds(h.Quantile(0.99)); }

}  // namespace

ReportWindow ParseReportWindow(const std::string& text, const std::string& flag) {
  auto fail = [&](const std::string& why) -> ReportWindow {
    throw InputError({flag, 0, 0}, "", why);
  };
  constexpr std::string_view kEvent = "event:";
  std::string_view range(text);
  std::optional<int> event;
  if (range.substr(0, kEvent.size()) == kEvent) {
    range.remove_prefix(kEvent.size());
    const std::size_t colon = range.find(':'), dots = range.find("..");
    event = 0;
    if (colon != std::string_view::npos && (dots == std::string_view::npos || colon < dots)) {
      const std::string_view index = range.substr(0, colon);
      int n = 0;
      const auto [end, error] = std::from_chars(index.data(), index.data() + index.size(), n);
      if (index.empty() || error != std::errc() || end != index.data() + index.size() || n < 0) {
        return fail("the event index of event:N:FROM..TO must be a whole number from 0 (got \"" +
                    std::string(index) + "\" in \"" + text + "\")");
      }
      event = n;
      range.remove_prefix(colon + 1);
    }
  }
  const std::size_t dots = range.find("..");
  if (dots == std::string_view::npos) {
    return fail(event ? "expected event:FROM..TO or event:N:FROM..TO with two offsets from the "
                        "event, e.g. event:0..+2m (got \"" +
                            text + "\")"
                      : "expected FROM..TO with two durations, e.g. 6m..8m (got \"" + text + "\")");
  }
  // An event's offsets may carry a sign: "-30s", "+2m".
  auto parse = [&](std::string_view part, std::string* why) -> std::optional<apf::Nanos> {
    bool negative = false;
    if (event && !part.empty() && (part.front() == '+' || part.front() == '-')) {
      negative = part.front() == '-';
      part.remove_prefix(1);
    }
    const auto d = ParseDuration(part, why);
    if (!d) return d;
    return negative ? -*d : *d;
  };
  std::string why;
  const auto from = parse(range.substr(0, dots), &why);
  if (!from) return fail("FROM: " + why);
  const auto to = parse(range.substr(dots + 2), &why);
  if (!to) return fail("TO: " + why);
  if (!event && *from < 0) return fail("FROM must not be negative (got \"" + text + "\")");
  if (*to <= *from) return fail("TO must be after FROM (got \"" + text + "\")");
  return ReportWindow{*from, *to, event};
}

ReportWindow ResolveReportWindow(const ReportWindow& window,
                                 const std::vector<apf::Nanos>& event_times, apf::Nanos duration,
                                 const std::string& flag) {
  auto fail = [&](const std::string& why) -> ReportWindow {
    throw InputError({flag, 0, 0}, "", why);
  };
  ReportWindow out{window.from, window.to, std::nullopt};
  std::string named;  // how the message names the window's ends
  if (window.event) {
    const int n = *window.event;
    if (event_times.empty()) {
      return fail(fmt::format("event:{}: the scenario has no spec.events to be relative to", n));
    }
    if (n >= static_cast<int>(event_times.size())) {
      return fail(fmt::format("event:{}: the scenario has {} spec.events (0 to {})", n,
                              event_times.size(), event_times.size() - 1));
    }
    const apf::Nanos at = event_times[n];
    out.from = at + window.from;
    out.to = at + window.to;
    named = fmt::format(": spec.events[{}] at {}", n, FormatDuration(at));
    if (out.from < 0) {
      return fail(fmt::format("FROM ({}{}) is before the start of the run",
                              FormatDuration(out.from), named));
    }
  }
  // A window that reaches past the run's end would report figures of time never simulated
  // as if they were the window's (spec.expect's windows are held to the same).
  if (out.to > duration) {
    return fail(fmt::format("TO ({}{}) is past the end of the run ({}, spec.duration)",
                            FormatDuration(out.to), named, FormatDuration(duration)));
  }
  return out;
}

nlohmann::json QuantilesJson(const LatencyHistogram& h) {
  return {{"p50", Round6(apf::ToSeconds(h.Quantile(0.5)))},
          {"p99", Round6(apf::ToSeconds(h.Quantile(0.99)))},
          {"p999", Round6(apf::ToSeconds(h.Quantile(0.999)))},
          {"max", Round6(apf::ToSeconds(h.max()))}};
}

void IntervalFigures::CloseOpen(Level& l) {
  if (l.open_start < 0) return;
  l.rejected.Offer(l.open_start, static_cast<double>(l.open_rejected));
  if (l.open_waits.count() > 0) l.wait_p99.Offer(l.open_start, P99Seconds(l.open_waits));
  l.open_start = -1;
  l.open_rejected = 0;
  l.open_waits.Clear();
}

void IntervalFigures::OnLevelRow(apf::Nanos start, const std::string& level, const LevelRow& row) {
  Level& l = levels_[level];
  if (l.open_start != start) {
    CloseOpen(l);
    l.open_start = start;
  }
  for (std::uint64_t r : row.counters.rejected) l.open_rejected += r;
  if (row.waits) l.open_waits.Merge(*row.waits);
  if (!InWindow(start)) return;
  l.counters.dispatched += row.counters.dispatched;
  for (int k = 0; k < kRejectionKinds; ++k) l.counters.rejected[k] += row.counters.rejected[k];
  if (row.waits) l.waits.Merge(*row.waits);
  l.nominal_cl = std::max(l.nominal_cl, row.nominal_cl);
  l.peak_executing_seats = std::max(l.peak_executing_seats, row.peak_executing_seats);
  l.current_cl_sum += row.current_cl;
  ++l.rows;
}

void IntervalFigures::OnClientRow(apf::Nanos start, const std::string& client,
                                  const ClientRow& row) {
  Client& c = clients_[client];
  c.rejected.Offer(start, static_cast<double>(row.http429));
  if (row.distributions) {
    const ClientDistributions& d = *row.distributions;
    if (d.queue_wait.count() > 0) c.wait_p99.Offer(start, P99Seconds(d.queue_wait));
    if (d.latency.count() > 0) c.latency_p99.Offer(start, P99Seconds(d.latency));
  }
  if (!InWindow(start)) return;
  if (!c.distributions) c.distributions = std::make_unique<ClientDistributions>();
  c.counts.calls += row.calls;
  c.counts.attempts += row.attempts;
  c.counts.succeeded += row.succeeded;
  c.counts.failed += row.failed;
  c.counts.http429 += row.http429;
  c.counts.calls_rejected += row.calls_rejected;
  if (row.distributions) c.distributions->Merge(*row.distributions);
}

nlohmann::json IntervalFigures::LevelWorst(const std::string& level) {
  Level& l = levels_[level];
  CloseOpen(l);
  return {{"rejected", CountJson(l.rejected)}, {"waitP99", SecondsJson(l.wait_p99)}};
}

nlohmann::json IntervalFigures::ClientWorst(const std::string& client) const {
  const auto it = clients_.find(client);
  const Client none;
  const Client& c = it == clients_.end() ? none : it->second;
  return {{"rejected", CountJson(c.rejected)},
          {"waitP99", SecondsJson(c.wait_p99)},
          {"latencyP99", SecondsJson(c.latency_p99)}};
}

nlohmann::json IntervalFigures::WindowLevels() {
  nlohmann::json out = nlohmann::json::object();
  for (auto& [name, l] : levels_) {
    if (l.rows == 0) continue;
    nlohmann::json rejected;
    for (int k = 0; k < kRejectionKinds; ++k)
      rejected[apf::RejectReasonName(static_cast<apf::RejectReason>(k))] = l.counters.rejected[k];
    out[name] = {{"nominalCL", l.nominal_cl},
                 {"meanCurrentCL", Round6(l.current_cl_sum / l.rows)},
                 {"peakExecutingSeats", l.peak_executing_seats},
                 {"dispatched", l.counters.dispatched},
                 {"rejected", rejected},
                 {"waitSeconds", QuantilesJson(l.waits)}};
  }
  return out;
}

nlohmann::json IntervalFigures::WindowClients() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, c] : clients_) {
    if (!c.distributions) continue;
    out[name] = {{"calls", c.counts.calls},
                 {"attempts", c.counts.attempts},
                 {"succeeded", c.counts.succeeded},
                 {"failed", c.counts.failed},
                 {"http429", c.counts.http429},
                 {"callsRejected", c.counts.calls_rejected},
                 {"latencySeconds", QuantilesJson(c.distributions->latency)},
                 {"queueWaitSeconds", QuantilesJson(c.distributions->queue_wait)},
                 {"throttleWaitSeconds", QuantilesJson(c.distributions->throttle_wait)}};
    if (c.distributions->iteration.count() > 0)
      out[name]["iterationSeconds"] = QuantilesJson(c.distributions->iteration);
  }
  return out;
}

}  // namespace sim
