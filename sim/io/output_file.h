// An output file that appears whole or not at all: it is written under a temporary name
// in the same folder and renamed over the final name by Commit(). If the writer is
// destroyed before Commit() (an error, an interrupted run), the temporary file is removed
// and any earlier file of that name is left as it was.
#ifndef SIM_IO_OUTPUT_FILE_H_
#define SIM_IO_OUTPUT_FILE_H_

#include <cstdio>
#include <string>
#include <string_view>

namespace sim {

class OutputFile {
 public:
  // Opens the temporary file; throws OutputError when the folder is not writable.
  // `shown_as` (default: `path`) is the name errors give: a file of an output set being
  // staged (sim/io/output_set.h) is named where it will appear.
  explicit OutputFile(std::string path, std::string shown_as = "");
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Throws InputError as soon as a write fails (a full disk, a file-size limit).
  void Write(std::string_view text);
  // Flushes, checks for write errors (a full disk) and renames into place.
  void Commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string shown_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
};

// Writes `text` to `path` whole or not at all.
void WriteOutputFile(const std::string& path, std::string_view text);

// Creates a folder and its parents; throws OutputError when that fails.
void MakeOutputDirectory(const std::string& path);

}  // namespace sim

#endif  // SIM_IO_OUTPUT_FILE_H_
