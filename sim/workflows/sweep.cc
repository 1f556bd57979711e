#include "sim/workflows/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "sim/io/csv.h"
#include "sim/io/file_digest.h"
#include "sim/io/input_error.h"
#include "sim/io/output_file.h"
#include "sim/io/output_set.h"
#include "sim/io/text.h"
#include "sim/report/replications.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/provenance.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "sim/workflows/run_inputs.h"
#include "sim/workflows/sweep_table.h"
#include "sim/workflows/worker_pool.h"

namespace sim {
namespace {

[[noreturn]] void Fail(const std::string& flag, const std::string& text, const std::string& why) {
  throw InputError({flag, 0, 0}, text, why);
}

// A decimal number as an integer count of 10^-decimals, so that a range's steps add up
// exactly ("0.1..0.3:0.1" gives 0.3, which repeated floating-point addition misses).
struct Decimal {
  std::int64_t units = 0;
  int decimals = 0;
};

std::optional<Decimal> ParseDecimal(const std::string& text) {
  Decimal d;
  std::string digits;
  bool negative = false, point = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '-' && i == 0) {
      negative = true;
    } else if (ch == '.' && !point) {
      point = true;
    } else if (ch >= '0' && ch <= '9') {
      digits += ch;
      if (point) ++d.decimals;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty() || digits.size() > 15) return std::nullopt;
  std::from_chars(digits.data(), digits.data() + digits.size(), d.units);
  if (negative) d.units = -d.units;
  return d;
}

std::int64_t Scaled(const Decimal& d, int decimals) {
  std::int64_t v = d.units;
  for (int i = d.decimals; i < decimals; ++i) v *= 10;
  return v;
}

std::string FormatDecimal(std::int64_t units, int decimals) {
  if (decimals == 0) return std::to_string(units);
  std::int64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const std::int64_t magnitude = units < 0 ? -units : units;
  return fmt::format("{}{}.{:0{}}", units < 0 ? "-" : "", magnitude / scale, magnitude % scale,
                     decimals);
}

constexpr std::size_t kMaxAxisValues = 100000;

std::vector<std::string> ParseRange(const std::string& list) {
  const std::size_t dots = list.find("..");
  const std::size_t colon = list.find(':', dots);
  if (colon == std::string::npos) {
    Fail("--vary", list, "a range is FROM..TO:STEP, e.g. 50..200:25");
  }
  const auto from = ParseDecimal(list.substr(0, dots));
  const auto to = ParseDecimal(list.substr(dots + 2, colon - dots - 2));
  const auto step = ParseDecimal(list.substr(colon + 1));
  if (!from || !to || !step) {
    Fail("--vary", list, "a range's FROM, TO and STEP are decimal numbers, e.g. 50..200:25");
  }
  const int decimals = std::max({from->decimals, to->decimals, step->decimals});
  const std::int64_t a = Scaled(*from, decimals), b = Scaled(*to, decimals),
                     s = Scaled(*step, decimals);
  if (s <= 0) Fail("--vary", list, "the STEP must be positive");
  if (b < a) Fail("--vary", list, "TO is below FROM");
  if (static_cast<std::uint64_t>((b - a) / s) >= kMaxAxisValues) {
    Fail("--vary", list, fmt::format("more than {} values", kMaxAxisValues));
  }
  std::vector<std::string> values;
  for (std::int64_t v = a; v <= b; v += s) values.push_back(FormatDecimal(v, decimals));
  return values;
}

std::string CsvCell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The figures of a level and of a client that sweep.csv has, as (column suffix, JSON
// pointer into the summary's entry).
const std::vector<std::pair<const char*, const char*>>& LevelColumns() {
  static const std::vector<std::pair<const char*, const char*>> kColumns = {
      {"nominal_cl", "/nominalCL"},
      {"dispatched", "/dispatched"},
      {"rejected_queue_full", "/rejected/queue-full"},
      {"rejected_time_out", "/rejected/time-out"},
      {"rejected_concurrency_limit", "/rejected/concurrency-limit"},
      {"wait_p50_s", "/waitSeconds/p50"},
      {"wait_p99_s", "/waitSeconds/p99"},
      {"wait_max_s", "/waitSeconds/max"},
      {"peak_executing_seats", "/peakExecutingSeats"}};
  return kColumns;
}

const std::vector<std::pair<const char*, const char*>>& ClientColumns() {
  static const std::vector<std::pair<const char*, const char*>> kColumns = {
      {"calls", "/calls"},
      {"attempts", "/attempts"},
      {"succeeded", "/succeeded"},
      {"failed", "/failed"},
      {"http429", "/http429"},
      {"latency_p50_s", "/latencySeconds/p50"},
      {"latency_p99_s", "/latencySeconds/p99"},
      {"latency_max_s", "/latencySeconds/max"}};
  return kColumns;
}

std::string PartFileName(const SweepShard& shard) {
  return fmt::format("sweep.part-{}-of-{}.csv", shard.index, shard.count);
}

std::string PartFirstLine(const SweepShard& shard, std::size_t grid_size) {
  return fmt::format("# apfsim sweep part {}/{} of {} grid points\n", shard.index, shard.count,
                     grid_size);
}

}  // namespace

std::vector<std::string> ParseSweepValues(const std::string& list) {
  if (list.empty()) Fail("--vary", list, "no values: give a,b,c or FROM..TO:STEP");
  if (list.find("..") != std::string::npos) return ParseRange(list);
  std::vector<std::string> values = Split(list, ',');
  for (const std::string& v : values) {
    if (v.empty()) Fail("--vary", list, "an empty value in the list");
  }
  return values;
}

SweepAxis ParseSweepAxis(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    Fail("--vary", text, "expected PATH=LIST, e.g. apiservers.replicas=1,2,3");
  }
  SweepAxis axis;
  axis.path = text.substr(0, eq);
  axis.values = ParseSweepValues(text.substr(eq + 1));
  return axis;
}

