// Reading a CSV trace (sim/scenario/trace_replay.h): 200,000 rows of the trace-replay case's
// mix (bench/make_trace_case.py describes it; this file writes a trace of the same columns
// and repetition with its own counter, so the benchmark needs no Python), read as the world
// reads them.
//
//   apfsim_bench --benchmark_filter=TraceRead
//
// TraceRead/shaped: every row split, checked and given a shape, its request written only
// for the first row of a shape (the world's cache hit); TraceRead/every-request: each row's
// request written as well, as an audit-log row or a cache miss costs; TraceRead/sha256: the
// shaped read with the file's SHA-256 taken on the way, as a run's provenance takes it.
// items_per_second is rows per second. The whole process under callgrind, provenance
// included, is doc/performance.md's "Trace replay" table.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unordered_set>

#include "sim/scenario/trace_replay.h"

namespace {

constexpr int kRows = 200000;

// A file removed when the process ends.
struct TempFile {
  std::string path;
  ~TempFile() { std::filesystem::remove(path); }
};

// The trace, written once per process: times 1 ms apart, the verbs, namespaces and names
// of the case drawn from a seeded 64-bit LCG.
const std::string& TraceFile() {
  static const TempFile trace{[] {
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("apfsim-trace-bench-" + std::to_string(getpid()) + ".csv"))
                                 .string();
    std::ofstream out(file);
    out << "time,client,verb,apiGroup,resource,namespace,name,query,serviceTime\n";
    std::uint64_t state = 36;
    for (int i = 0; i < kRows; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const std::uint64_t draw = state >> 33;
      const int ms = i % 1000;
      out << i / 1000 << "." << (ms < 100 ? "0" : "") << (ms < 10 ? "0" : "") << ms << ",,";
      const std::string ns = "ns-" + std::to_string(draw % 50);
      switch ((draw >> 8) % 5) {
        case 0:
        case 1:
          out << "get,,configmaps," << ns << ",cm-" << (draw >> 16) % 400 << ",,\n";
          break;
        case 2:
          out << "list,,pods," << ns << ",,limit=500&resourceVersion=0,\n";
          break;
        case 3:
          out << "update,,configmaps," << ns << ",cm-" << (draw >> 16) % 400 << ",,0.005\n";
          break;
        default:
          out << "patch,,pods/status," << ns << ",pod-" << (draw >> 16) % 100 << ",,\n";
      }
    }
    return file;
  }()};
  return trace.path;
}

void ReadTrace(benchmark::State& state, bool every_request, sim::LineReader::Digest digest) {
  std::int64_t rows = 0;
  for (auto _ : state) {
    sim::CsvTraceReader reader(TraceFile(), "operator", 0, digest);
    std::unordered_set<std::string> shapes;
    sim::ReplayRow row;
    while (reader.Next(&row)) {
      if (every_request || shapes.emplace(row.shape).second) reader.FillRequest(&row);
      benchmark::DoNotOptimize(row.at);
      ++rows;
    }
    if (digest == sim::LineReader::Digest::kSha256) benchmark::DoNotOptimize(reader.FinishSha256());
  }
  state.SetItemsProcessed(rows);
}

void BM_TraceReadShaped(benchmark::State& state) {
  ReadTrace(state, false, sim::LineReader::Digest::kNone);
}
BENCHMARK(BM_TraceReadShaped)->Name("TraceRead/shaped")->Unit(benchmark::kMillisecond);

void BM_TraceReadEveryRequest(benchmark::State& state) {
  ReadTrace(state, true, sim::LineReader::Digest::kNone);
}
BENCHMARK(BM_TraceReadEveryRequest)->Name("TraceRead/every-request")->Unit(benchmark::kMillisecond);

void BM_TraceReadSha256(benchmark::State& state) {
  ReadTrace(state, false, sim::LineReader::Digest::kSha256);
}
BENCHMARK(BM_TraceReadSha256)->Name("TraceRead/sha256")->Unit(benchmark::kMillisecond);

}  // namespace
