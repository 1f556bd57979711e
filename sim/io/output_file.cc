#include "sim/io/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/io/input_error.h"

namespace sim {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw InputError({path, 0, 0}, "", "cannot write output: " + what);
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string shown_as)
    : path_(std::move(path)), shown_(shown_as.empty() ? path_ : std::move(shown_as)) {
  temp_path_ = path_ + ".tmp-" + std::to_string(::getpid());
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) Fail(shown_, std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

void OutputFile::Write(std::string_view text) {
  if (failed_ || text.empty()) return;
  // A full disk shows here as soon as the buffer is flushed: stop the run at once rather
  // than simulate hours whose results cannot be kept.
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    failed_ = true;
    Fail(shown_, std::strerror(errno ? errno : EIO));
  }
}

void OutputFile::Commit() {
  const bool flushed = std::fflush(file_) == 0 && !std::ferror(file_) && !failed_;
  const int saved_errno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(temp_path_.c_str());
    Fail(shown_, std::strerror(saved_errno ? saved_errno : EIO));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(temp_path_.c_str());
    Fail(shown_, std::strerror(e));
  }
}

void WriteOutputFile(const std::string& path, std::string_view text) {
  OutputFile file(path);
  file.Write(text);
  file.Commit();
}

void MakeOutputDirectory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) Fail(path, ec.message());
}

}  // namespace sim
