// The catalogue of bad inputs (tests/bad-inputs/catalogue.yaml, described in
// tests/bad-inputs/README.md): every file there is fed to the built apfsim as a user would,
// and must be refused with the catalogued exit code and a message naming the file, line,
// column and field, quickly (these are rejected before any simulation) and without leaving
// an output file behind.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;
using test_support::ShellQuote;

const fs::path kBadInputs = fs::path(APFSIM_SOURCE_DIR) / "tests" / "bad-inputs";

struct Entry {
  std::string file;               // the input, in tests/bad-inputs/
  std::string command;            // "run", "lint", "model queueset", ...
  std::vector<std::string> args;  // after the file
  bool stdin_input = false;       // the file is standard input rather than an argument
  std::vector<std::string> uses;  // other files of tests/bad-inputs/ it references
  int exit_code = 2;
  std::string message;  // a fragment the output must contain
  std::string at_file;  // where the message must point: FILE:LINE:COLUMN
  int line = -1;        // -1: not given; 0: the message must give none
  int column = 0;       // 0: not given
  std::string field;    // the field path the message must name ("" for none)
  int index = 0;        // in the catalogue, for messages
};

std::vector<Entry> LoadCatalogue() {
  const YAML::Node root = YAML::LoadFile((kBadInputs / "catalogue.yaml").string());
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < root.size(); ++i) {
    const YAML::Node n = root[i];
    Entry e;
    e.index = static_cast<int>(i);
    e.file = n["file"].as<std::string>();
    e.command = n["command"].as<std::string>();
    if (n["args"]) e.args = n["args"].as<std::vector<std::string>>();
    if (n["stdin"]) e.stdin_input = n["stdin"].as<bool>();
    if (n["uses"]) e.uses = n["uses"].as<std::vector<std::string>>();
    e.exit_code = n["exit"].as<int>();
    e.message = n["message"].as<std::string>();
    const YAML::Node at = n["at"];
    e.at_file = at["file"].as<std::string>();
    if (at["line"]) e.line = at["line"].as<int>();
    if (at["column"]) e.column = at["column"].as<int>();
    if (n["field"]) e.field = n["field"].as<std::string>();
    entries.push_back(std::move(e));
  }
  return entries;
}

// "yaml-tab-indent.yaml:7:1: " as FormatInputError writes it; "FILE:" alone when the
// entry gives no line, "FILE: " when it says there is none.
std::string LocationText(const Entry& e) {
  std::string at = e.at_file;
  at += ':';
  if (e.line < 0) return at;
  if (e.line > 0) at += std::to_string(e.line);
  if (e.line > 0 && e.column > 0) at += ':' + std::to_string(e.column);
  if (e.line > 0) at += ':';
  at += ' ';
  return at;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every file left in `dir` (recursively), for the check that a refused input wrote nothing.
// Folders do not count: an input found bad while the run reads it (a trace row) is refused
// after the output folder was made, and an empty folder holds no partial result.
std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_directory()) files.push_back(fs::relative(f.path(), dir).string());
  }
  return files;
}

// One entry's run: the command line, what it printed, and how long it took.
struct EntryRun {
  std::string args;
  test_support::CommandResult result;
  double seconds = 0;
};

