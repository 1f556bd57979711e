#include "sim/io/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace sim {

std::string FormatByteSize(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string WhyUnreadable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return errno == ENOENT ? "no such file" : std::strerror(errno);
  }
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  std::ifstream probe(path, std::ios::binary);
  if (!probe) return std::strerror(errno ? errno : EACCES);
  return "";
}

namespace {

std::string TooLarge(std::uint64_t limit) {
  return "larger than " + FormatByteSize(limit) +
         ", the most apfsim reads of such a file (is this the right file?)";
}

}  // namespace

std::string ReadInputFile(const std::string& path, std::uint64_t limit) {
  if (std::string why = WhyUnreadable(path); !why.empty()) {
    throw InputError({path, 0, 0}, "", "cannot read the file: " + why);
  }
  // A regular file's size is known before reading it.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_size) > limit) {
    throw InputError({path, 0, 0}, "", TooLarge(limit));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot read the file");
  return ReadInputStream(in, path, limit);
}

std::string ReadInputStream(std::istream& in, const std::string& source_name, std::uint64_t limit) {
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const std::streamsize got = in.gcount();
    if (got <= 0) break;
    if (text.size() + static_cast<std::uint64_t>(got) > limit) {
      throw InputError({source_name, 0, 0}, "", TooLarge(limit));
    }
    text.append(chunk, static_cast<std::size_t>(got));
  }
  return text;
}

bool ReadInputLine(std::istream& in, std::string& line, const SourceLocation& where,
                   std::size_t limit) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  if (!in.good() || !buffer) {
    in.setstate(std::ios::failbit);
    return false;
  }
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      // As std::getline: a last line without '\n' is a line; nothing at all is the end.
      in.setstate(line.empty() ? std::ios::eofbit | std::ios::failbit : std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
    if (line.size() > limit) {
      throw InputError(where, "",
                       "line " + std::to_string(where.line) + " is longer than " +
                           FormatByteSize(limit) +
                           ", the most apfsim reads of one line (is this a text file?)");
    }
  }
}

std::string_view WithoutByteOrderMark(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

}  // namespace sim
