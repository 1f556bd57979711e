#include "apf/classification/flow_hash.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>

namespace apf {
namespace {

std::uint64_t FirstEightBytesLittleEndian(const unsigned char* digest) {
  std::uint64_t h = 0;
  for (int i = 7; i >= 0; --i) h = (h << 8) | digest[i];
  return h;
}

}  // namespace

std::uint64_t HashFlowID(std::string_view flow_schema_name, std::string_view distinguisher) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  const size_t n = flow_schema_name.size() + 1 + distinguisher.size();
  unsigned char stack_buffer[512];
  std::string heap_buffer;
  unsigned char* buffer = stack_buffer;
  if (n > sizeof(stack_buffer)) {
    heap_buffer.resize(n);
    buffer = reinterpret_cast<unsigned char*>(heap_buffer.data());
  }
  // memcpy from an empty view's null data pointer is undefined, even for 0 bytes.
  if (!flow_schema_name.empty())
    std::memcpy(buffer, flow_schema_name.data(), flow_schema_name.size());
  buffer[flow_schema_name.size()] = 0;
  if (!distinguisher.empty()) {
    std::memcpy(buffer + flow_schema_name.size() + 1, distinguisher.data(), distinguisher.size());
  }
  SHA256(buffer, n, digest);
  return FirstEightBytesLittleEndian(digest);
}

FlowHasher::FlowHasher()
    : ctx_(EVP_MD_CTX_new()), sha256_(EVP_MD_fetch(nullptr, "SHA256", nullptr)) {
  if (!ctx_ || !sha256_) throw std::runtime_error("libcrypto has no SHA-256");
}

FlowHasher::~FlowHasher() {
  EVP_MD_free(sha256_);
  EVP_MD_CTX_free(ctx_);
}

std::uint64_t FlowHasher::Hash(std::string_view flow_schema_name, std::string_view distinguisher) {
  static const unsigned char kZero = 0;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  int ok = EVP_DigestInit_ex2(ctx_, sha256_, nullptr);
  ok = ok && EVP_DigestUpdate(ctx_, flow_schema_name.data(), flow_schema_name.size());
  ok = ok && EVP_DigestUpdate(ctx_, &kZero, 1);
  ok = ok && EVP_DigestUpdate(ctx_, distinguisher.data(), distinguisher.size());
  ok = ok && EVP_DigestFinal_ex(ctx_, digest, &len);
  assert(ok && len == 32);
  (void)ok;
  return FirstEightBytesLittleEndian(digest);
}

}  // namespace apf
