// The flow hash (doc/model.md#flow-hash): the vectors of doc/model.md appendix A, and the one-shot
// and reusable hashers agreeing with each other.
#include "apf/classification/flow_hash.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/engine/random.h"

TEST_CASE("flow hashes match doc/model.md appendix A", "[flow_hash]") {
  // Appendix A: hashFlowID(fsName, distinguisher) in decimal.
  CHECK(apf::HashFlowID("global-default", "alice") == 17644606172554983095ULL);
  CHECK(apf::HashFlowID("service-accounts", "system:serviceaccount:default:loadtest") ==
        18245108773366159178ULL);
  CHECK(apf::HashFlowID("kube-controller-manager", "") == 14257900033262264633ULL);
  // The same, in the appendix's hex column.
  CHECK(apf::HashFlowID("global-default", "alice") == 0xf4de3bd42ccdf6b7ULL);
  CHECK(apf::HashFlowID("kube-controller-manager", "") == 0xc5de3c89e5a0a139ULL);

  apf::FlowHasher hasher;
  CHECK(hasher.Hash("global-default", "alice") == 17644606172554983095ULL);
  CHECK(hasher.Hash("service-accounts", "system:serviceaccount:default:loadtest") ==
        18245108773366159178ULL);
  CHECK(hasher.Hash("kube-controller-manager", "") == 14257900033262264633ULL);
}

TEST_CASE("the zero byte separates name and distinguisher", "[flow_hash]") {
  // "ab"+"c" and "a"+"bc" concatenate to the same bytes without the separator.
  CHECK(apf::HashFlowID("ab", "c") != apf::HashFlowID("a", "bc"));
}

TEST_CASE("one-shot and reusable hashers agree, long inputs included", "[flow_hash][property]") {
  sim::Random rng(7, "flow-hash");
  apf::FlowHasher hasher;
  for (int i = 0; i < 500; ++i) {
    // Lengths up to 1500 cross the one-shot hasher's 512-byte stack buffer.
    std::string name(rng.UniformInt(61), 'x');
    std::string dist(rng.UniformInt(1501), 'y');
    for (char& c : name) c = static_cast<char>('a' + rng.UniformInt(26));
    for (char& c : dist) c = static_cast<char>(rng.UniformInt(256));
    REQUIRE(apf::HashFlowID(name, dist) == hasher.Hash(name, dist));
  }
}
