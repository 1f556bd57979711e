#include "sim/report/plot_tool.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace sim {
namespace {

namespace fs = std::filesystem;

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Where the drawing tools are, first match: $APFSIM_TOOLS; tools/ beside the binary (an
// unpacked archive or an image's /opt/apfsim); tools/ one level up (a build directory in
// the source tree); share/apfsim/tools of the install prefix (`cmake --install`, the
// binary in PREFIX/bin); ./tools.
std::string ToolsDir() {
  if (const char* env = std::getenv("APFSIM_TOOLS"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = exe.parent_path();
    for (const fs::path& candidate : {dir / "tools", dir.parent_path() / "tools",
                                      dir.parent_path() / "share" / "apfsim" / "tools"}) {
      if (fs::exists(candidate / "find-python.sh", ec)) return candidate.string();
    }
  }
  return "tools";
}

}  // namespace

bool RunPlotTool(const std::string& script, const std::vector<std::string>& args,
                 std::string* why) {
  const std::string tools = ToolsDir();
  if (!fs::exists(fs::path(tools) / script)) {
    *why = "tools/" + script + " not found (set APFSIM_TOOLS to the tools directory)";
    return false;
  }
  std::string python;
  {
    FILE* pipe = ::popen((ShellQuote(tools + "/find-python.sh") + " 2>/dev/null").c_str(), "r");
    if (pipe) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, pipe)) python += buf;
      ::pclose(pipe);
    }
    while (!python.empty() && (python.back() == '\n' || python.back() == '\r')) python.pop_back();
  }
  if (python.empty()) {
    *why = "no Python 3 with matplotlib (install python3-matplotlib or set APFSIM_PYTHON)";
    return false;
  }
  std::string command = fmt::format("{} {}", ShellQuote(python), ShellQuote(tools + "/" + script));
  for (const std::string& a : args) command += fmt::format(" {}", ShellQuote(a));
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = "tools/" + script + " failed";
    return false;
  }
  return true;
}

}  // namespace sim