// Runs `apfsim COMMAND FILE ARGS` for `e` in the empty folder `work` (where `out/NAME` would
// appear by default), with --out an empty folder below it for the commands that write.
// Safe to call from several threads: it touches only `work` and asserts nothing.
EntryRun RunEntry(const Entry& e, const fs::path& work) {
  EntryRun run;
  const std::string input = (kBadInputs / e.file).string();
  // Appended in pieces: GCC 12 warns falsely (-Wrestrict) on "literal" + temporary.
  std::string& args = run.args;
  args = e.command;
  auto add = [&args](const std::string& word) {
    args += ' ';
    args += ShellQuote(word);
  };
  if (!e.stdin_input) add(input);
  for (const std::string& a : e.args) {
    // An argument naming a file of this folder (an overlay) is given by its full path.
    const bool used = std::find(e.uses.begin(), e.uses.end(), a) != e.uses.end();
    add(used ? (kBadInputs / a).string() : a);
  }
  if (e.command == "run" || e.command == "check" || e.command == "compare") {
    add("--out");
    add((work / "out").string());
  }
  // `timeout` turns a hang into exit 124; 20 s is far beyond what a refusal takes, even
  // with sanitizers. Output is captured beside `work`, not in it.
  std::string command = "cd ";
  command += ShellQuote(work.string());
  command += " && timeout 20 ";
  command += ShellQuote(APFSIM_BINARY);
  command += ' ';
  command += args;
  fs::path log = work;
  log += "-log";
  fs::create_directories(log);
  const auto start = std::chrono::steady_clock::now();
  run.result = test_support::RunShellCommand(command, log, e.stdin_input ? input : "");
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

TEST_CASE(
    "every bad input is refused with its exit code, message, location and field, and "
    "leaves no output",
    "[bad-inputs]") {
  const std::vector<Entry> entries = LoadCatalogue();
  REQUIRE(entries.size() >= 40);
  test_support::ScratchDir scratch("apfsim-bad-inputs");
  std::vector<fs::path> work;
  for (const Entry& e : entries) {
    work.push_back(scratch.path() / ("entry-" + std::to_string(e.index)));
    fs::create_directories(work.back());
  }
  // A refusal costs mostly process start-up (most of a second under AddressSanitizer), so
  // the entries run a few at a time; the checks below run on this thread, as Catch2's
  // assertions must.
  constexpr std::size_t kInFlight = 4;
  std::vector<EntryRun> runs(entries.size());
  for (std::size_t first = 0; first < entries.size(); first += kInFlight) {
    std::vector<std::future<EntryRun>> batch;
    for (std::size_t i = first; i < std::min(first + kInFlight, entries.size()); ++i) {
      batch.push_back(std::async(std::launch::async, RunEntry, std::cref(entries[i]), work[i]));
    }
    for (std::size_t k = 0; k < batch.size(); ++k) runs[first + k] = batch[k].get();
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const test_support::CommandResult& r = runs[i].result;
    const std::string output = r.Output();
    INFO("catalogue entry " << e.index << ": " << e.file << " (apfsim " << runs[i].args
                            << (e.stdin_input ? " < " + e.file : std::string()) << ")\n"
                            << "exit code " << r.exit_code << " in " << runs[i].seconds
                            << " s; it printed:\n"
                            << output);
    CHECK(r.exit_code == e.exit_code);
    CHECK(Contains(output, e.message));
    CHECK(Contains(output, LocationText(e)));
    if (!e.field.empty()) CHECK(Contains(output, " " + e.field + ": "));
    CHECK_FALSE(Contains(output, "internal error"));
    // An input that is valid but suspect (exit 0, a warning) runs and writes its outputs.
    if (e.exit_code != 0) {
      const std::vector<std::string> left = FilesIn(work[i]);
      INFO("files left behind: " << left.size() << (left.empty() ? "" : ", " + left.front()));
      CHECK(left.empty());
    }
  }
}

TEST_CASE("every file in tests/bad-inputs has a catalogue entry", "[bad-inputs]") {
  std::set<std::string> catalogued;
  for (const Entry& e : LoadCatalogue()) {
    catalogued.insert(e.file);
    catalogued.insert(e.uses.begin(), e.uses.end());
  }
  for (const auto& f : fs::directory_iterator(kBadInputs)) {
    const std::string name = f.path().filename().string();
    if (name == "catalogue.yaml" || name == "README.md") continue;
    INFO(name << " is in tests/bad-inputs but no catalogue entry runs or uses it");
    CHECK(catalogued.count(name) == 1);
  }
  for (const std::string& name : catalogued) {
    INFO("the catalogue names " << name << ", which is not in tests/bad-inputs");
    CHECK(fs::exists(kBadInputs / name));
  }
}
