#include "sim/io/output_set.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "sim/io/input_error.h"

namespace sim {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw InputError({path, 0, 0}, "", "cannot write output: " + what);
}

// "out/run" for "out/run/" and "out/run/.": the folder itself, so that a sibling can be
// made beside it.
std::string Normalised(const std::string& dir) {
  std::string d = fs::path(dir).lexically_normal().string();
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d.empty() ? "." : d;
}

// Removes what a killed run left beside `final_dir`: FINAL.tmp-PID and FINAL.old-PID of a
// process that no longer exists (SIGKILL runs no destructor). A live process's folders are
// left alone: another run into the same folder may be writing them.
void RemoveLeftovers(const std::string& final_dir) {
  const fs::path final_path(final_dir);
  const fs::path parent = final_path.parent_path().empty() ? "." : final_path.parent_path();
  const std::string stem = final_path.filename().string();
  std::error_code ec;
  std::vector<fs::path> dead;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    for (const char* kind : {".tmp-", ".old-"}) {
      const std::string prefix = stem + kind;
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string digits = name.substr(prefix.size());
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        continue;
      const pid_t pid = static_cast<pid_t>(std::stol(digits));
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) dead.push_back(entry.path());
    }
  }
  for (const fs::path& p : dead) fs::remove_all(p, ec);
}

bool Owned(const std::vector<std::string>& owned, const std::string& name) {
  return std::any_of(owned.begin(), owned.end(), [&](const std::string& o) {
    if (!o.empty() && o.back() == '*')
      return name.compare(0, o.size() - 1, o, 0, o.size() - 1) == 0;
    return o == name;
  });
}

}  // namespace

OutputSet::OutputSet(std::string final_dir, std::vector<std::string> owned_names)
    : final_(Normalised(final_dir)), owned_(std::move(owned_names)) {
  if (final_ == "." || final_ == ".." || final_ == "/") {
    Fail(final_dir, "give an output folder of its own (a run replaces its folder whole)");
  }
  std::error_code ec;
  if (fs::exists(final_, ec) && !fs::is_directory(final_, ec)) {
    Fail(final_, "it exists and is not a folder");
  }
  const fs::path parent = fs::path(final_).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) Fail(final_, ec.message());
  }
  RemoveLeftovers(final_);
  staging_ = final_ + ".tmp-" + std::to_string(::getpid());
  fs::remove_all(staging_, ec);  // a leftover of a process of the same id that was killed
  fs::create_directory(staging_, ec);
  if (ec) Fail(final_, ec.message());
}

OutputSet::~OutputSet() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void OutputSet::Commit() {
  std::error_code ec;
  const std::string old = final_ + ".old-" + std::to_string(::getpid());
  // Another run committing into the same folder at the same instant can move it away or put
  // its own set in place between two of the steps below. Then the steps are taken again:
  // the set committed last is the one that stays, whole, and neither run fails for it.
  constexpr int kCommitAttempts = 100;
  const auto raced = [](const std::error_code& e) {
    return e == std::errc::no_such_file_or_directory || e == std::errc::directory_not_empty ||
           e == std::errc::file_exists;
  };
  for (int attempt = 1;; ++attempt) {
    const bool again = attempt < kCommitAttempts;
    if (fs::is_directory(final_, ec)) {
      // Carry over what is not ours to replace (named first: renaming while iterating a
      // folder is unspecified).
      std::vector<std::string> keep;
      for (const auto& entry : fs::directory_iterator(final_, ec)) {
        const std::string name = entry.path().filename().string();
        if (Owned(owned_, name)) continue;
        if (!fs::exists(fs::path(staging_) / name)) keep.push_back(name);
      }
      bool moved = true;
      for (const std::string& name : keep) {
        fs::rename(fs::path(final_) / name, fs::path(staging_) / name, ec);
        if (ec && raced(ec) && again) {
          moved = false;
          break;
        }
        if (ec) Fail(final_, "cannot keep " + name + ": " + ec.message());
      }
      if (!moved) continue;
      fs::remove_all(old, ec);
      fs::rename(final_, old, ec);
      if (ec && raced(ec) && again) continue;
      if (ec) Fail(final_, ec.message());
    }
    fs::rename(staging_, final_, ec);
    if (!ec) break;
    if (raced(ec) && again) continue;
    std::error_code undo;
    fs::rename(old, final_, undo);
    Fail(final_, ec.message());
  }
  committed_ = true;
  fs::remove_all(old, ec);
}

}  // namespace sim