void CheckSweepGridSize(const std::vector<SweepAxis>& axes) {
  // The product is taken step by step so that it cannot overflow before it is compared.
  std::size_t points = 1;
  std::vector<std::string> sizes;
  for (const SweepAxis& axis : axes) {
    sizes.push_back(std::to_string(axis.values.size()));
    if (axis.values.size() > kMaxSweepGridPoints / points) {
      points = kMaxSweepGridPoints + 1;
    } else {
      points *= axis.values.size();
    }
  }
  if (points > kMaxSweepGridPoints) {
    Fail("--vary", fmt::format("{}", fmt::join(sizes, " x ")),
         fmt::format("the grid has more than {} points (each a run); vary fewer values, or "
                     "split the sweep into several",
                     kMaxSweepGridPoints));
  }
}

std::vector<std::vector<std::string>> SweepGrid(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> grid = {{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::string>> next;
    next.reserve(grid.size() * axis.values.size());
    for (const auto& point : grid) {
      for (const std::string& v : axis.values) {
        next.push_back(point);
        next.back().push_back(v);
      }
    }
    grid = std::move(next);
  }
  return grid;
}

SweepShard ParseSweepShard(const std::string& text) {
  const std::size_t slash = text.find('/');
  SweepShard shard;
  auto number = [&](std::string_view s, int* out) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
  };
  if (slash == std::string::npos ||
      !number(std::string_view(text).substr(0, slash), &shard.index) ||
      !number(std::string_view(text).substr(slash + 1), &shard.count)) {
    Fail("--shard", text, "expected I/N, e.g. 0/4 (I counts from 0, as JOB_COMPLETION_INDEX)");
  }
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    Fail("--shard", text, "I must be at least 0 and below N");
  }
  // More shards than the largest grid would only add empty parts.
  if (static_cast<std::size_t>(shard.count) > kMaxSweepGridPoints) {
    Fail("--shard", text, fmt::format("N must be at most {}", kMaxSweepGridPoints));
  }
  return shard;
}

