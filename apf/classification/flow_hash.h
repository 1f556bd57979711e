// The flow hash: the 64-bit number that picks a flow's hand of queues
// (k8s.io/apiserver pkg/util/flowcontrol/apf_controller.go hashFlowID, doc/model.md#flow-hash):
// the first 8 bytes, read little-endian, of SHA-256(FlowSchema name, a zero byte,
// distinguisher). SHA-256 comes from OpenSSL's libcrypto.
//
// The apiserver hashes only for levels with more than one queue; other levels use 0.
#ifndef APF_CLASSIFICATION_FLOW_HASH_H_
#define APF_CLASSIFICATION_FLOW_HASH_H_

#include <cstdint>
#include <string_view>

// Forward declarations of OpenSSL's opaque types, so that users of this header need not
// include OpenSSL's.
struct evp_md_ctx_st;
struct evp_md_st;

namespace apf {

// One-shot: convenient, and allocation-free for names and distinguishers that fit a
// 512-byte stack buffer; it asks libcrypto for a fresh context each time.
std::uint64_t HashFlowID(std::string_view flow_schema_name, std::string_view distinguisher);

// A reusable hasher for the hot path: holds one digest context, so hashing allocates
// nothing. Not safe for concurrent use; one per thread.
class FlowHasher {
 public:
  FlowHasher();
  ~FlowHasher();
  FlowHasher(const FlowHasher&) = delete;
  FlowHasher& operator=(const FlowHasher&) = delete;

  std::uint64_t Hash(std::string_view flow_schema_name, std::string_view distinguisher);

 private:
  evp_md_ctx_st* ctx_;
  evp_md_st* sha256_;
};

}  // namespace apf

#endif  // APF_CLASSIFICATION_FLOW_HASH_H_
