// SHA-256 of bytes and of files, as lowercase hex (what `sha256sum` prints), for the
// provenance of a run's outputs (summary.json's "provenance": which scenario, manifests,
// traces and logs produced them). SHA-256 comes from OpenSSL's libcrypto, as for the flow
// hash (apf/classification/flow_hash.h). Tested by tests/sim/io/file_digest_test.cc.
#ifndef SIM_IO_FILE_DIGEST_H_
#define SIM_IO_FILE_DIGEST_H_

#include <string>
#include <string_view>

namespace sim {

// 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

// The file's digest; throws InputError naming the file when it cannot be read.
std::string FileSha256(const std::string& path);

}  // namespace sim

#endif  // SIM_IO_FILE_DIGEST_H_
