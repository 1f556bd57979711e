// A file read line by line through large blocks, for the readers of files that may be long
// (CSV traces and audit logs): a line is a view into the block, so a row costs no copy and
// no allocation, and every byte read can feed the file's SHA-256 on the way, so that the
// run's provenance needs no second pass over the file (sim/workflows/provenance.h).
//
// Lines are std::getline's: split at '\n' (a CR before it stays in the line), a last line
// without '\n' is a line, and an empty file has none. A line longer than
// kMaxInputLineBytes throws the InputError that ReadInputLine throws
// (sim/io/input_file.h), so /dev/zero named as a trace is refused, not read until memory
// runs out. Tested by tests/sim/io/line_reader_test.cc.
#ifndef SIM_IO_LINE_READER_H_
#define SIM_IO_LINE_READER_H_

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sim/io/file_digest.h"

namespace sim {

class LineReader {
 public:
  enum class Digest { kNone, kSha256 };

  // Opens `path`; when it cannot, throws an InputError at it: "cannot read the WHAT: "
  // and WhyUnreadable's reason.
  LineReader(std::string path, Digest digest, std::string_view what = "file");
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n', in `line`: valid until the next call. False at the
  // end of the file.
  bool Next(std::string_view* line);

  // Lines returned so far: the number of the last one.
  int lines() const { return lines_; }
  const std::string& path() const { return path_; }

  // The whole file's SHA-256 in hex (Digest::kSha256 only): what was read, and the rest of
  // the file, read now. The reader is spent: Next returns false from here on.
  std::string FinishSha256();

 private:
  // Reads the next block after the unread bytes; false at the end of the file.
  bool Fill();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // the unread bytes are [begin_, end_)
  std::size_t end_ = 0;
  std::size_t scanned_ = 0;  // unread bytes known to hold no '\n'
  bool at_end_ = false;
  int lines_ = 0;
  std::optional<Sha256Stream> sha_;
};

}  // namespace sim

#endif  // SIM_IO_LINE_READER_H_
