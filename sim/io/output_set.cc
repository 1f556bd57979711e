#include "sim/io/output_set.h"

#include <unistd.h>

#include <algorithm>
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
  if (fs::is_directory(final_, ec)) {
    // Carry over what is not ours to replace (named first: renaming while iterating a
    // folder is unspecified).
    std::vector<std::string> keep;
    for (const auto& entry : fs::directory_iterator(final_, ec)) {
      const std::string name = entry.path().filename().string();
      if (std::find(owned_.begin(), owned_.end(), name) != owned_.end()) continue;
      if (!fs::exists(fs::path(staging_) / name)) keep.push_back(name);
    }
    for (const std::string& name : keep) {
      fs::rename(fs::path(final_) / name, fs::path(staging_) / name, ec);
      if (ec) Fail(final_, "cannot keep " + name + ": " + ec.message());
    }
    fs::remove_all(old, ec);
    fs::rename(final_, old, ec);
    if (ec) Fail(final_, ec.message());
  }
  fs::rename(staging_, final_, ec);
  if (ec) {
    std::error_code undo;
    fs::rename(old, final_, undo);
    Fail(final_, ec.message());
  }
  committed_ = true;
  fs::remove_all(old, ec);
}

}  // namespace sim
