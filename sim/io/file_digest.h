// SHA-256 of bytes and of files, as lowercase hex (what `sha256sum` prints), for the
// provenance of a run's outputs (summary.json's "provenance": which scenario, manifests,
// traces and logs produced them). SHA-256 comes from OpenSSL's libcrypto, as for the flow
// hash (apf/classification/flow_hash.h). Tested by tests/sim/io/file_digest_test.cc.
#ifndef SIM_IO_FILE_DIGEST_H_
#define SIM_IO_FILE_DIGEST_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace sim {

// A SHA-256 taken over bytes fed in pieces: a reader hashes a file as it reads it, so that
// the provenance of a replayed trace costs no second pass over the file.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void Update(const char* bytes, std::size_t size);
  // The digest of every byte fed, as 64 lowercase hex digits; the stream is spent.
  std::string FinishHex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

// The file's digest; throws InputError naming the file when it cannot be read.
std::string FileSha256(const std::string& path);

}  // namespace sim

#endif  // SIM_IO_FILE_DIGEST_H_
