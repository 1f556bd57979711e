// Helpers shared by tests that write files or run programs: a scratch folder removed at
// the end of the test (ScratchDir, tests/support/scratch_dir.h: the one way a test gets a
// place to write), reading a whole file, and running a shell command (apfsim itself, or a
// script) with its output captured.
#ifndef TESTS_TEST_SUPPORT_H_
#define TESTS_TEST_SUPPORT_H_

#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "tests/support/scratch_dir.h"

namespace test_support {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `text` as one single-quoted word of /bin/sh.
inline std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally (a signal)
  std::string out;     // standard output
  std::string err;     // standard error
  std::string Output() const { return out + err; }
};

// Runs `command` with /bin/sh, its standard output and error captured through the files
// command.out and command.err in `log_dir` (which must exist), its standard input
// `stdin_file` ("" for /dev/null). Asserts nothing, so threads may run commands at once
// (each with its own `log_dir`).
inline CommandResult RunShellCommand(const std::string& command,
                                     const std::filesystem::path& log_dir,
                                     const std::string& stdin_file = "") {
  const std::filesystem::path out = log_dir / "command.out", err = log_dir / "command.err";
  const std::string line = "(" + command + ") < " +
                           ShellQuote(stdin_file.empty() ? "/dev/null" : stdin_file) + " > " +
                           ShellQuote(out.string()) + " 2> " + ShellQuote(err.string());
  const int status = std::system(line.c_str());
  CommandResult r;
  r.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// `apfsim ARGS`, ARGS as the shell reads them (quote paths with ShellQuote).
inline CommandResult RunApfsim(const std::string& args, const std::filesystem::path& log_dir,
                               const std::string& stdin_file = "") {
  return RunShellCommand(ShellQuote(APFSIM_BINARY) + " " + args, log_dir, stdin_file);
}

}  // namespace test_support

#endif  // TESTS_TEST_SUPPORT_H_