namespace {

// The cells of one figure over the seeds' runs of a point: the value itself for one run
// (sweep.csv without --seeds), or the mean and the 95% interval.
void FigureCells(const std::vector<const nlohmann::json*>& entries, const char* pointer,
                 bool over_seeds, std::vector<std::string>* row) {
  std::vector<nlohmann::json> values;
  for (const nlohmann::json* e : entries) {
    values.push_back(e ? e->value(nlohmann::json::json_pointer(pointer), nlohmann::json())
                       : nlohmann::json());
  }
  if (!over_seeds) {
    row->push_back(CsvCell(values[0]));
    return;
  }
  const nlohmann::json st = StatisticsJson(values);
  if (st.is_null()) {
    row->insert(row->end(), {"", "", ""});
    return;
  }
  row->push_back(CsvCell(st["mean"]));
  row->push_back(CsvCell(st["ci95"][0]));
  row->push_back(CsvCell(st["ci95"][1]));
}

std::string Csv(const std::vector<SweepAxis>& axes,
                const std::vector<std::vector<std::string>>& grid,
                const std::vector<std::size_t>& indices,
                const std::vector<std::vector<nlohmann::json>>& runs, bool with_index,
                bool over_seeds) {
  // Columns: every level and client any run has, by name (a --set cannot add one, so all
  // runs normally have the same).
  std::set<std::string> levels, clients;
  for (const auto& point : runs) {
    for (const nlohmann::json& s : point) {
      for (auto& [name, unused] : s.at("priorityLevels").items()) levels.insert(name);
      for (auto& [name, unused] : s.at("clients").items()) clients.insert(name);
    }
  }
  auto add_columns = [&](std::vector<std::string>* header, const std::string& prefix) {
    if (!over_seeds) {
      header->push_back(prefix);
      return;
    }
    for (const char* suffix : {"_mean", "_ci95_lo", "_ci95_hi"}) header->push_back(prefix + suffix);
  };
  std::string out;
  std::vector<std::string> header;
  if (with_index) header.push_back("grid_index");
  for (const SweepAxis& a : axes) header.push_back(a.path);
  for (const std::string& l : levels) {
    for (const auto& [column, unused] : LevelColumns())
      add_columns(&header, "level." + l + "." + column);
  }
  for (const std::string& c : clients) {
    for (const auto& [column, unused] : ClientColumns())
      add_columns(&header, "client." + c + "." + column);
  }
  out += CsvRecord(header) + "\n";
  for (std::size_t k = 0; k < indices.size(); ++k) {
    std::vector<std::string> row;
    if (with_index) row.push_back(std::to_string(indices[k]));
    for (const std::string& v : grid[indices[k]]) row.push_back(v);
    auto entries_of = [&](const char* section, const std::string& name) {
      std::vector<const nlohmann::json*> entries;
      for (const nlohmann::json& s : runs[k]) {
        entries.push_back(s[section].contains(name) ? &s[section][name] : nullptr);
      }
      return entries;
    };
    for (const std::string& l : levels) {
      const auto entries = entries_of("priorityLevels", l);
      for (const auto& [unused, pointer] : LevelColumns()) {
        FigureCells(entries, pointer, over_seeds, &row);
      }
    }
    for (const std::string& c : clients) {
      const auto entries = entries_of("clients", c);
      for (const auto& [unused, pointer] : ClientColumns()) {
        FigureCells(entries, pointer, over_seeds, &row);
      }
    }
    out += CsvRecord(row) + "\n";
  }
  return out;
}

}  // namespace

std::string SweepCsv(const std::vector<SweepAxis>& axes,
                     const std::vector<std::vector<std::string>>& grid,
                     const std::vector<std::size_t>& indices,
                     const std::vector<nlohmann::json>& summaries, bool with_index) {
  std::vector<std::vector<nlohmann::json>> runs;
  for (const nlohmann::json& s : summaries) runs.push_back(std::vector<nlohmann::json>(1, s));
  return Csv(axes, grid, indices, runs, with_index, false);
}

std::string SweepCsvOverSeeds(const std::vector<SweepAxis>& axes,
                              const std::vector<std::vector<std::string>>& grid,
                              const std::vector<std::size_t>& indices,
                              const std::vector<std::vector<nlohmann::json>>& runs,
                              bool with_index) {
  return Csv(axes, grid, indices, runs, with_index, true);
}

