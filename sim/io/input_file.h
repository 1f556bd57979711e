// Reading the files a user names (scenarios, manifests, overlays, metrics scrapes, CSV
// traces, audit logs, sweep parts, JSON on standard input) with bounds, so that a wrong
// path (/dev/zero, a folder, a disk image) is refused at once with the limit named instead
// of being read into memory until the machine runs out. Whole-file readers stop at
// kMaxInputFileBytes; line readers (traces and audit logs, which may be large) stop at a
// line longer than kMaxInputLineBytes.
//
// Tested by tests/sim/io/input_file_test.cc and the `size-*`, `path-*` and `bom-*` cases of
// tests/bad-inputs/.
#ifndef SIM_IO_INPUT_FILE_H_
#define SIM_IO_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "sim/io/input_error.h"

namespace sim {

// Far beyond any scenario, manifest, overlay or metrics scrape (the largest in scenarios/
// is a few kilobytes; a scrape of a big cluster a few megabytes).
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{64} << 20;
// Far beyond any CSV trace row and any audit event (a RequestResponse event of a large
// LIST carries the response: a few megabytes).
inline constexpr std::size_t kMaxInputLineBytes = std::size_t{16} << 20;

// "" when `path` names a file that can be opened for reading; otherwise why not: "no such
// file", "is a directory, not a file", or the system's reason.
std::string WhyUnreadable(const std::string& path);

// The whole of the file `path`, at most `limit` bytes. A folder, a missing or unreadable
// file, or one longer than `limit` (a device such as /dev/zero included: only limit + 1
// bytes are read) throws an InputError at `path` that says which.
std::string ReadInputFile(const std::string& path, std::uint64_t limit = kMaxInputFileBytes);

// The whole of `in` (standard input), at most `limit` bytes; more throws an InputError
// at `source_name`.
std::string ReadInputStream(std::istream& in, const std::string& source_name,
                            std::uint64_t limit = kMaxInputFileBytes);

// std::getline with a bound: reads the next line of `in` into `line` (without its '\n')
// and returns false at the end of the input, setting the stream's eofbit as getline does.
// A line longer than `limit` throws an InputError at `where` (its file and line number).
bool ReadInputLine(std::istream& in, std::string& line, const SourceLocation& where,
                   std::size_t limit = kMaxInputLineBytes);

// Drops a UTF-8 byte-order mark at the start of `text` (editors on Windows write one; the
// readers of YAML, JSON, CSV and Prometheus text all accept it).
std::string_view WithoutByteOrderMark(std::string_view text);

// "64 MiB", "16 MiB", "512 KiB", "100 bytes": a limit as messages name it.
std::string FormatByteSize(std::uint64_t bytes);

}  // namespace sim

#endif  // SIM_IO_INPUT_FILE_H_
