#include "sim/workflows/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/terminal.h"
#include "sim/report/expectations.h"
#include "sim/report/reference_figures.h"
#include "sim/report/run_report.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/provenance.h"
#include "sim/world/world.h"

namespace sim {
namespace {

using WallClock = std::chrono::steady_clock;

double WallSeconds(WallClock::time_point since) {
  return std::chrono::duration<double>(WallClock::now() - since).count();
}

std::string HowFar(const Scenario& scenario, const World& world, double wall_seconds) {
  return fmt::format("at {} of {} simulated ({:.0f}%), after {} events and {:.1f} s",
                     FormatDuration(world.now()), FormatDuration(scenario.duration),
                     100.0 * static_cast<double>(world.now()) /
                         static_cast<double>(std::max<apf::Nanos>(1, scenario.duration)),
                     world.events_handled(), wall_seconds);
}

// `part` of `all` as a whole percentage ("42%").
std::string Percent(std::uint64_t part, std::uint64_t all) {
  return fmt::format("{:.0f}%", 100.0 * static_cast<double>(part) / static_cast<double>(all));
}

// A run stopped by a budget, blamed on client `c`: the error points at the client's own
// lines (at the scenario file when the client has none, e.g. one made by an import).
[[noreturn]] void ThrowAtClient(const Scenario& scenario, const World& world, int c,
                                const std::string& message) {
  const ClientSpec& client = world.client_spec(c);
  const SourceLocation where =
      client.where.file.empty() ? SourceLocation{scenario.file, 0, 0} : client.where;
  throw InputError(where, fmt::format("spec.clients[{}]", c), message);
}

// A run that hit --max-events or --max-wall-time: the client that issued the most calls
// is almost always the typo, so the message points at it.
[[noreturn]] void ThrowBudgetExceeded(const Scenario& scenario, const World& world,
                                      const std::string& limit, double wall_seconds) {
  int busiest = -1;
  std::uint64_t busiest_calls = 0, all_calls = 0;
  for (int c = 0; c < world.client_count(); ++c) {
    const std::uint64_t calls = world.client_timeline(c).calls_so_far();
    all_calls += calls;
    if (busiest < 0 || calls > busiest_calls) busiest = c, busiest_calls = calls;
  }
  const std::string stopped =
      fmt::format("the run was stopped by {} {}", limit, HowFar(scenario, world, wall_seconds));
  if (busiest < 0 || all_calls == 0) {
    throw InputError({scenario.file, 0, 0}, "", stopped + "; no client had issued a call");
  }
  ThrowAtClient(scenario, world, busiest,
                fmt::format("{}: client \"{}\" issued {} of the {} calls so far ({}); check its "
                            "traffic (a rate, processes, workers), or raise the limit (0: none)",
                            stopped, world.client_spec(busiest).name, busiest_calls, all_calls,
                            Percent(busiest_calls, all_calls)));
}

// A run that hit --max-pending-calls: the client holding the most pending calls issues
// them faster than they finish (its rate limiter, or the server, cannot keep up).
[[noreturn]] void ThrowTooManyPending(const Scenario& scenario, const World& world,
                                      std::uint64_t limit, double wall_seconds) {
  const std::vector<std::uint64_t> pending = world.PendingCallsByClient();
  std::uint64_t all = 0;
  int most = -1;
  for (int c = 0; c < static_cast<int>(pending.size()); ++c) {
    all += pending[c];
    if (most < 0 || pending[c] > pending[most]) most = c;
  }
  const std::string stopped = fmt::format("the run was stopped by --max-pending-calls={} {}", limit,
                                          HowFar(scenario, world, wall_seconds));
  if (most < 0 || all == 0) throw InputError({scenario.file, 0, 0}, "", stopped);
  ThrowAtClient(
      scenario, world, most,
      fmt::format("{}: client \"{}\" holds {} of the {} pending calls ({}): it issues calls "
                  "faster than they finish (its rate, processes or workers against its qps, or "
                  "the server's capacity); memory would grow without end. Check its traffic, or "
                  "raise the limit (0: none)",
                  stopped, world.client_spec(most).name, pending[most], all,
                  Percent(pending[most], all)));
}

}  // namespace

TraceFilter TraceFilterOf(const RunRequest& request, const Scenario& scenario) {
  TraceFilter filter;
  if (request.trace_window) {
    const ReportWindow window = ResolveReportWindow(*request.trace_window, scenario.EventTimes(),
                                                    scenario.duration, "--trace-window");
    filter.from = window.from;
    filter.to = window.to;
  }
  filter.fraction = request.trace_sample;
  filter.seed = scenario.seed;
  filter.flows = request.trace_flows;
  return filter;
}

std::string CheckTraceSize(const ResolvedRun& resolved, const RunRequest& request,
                           const std::string& note) {
  if (request.trace.empty()) return "";
  const std::optional<TraceSizeEstimate> estimate =
      EstimateTraceSize(resolved.scenario, resolved.flow_control.config, request.trace,
                        TraceFilterOf(request, resolved.scenario));
  if (!estimate) return "";
  RefuseTraceAbove(*estimate, request.trace_max_bytes);
  return DescribeTraceSize(*estimate) + (note.empty() ? "" : " (" + note + ")");
}

RunOutcome RunScenario(const RunRequest& request) {
  return RunScenario(ResolveRunInputs(request), request);
}

RunOutcome RunScenario(const ResolvedRun& resolved, const RunRequest& request) {
  const Scenario& scenario = resolved.scenario;
  const FlowControlSetup& flow_control = resolved.flow_control;
  // An event window moves to its event (after --set and overlays); a window past the run's
  // end is refused (sim/report/interval_figures.h).
  const std::vector<apf::Nanos> event_times = scenario.EventTimes();
  std::optional<ReportWindow> window;
  if (request.window) window = ResolveReportWindow(*request.window, event_times, scenario.duration);
  // Recovery is measured from the first event (or --recovered-from's) until the next one or
  // the run's end.
  std::optional<RecoverySpec> recovery;
  const int from = request.recovered_from.value_or(0);
  if (!event_times.empty() && static_cast<std::size_t>(from) >= event_times.size()) {
    throw InputError({"--recovered-from", 0, 0}, "",
                     fmt::format("spec.events[{}]: the scenario has {} event{}", from,
                                 event_times.size(), event_times.size() == 1 ? "" : "s"));
  }
  if (!event_times.empty() || request.recovery_at) {
    RecoverySpec spec;
    if (!event_times.empty()) spec.event = from;
    spec.at = event_times.empty() ? *request.recovery_at : event_times[from];
    spec.until = scenario.duration;
    for (apf::Nanos t : event_times) {
      if (t > spec.at) {
        spec.until = t;
        spec.until_next_event = true;
        break;
      }
    }
    spec.interval = scenario.interval;
    spec.bounds = request.recovered_when;
    recovery = spec;
  } else if (request.recovered_when || request.recovered_from) {
    throw InputError({request.recovered_when ? "--recovered-when" : "--recovered-from", 0, 0}, "",
                     "the scenario has no spec.events to recover from");
  }
  // Before any output is begun: a trace too big is refused with nothing written.
  const std::string trace_size = CheckTraceSize(resolved, request);
  RunOutcome outcome;
  outcome.out_dir = request.out_dir.empty() ? "out/" + scenario.name : request.out_dir;
  RunReport report(scenario, outcome.out_dir, request.write_timelines);
  if (window) report.set_window(*window);
  if (recovery) report.set_recovery(*recovery);
  // One fold of the windows of spec.expect and, after them, of spec.reference's figures.
  std::vector<Expectation> windowed = scenario.expectations;
  for (Expectation& e : ReferenceProbes(scenario.reference)) windowed.push_back(std::move(e));
  ExpectationWindows windows(windowed);
  report.set_forward(&windows);
  report.set_reference_windows(&windows, scenario.expectations.size());
  WorldOptions options;
  options.trace = request.trace;
  if (!request.trace.empty()) options.trace_filter = TraceFilterOf(request, scenario);
  options.input_sha256 = true;  // the provenance's digests of the traces, as they are read
  if (!request.trace.empty()) report.EnableTrace();
  if (request.openmetrics) report.EnableOpenMetrics(*request.openmetrics);
  const WallClock::time_point wall_start = WallClock::now();
  if (!request.quiet) {
    std::set<std::string> shown;
    PrintRunWarnings(resolved, &shown);
    const std::string warning = LargeRunWarning(scenario, EstimateWork(scenario));
    if (!warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
    for (const std::string& w : ClientOverloadWarnings(scenario))
      std::fprintf(stderr, "%s\n", w.c_str());
    if (!trace_size.empty()) std::fprintf(stderr, "%s\n", trace_size.c_str());
  }
  const RunBudget& budget = request.budget;
  options.max_events = budget.max_events > 0 ? budget.max_events : UINT64_MAX;
  bool out_of_wall_time = false;
  bool too_many_pending = false;
  const World* running = nullptr;  // set once the world exists, before it runs
  options.keep_going = [&] {
    if (PendingInterrupt() != 0) return false;
    if (budget.max_pending_calls > 0 && running &&
        running->call_slots() > budget.max_pending_calls) {
      too_many_pending = true;
      return false;
    }
    if (budget.max_wall_seconds > 0 && WallSeconds(wall_start) > budget.max_wall_seconds) {
      out_of_wall_time = true;
      return false;
    }
    return true;
  };
  const std::size_t progress_slot = !request.progress ? 0
                                    : request.progress_slot
                                        ? *request.progress_slot
                                        : request.progress->Plan(scenario.duration);
  if (request.progress) {
    options.progress = [&](apf::Nanos now) {
      request.progress->Advance(progress_slot, now);
      return true;
    };
  }
  if (std::any_of(scenario.events.begin(), scenario.events.end(),
                  [](const ScenarioEvent& e) { return e.changes_flow_control(); })) {
    options.event_configs = &flow_control.event_configs;
  }
  World world(scenario, &flow_control.config, options, &report);
  report.set_world(&world);
  running = &world;
  const StopReason stop = world.Run();
  if (request.progress && (stop == StopReason::kEndTime || stop == StopReason::kQueueEmpty)) {
    request.progress->Finish(progress_slot);
  }
  // Stopping early leaves `report` uncommitted: its files are removed as it goes out of
  // scope, so an interrupted run leaves nothing half-written.
  if (stop == StopReason::kEventBudget) {
    ThrowBudgetExceeded(scenario, world, fmt::format("--max-events={}", budget.max_events),
                        WallSeconds(wall_start));
  }
  if (stop == StopReason::kStopRequested && too_many_pending) {
    ThrowTooManyPending(scenario, world, budget.max_pending_calls, WallSeconds(wall_start));
  }
  if (stop == StopReason::kStopRequested && out_of_wall_time) {
    ThrowBudgetExceeded(scenario, world,
                        fmt::format("--max-wall-time={}s", budget.max_wall_seconds),
                        WallSeconds(wall_start));
  }
  if (stop == StopReason::kStopRequested && PendingInterrupt() != 0) {
    const int signal_number = PendingInterrupt();
    throw RunInterrupted(
        signal_number,
        fmt::format("{}: interrupted by {} {}; no output of this run was written", scenario.name,
                    SignalName(signal_number), HowFar(scenario, world, WallSeconds(wall_start))));
  }
  report.set_provenance(RunProvenance(request, resolved, world.InputSha256s()));
  report.Commit();
  outcome.summary = report.Summary();
  outcome.scenario_name = scenario.name;
  outcome.expectations = EvaluateExpectations(scenario.expectations, outcome.summary, &windows);
  outcome.table = RunReport::SummaryTable(outcome.summary, !request.quiet && ColourWanted(1));
  return outcome;
}

}  // namespace sim