SweepOutcome RunSweep(const SweepRequest& request) {
  if (request.axes.empty()) Fail("--vary", "", "give at least one --vary PATH=LIST");
  std::set<std::string> paths;
  for (const SweepAxis& a : request.axes) {
    if (!paths.insert(a.path).second) Fail("--vary", a.path, "the path is varied twice");
  }
  CheckSweepGridSize(request.axes);
  const std::vector<std::vector<std::string>> grid = SweepGrid(request.axes);
  const SweepShard shard = request.shard.value_or(SweepShard{});
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (shard.Has(i)) indices.push_back(i);
  }
  auto inputs_of = [&](std::size_t i) {
    RunInputs inputs;
    inputs.scenario_file = request.scenario_file;
    inputs.overrides = request.overrides;
    for (std::size_t a = 0; a < request.axes.size(); ++a) {
      inputs.overrides.push_back(request.axes[a].path + "=" + grid[i][a]);
    }
    inputs.seed = request.seed;
    return inputs;
  };
  // Every point of the whole grid is checked, not only this shard's: a bad value fails
  // every shard alike, before any of them spends time running.
  std::string scenario_name;
  std::vector<apf::Nanos> durations(grid.size());
  std::set<std::string> warnings_shown;  // the points mostly share their warnings
  for (std::size_t i = 0; i < grid.size(); ++i) {
    // Loading a large grid takes a while: a signal stops it as it stops a run.
    if (const int signal_number = PendingInterrupt(); signal_number != 0) {
      throw RunInterrupted(signal_number,
                           fmt::format("sweep interrupted by {} while checking grid point {} of "
                                       "{}; nothing was run or written",
                                       SignalName(signal_number), i, grid.size()));
    }
    const ResolvedRun resolved = ResolveRunInputs(inputs_of(i));
    if (!request.quiet) PrintRunWarnings(resolved, &warnings_shown);
    scenario_name = resolved.scenario.name;
    durations[i] = resolved.scenario.duration;
  }
  ProgressMeter progress(request.progress, request.quiet, "sweep " + scenario_name);
  const std::size_t seed_count = request.seeds.empty() ? 1 : request.seeds.size();
  std::vector<std::size_t> progress_slots;  // one per task: point by point, seed by seed
  for (std::size_t i : indices) {
    for (std::size_t s = 0; s < seed_count; ++s)
      progress_slots.push_back(progress.Plan(durations[i]));
  }

  SweepOutcome outcome;
  outcome.out_dir = request.out_dir.empty() ? "out/" + scenario_name + "-sweep" : request.out_dir;
  // An unsharded sweep's --out is one output set: stopped between two points, it leaves the
  // previous sweep whole. The shards of one grid write into one --out side by side (the
  // Indexed Job of deploy/sweep-job.yaml), so a shard stages each point's folder on its own
  // and its part file last: merge refuses a grid whose parts are not all there.
  std::optional<OutputSet> set;
  if (!request.shard) {
    set.emplace(outcome.out_dir,
                std::vector<std::string>{"runs", "sweep.csv", "sweep.png", "provenance.json"});
  } else {
    MakeOutputDirectory(outcome.out_dir);
  }
  const std::string dir = set ? set->staging_dir() : outcome.out_dir;
  MakeOutputDirectory(dir + "/runs");

  // Task t is point indices[t / seeds] on seed t % seeds; a point is resolved once, by
  // the first of its tasks to start, and let go when its last one ends, so that only the
  // points in flight are held.
  const bool over_seeds = !request.seeds.empty();
  const std::size_t seeds = over_seeds ? request.seeds.size() : 1;
  struct Point {
    std::once_flag once;
    std::unique_ptr<ResolvedRun> resolved;
    std::atomic<std::size_t> remaining{0};
  };
  std::vector<Point> points(indices.size());
  for (Point& p : points) p.remaining = seeds;
  std::vector<std::vector<nlohmann::json>> runs(indices.size(), std::vector<nlohmann::json>(seeds));
  const std::size_t finished = RunTasks(
      indices.size() * seeds, request.jobs,
      [&](std::size_t t) {
        const std::size_t k = t / seeds, s = t % seeds;
        Point& point = points[k];
        RunRequest run;
        static_cast<RunInputs&>(run) = inputs_of(indices[k]);
        std::call_once(point.once, [&] {
          point.resolved = std::make_unique<ResolvedRun>(ResolveRunInputs(run));
        });
        ResolvedRun replication = *point.resolved;
        run.out_dir = fmt::format("{}/runs/{}", dir, indices[k]);
        if (over_seeds) {
          replication.scenario.seed = request.seeds[s];
          run.out_dir = SeedDir(run.out_dir, request.seeds[s]);
        }
        run.quiet = true;
        run.write_timelines = request.timelines;
        run.budget = request.budget;
        if (progress.shown()) {
          run.progress = &progress;
          run.progress_slot = progress_slots[t];
        }
        runs[k][s] = RunScenario(replication, run).summary;
        if (--point.remaining == 0) point.resolved.reset();
      },
      nullptr);
  progress.Clear();
  if (const int signal_number = PendingInterrupt(); signal_number != 0) {
    throw RunInterrupted(signal_number,
                         fmt::format("sweep interrupted by {} after {} of {} runs; no sweep CSV "
                                     "was written",
                                     SignalName(signal_number), finished, indices.size() * seeds));
  }

  outcome.runs = indices.size() * seeds;
  outcome.scenario_name = scenario_name;
  // With --seeds the table shows each figure's mean over the seeds and its interval.
  outcome.table = SweepTable(request.axes, grid, indices, runs);
  if (request.shard) {
    outcome.csv_path = outcome.out_dir + "/" + PartFileName(shard);
    outcome.csv = PartFirstLine(shard, grid.size()) +
                  Csv(request.axes, grid, indices, runs, true, over_seeds);
  } else {
    outcome.csv_path = outcome.out_dir + "/sweep.csv";
    outcome.csv = Csv(request.axes, grid, indices, runs, false, over_seeds);
  }
  WriteOutputFile(dir + outcome.csv_path.substr(outcome.out_dir.size()), outcome.csv);
  // What every point shares (the --set values given to all of them, before the axes), for
  // the plot's title and the reader; each point's own provenance is in its summary.json.
  nlohmann::json vary = nlohmann::json::array();
  for (const SweepAxis& a : request.axes) vary.push_back(a.path);
  const nlohmann::json provenance = {{"apfsimVersion", ApfsimBuildVersion()},
                                     {"scenario", request.scenario_file},
                                     {"scenarioSha256", FileSha256(request.scenario_file)},
                                     {"sets", request.overrides},
                                     {"vary", vary}};
  WriteOutputFile(dir + "/provenance.json", provenance.dump(2) + "\n");
  if (set) set->Commit();
  return outcome;
}

