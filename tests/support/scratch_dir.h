// A scratch folder of its own for a test or a fuzz input: made with mkdtemp under the
// temporary folder (so concurrent runs never share a name) and removed with everything in
// it when the object goes. It needs no test framework, so the fuzz targets use it too
// (tests/fuzz/fuzz_support.h); tests reach it through tests/support/test_support.h.
#ifndef TESTS_SUPPORT_SCRATCH_DIR_H_
#define TESTS_SUPPORT_SCRATCH_DIR_H_

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace test_support {

class ScratchDir {
 public:
  // A new folder named PREFIX-XXXXXX (six random characters) in the temporary folder.
  explicit ScratchDir(const std::string& prefix) {
    std::string name = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(name.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + name);
    }
    path_ = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // A path inside the folder, as a string (what most callers pass on).
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace test_support

#endif  // TESTS_SUPPORT_SCRATCH_DIR_H_
