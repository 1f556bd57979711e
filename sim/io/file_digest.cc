#include "sim/io/file_digest.h"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

#include "sim/io/input_error.h"

namespace sim {
namespace {

struct ContextFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

std::string Hex(const unsigned char* digest, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kDigits[digest[i] >> 4]);
    out.push_back(kDigits[digest[i] & 0xf]);
  }
  return out;
}

}  // namespace

struct Sha256Stream::Context {
  std::unique_ptr<EVP_MD_CTX, ContextFree> ctx{EVP_MD_CTX_new()};
};

Sha256Stream::Sha256Stream() : context_(std::make_unique<Context>()) {
  EVP_DigestInit_ex(context_->ctx.get(), EVP_sha256(), nullptr);
}

Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::Update(const char* bytes, std::size_t size) {
  if (size > 0) EVP_DigestUpdate(context_->ctx.get(), bytes, size);
}

std::string Sha256Stream::FinishHex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(context_->ctx.get(), digest.data(), &size);
  return Hex(digest.data(), size);
}

std::string Sha256Hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return Hex(digest.data(), size);
}

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot read the file to take its SHA-256");
  Sha256Stream sha;
  std::array<char, 1 << 16> buffer;
  while (in) {
    in.read(buffer.data(), buffer.size());
    sha.Update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError({path, 0, 0}, "", "read error while taking its SHA-256");
  return sha.FinishHex();
}

}  // namespace sim