namespace {

// The fields of a CSV line, a comma inside double quotes not counting.
std::size_t CsvFieldCount(std::string_view line) {
  std::size_t fields = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++fields;
  }
  return fields;
}

// Reads "# apfsim sweep part I/N of G grid points" without sscanf, whose %d is undefined
// on a number out of range.
bool ParsePartLine(std::string_view line, int* index, int* n, std::size_t* g) {
  auto take = [&line](std::string_view literal) {
    if (line.substr(0, literal.size()) != literal) return false;
    line.remove_prefix(literal.size());
    return true;
  };
  auto number = [&line](auto* value) {
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), *value);
    if (ec != std::errc() || ptr == line.data()) return false;
    line.remove_prefix(static_cast<std::size_t>(ptr - line.data()));
    return true;
  };
  return take("# apfsim sweep part ") && number(index) && take("/") && number(n) && take(" of ") &&
         number(g) && take(" grid points") && line.empty();
}

}  // namespace

std::string MergeSweepParts(const std::vector<std::string>& texts,
                            const std::vector<std::string>& names) {
  if (texts.empty()) Fail("sweep merge", "", "give the part files to merge");
  std::optional<int> count;
  std::optional<std::size_t> grid_size;
  std::string header, header_from;
  std::set<int> parts_seen;
  std::map<std::size_t, std::string> rows;  // grid index -> row without the index
  for (std::size_t p = 0; p < texts.size(); ++p) {
    const std::string& name = names[p];
    std::istringstream in(texts[p]);
    std::string line;
    std::getline(in, line);
    int index = 0, n = 0;
    std::size_t g = 0;
    if (!ParsePartLine(line, &index, &n, &g)) {
      throw InputError({name, 1, 1}, "",
                       "not a sweep part (the first line of a part written by apfsim sweep "
                       "--shard is \"# apfsim sweep part I/N of G grid points\")");
    }
    // --shard refuses these, so a part that says them was edited; refusing them here also
    // keeps the arithmetic below (grid index modulo N) and the list of missing parts sane.
    if (g < 1 || g > kMaxSweepGridPoints || n < 1 ||
        static_cast<std::size_t>(n) > kMaxSweepGridPoints || index < 0 || index >= n) {
      throw InputError({name, 1, 1}, "",
                       fmt::format("part {0}/{1} of {2} grid points is not a part --shard "
                                   "writes (1 <= G <= {3}, 1 <= N <= {3}, 0 <= I < N)",
                                   index, n, g, kMaxSweepGridPoints));
    }
    if (count && (*count != n || *grid_size != g)) {
      throw InputError({name, 1, 1}, "",
                       fmt::format("part of a different sweep: {} parts of {} grid points, the "
                                   "first part said {} of {}",
                                   n, g, *count, *grid_size));
    }
    count = n;
    grid_size = g;
    if (!parts_seen.insert(index).second) {
      throw InputError({name, 1, 1}, "", fmt::format("part {}/{} is given twice", index, n));
    }
    std::string part_header;
    int line_number = 1;
    ReadCsvRecord(in, &part_header, &line_number);
    const std::string prefix = "grid_index,";
    if (part_header.rfind(prefix, 0) != 0) {
      throw InputError({name, 2, 1}, "", "the header does not start with grid_index");
    }
    part_header = part_header.substr(prefix.size());
    // A part with no rows (more shards than grid points) has no level or client columns.
    if (in.peek() != std::char_traits<char>::eof()) {
      if (header.empty()) {
        header = part_header;
        header_from = name;
      } else if (header != part_header) {
        throw InputError({name, 2, 1}, "", "its columns differ from " + header_from + "'s");
      }
    }
    // A part copied while still being written ends mid-row: its last line has no newline,
    // or fewer fields than the header.
    if (!texts[p].empty() && texts[p].back() != '\n') {
      const int last = static_cast<int>(std::count(texts[p].begin(), texts[p].end(), '\n')) + 1;
      throw InputError({name, last, 1}, "",
                       "the part ends mid-row (its last line has no newline): was it copied "
                       "before apfsim sweep --shard finished?");
    }
    const std::size_t columns = CsvFieldCount(part_header);
    for (;;) {
      const int row_line = line_number + 1;
      if (!ReadCsvRecord(in, &line, &line_number)) break;
      if (CsvFieldCount(line) != columns + 1) {
        throw InputError({name, row_line, 1}, "",
                         fmt::format("a row of {} fields where the header has {}: the part was "
                                     "cut or edited",
                                     CsvFieldCount(line), columns + 1));
      }
      const std::size_t comma = line.find(',');
      std::size_t gi = 0;
      auto [ptr, ec] = std::from_chars(line.data(), line.data() + comma, gi);
      if (comma == std::string::npos || ec != std::errc() || ptr != line.data() + comma ||
          gi >= g || static_cast<int>(gi % static_cast<std::size_t>(n)) != index) {
        throw InputError({name, line_number, 1}, "",
                         fmt::format("a row with a grid index that is not part {}/{}'s", index, n));
      }
      if (!rows.emplace(gi, line.substr(comma + 1)).second) {
        throw InputError({name, line_number, 1}, "", fmt::format("grid index {} twice", gi));
      }
    }
  }
  if (static_cast<int>(parts_seen.size()) != *count) {
    std::vector<std::string> missing;
    std::size_t missing_count = 0;
    for (int i = 0; i < *count; ++i) {
      if (parts_seen.count(i)) continue;
      // Name the first few: a merge given one part of 10,000 needs no list of 9,999.
      if (++missing_count <= 10) missing.push_back(fmt::format("{}/{}", i, *count));
    }
    Fail("sweep merge", "",
         fmt::format("missing parts: {}{}", fmt::join(missing, " "),
                     missing_count > missing.size()
                         ? fmt::format(" and {} more", missing_count - missing.size())
                         : std::string()));
  }
  if (rows.size() != *grid_size) {
    Fail("sweep merge", "",
         fmt::format("the parts hold {} of the {} grid points (a part was cut short?)", rows.size(),
                     *grid_size));
  }
  std::string out = header + "\n";
  for (const auto& [unused, row] : rows) out += row + "\n";
  return out;
}

}  // namespace sim
