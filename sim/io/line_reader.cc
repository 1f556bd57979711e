#include "sim/io/line_reader.h"

#include <algorithm>
#include <cstring>

#include "sim/io/input_file.h"

namespace sim {
namespace {

// Large enough that a read costs nothing per row (a trace row is about 60 bytes), small
// enough to stay in the second-level cache while its rows are split.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

}  // namespace

LineReader::LineReader(std::string path, Digest digest, std::string_view what)
    : path_(std::move(path)) {
  if (std::string why = WhyUnreadable(path_); !why.empty()) {
    throw InputError({path_, 0, 0}, "", "cannot read the " + std::string(what) + ": " + why);
  }
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_) throw InputError({path_, 0, 0}, "", "cannot read the " + std::string(what));
  if (digest == Digest::kSha256) sha_.emplace();
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
}

bool LineReader::Fill() {
  if (at_end_) return false;
  if (begin_ > 0) {  // keep the unread bytes, at the front
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ - end_ < kBlockBytes) {  // a line longer than a block: grow (Next bounds it)
    const std::size_t grown = std::max(end_ + kBlockBytes, 2 * capacity_);
    auto bigger = std::make_unique<char[]>(grown);
    if (end_ > 0) std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  const std::size_t got = std::fread(buffer_.get() + end_, 1, capacity_ - end_, file_);
  if (got == 0) {
    if (std::ferror(file_)) throw InputError({path_, lines_ + 1, 1}, "", "read error");
    at_end_ = true;
    return false;
  }
  if (sha_) sha_->Update(buffer_.get() + end_, got);
  end_ += got;
  return true;
}

bool LineReader::Next(std::string_view* line) {
  for (;;) {
    const char* start = buffer_.get() + begin_;
    const std::size_t unread = end_ - begin_;
    const void* newline =
        unread > scanned_ ? std::memchr(start + scanned_, '\n', unread - scanned_) : nullptr;
    const std::size_t length =
        newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - start) : unread;
    if (length > kMaxInputLineBytes) {
      throw InputError({path_, lines_ + 1, 1}, "",
                       "line " + std::to_string(lines_ + 1) + " is longer than " +
                           FormatByteSize(kMaxInputLineBytes) +
                           ", the most apfsim reads of one line (is this a text file?)");
    }
    if (newline || (at_end_ && unread > 0)) {
      *line = std::string_view(start, length);
      begin_ += newline ? length + 1 : length;
      scanned_ = 0;
      ++lines_;
      return true;
    }
    scanned_ = unread;
    if (!Fill()) {
      if (end_ == begin_) return false;  // at_end_ now: the last line has no '\n'
    }
  }
}

std::string LineReader::FinishSha256() {
  begin_ = end_ = scanned_ = 0;
  while (Fill()) begin_ = end_ = 0;
  return sha_ ? sha_->FinishHex() : std::string();
}

}  // namespace sim
