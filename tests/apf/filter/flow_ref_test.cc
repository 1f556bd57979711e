// A caller's FlowRef (apf/filter/flow_control.h StartHints::flow) lets a request skip the lookup of
// its flow by distinguisher; it must never change the answer. The flow hash a request gets
// is hashFlowID(FlowSchema name, distinguisher) (doc/model.md#flow-hash,
// apf/classification/flow_hash.h) with or without the note, after the filter's table of flows was
// rebuilt (the note's slot may then hold another flow) and when one user's requests go to two
// ByUser FlowSchemas.
#include <catch2/catch.hpp>
#include <string>

#include "apf/classification/flow_hash.h"
#include "apf/classification/user_info.h"
#include "apf/filter/flow_control.h"
#include "sim/flowcontrol/loader.h"
#include "tests/support/request_support.h"

namespace {

struct NoListener : apf::FlowControlListener {
  void OnDispatched(apf::Nanos, std::uint64_t) override {}
};

struct Filter {
  sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, sim::FlowControlManifests{});
  NoListener listener;
  apf::FlowControl fc{0, apf::FlowControlOptions{}, &setup.config, nullptr, &listener};
  std::uint64_t next_id = 1;

  apf::Admission Start(const apf::UserInfo& user, const apf::RequestInfo& request,
                       apf::FlowRef* ref) {
    apf::StartHints hints;
    hints.flow = ref;
    return fc.Start(0, next_id++, user, request, std::nullopt, hints);
  }
  std::string SchemaOf(const apf::Admission& a) const {
    return setup.config.flow_schemas[a.flow_schema].metadata.name;
  }
};

}  // namespace

TEST_CASE("a flow note gives the flow's own hash, before and after the table is rebuilt",
          "[flow_control][flow_ref]") {
  Filter f;
  const apf::UserInfo bob = apf::AuthenticatedUser("bob");
  const apf::RequestInfo get = test_support::ResourceRequest("get", "", "configmaps", "app-1");
  apf::FlowRef ref;
  const apf::Admission first = f.Start(bob, get, &ref);
  REQUIRE(f.SchemaOf(first) == "global-default");  // ByUser, on a level with queues
  const std::uint64_t want = apf::HashFlowID("global-default", "bob");
  CHECK(first.flow_hash == want);
  REQUIRE(ref.epoch != 0);  // filled in
  CHECK(ref.flow_schema == first.flow_schema);
  const apf::FlowRef filled = ref;
  CHECK(f.Start(bob, get, &ref).flow_hash == want);
  CHECK(ref.epoch == filled.epoch);  // used as it was

  // 1,500 other users' flows: the table of 1,024 slots is rebuilt at 512 and 1,024 flows,
  // and its entries move. The old note must not be trusted.
  for (int u = 0; u < 1500; ++u) {
    const apf::UserInfo other = apf::AuthenticatedUser("user-" + std::to_string(u));
    REQUIRE(f.Start(other, get, nullptr).flow_hash ==
            apf::HashFlowID("global-default", other.name));
  }
  CHECK(f.Start(bob, get, &ref).flow_hash == want);
  CHECK(ref.epoch != filled.epoch);  // renewed
  CHECK(f.Start(bob, get, &ref).flow_hash == want);
}

TEST_CASE("one user's note across two ByUser FlowSchemas", "[flow_control][flow_ref]") {
  Filter f;
  const apf::UserInfo node = apf::AuthenticatedUser("system:node:node-1", {"system:nodes"});
  // The 1.36 defaults send a node's lease updates to system-node-high and its other
  // requests to system-nodes, both ByUser: one user, two flows, one note.
  const apf::RequestInfo lease =
      test_support::ResourceRequest("update", "coordination.k8s.io", "leases", "kube-node-lease");
  const apf::RequestInfo secret = test_support::ResourceRequest("get", "", "secrets", "app-1");
  apf::FlowRef ref;
  for (int round = 0; round < 3; ++round) {
    const apf::Admission a = f.Start(node, lease, &ref);
    REQUIRE(f.SchemaOf(a) == "system-node-high");
    CHECK(a.flow_hash == apf::HashFlowID("system-node-high", node.name));
    const apf::Admission b = f.Start(node, secret, &ref);
    REQUIRE(f.SchemaOf(b) == "system-nodes");
    CHECK(b.flow_hash == apf::HashFlowID("system-nodes", node.name));
  }
}

TEST_CASE("flows whose distinguishers differ in one byte keep their own hashes",
          "[flow_control][flow_ref]") {
  // The lookup compares a found entry's distinguisher with the request's by words for
  // most sizes: every size and every differing position must still tell flows apart.
  Filter f;
  const apf::RequestInfo get = test_support::ResourceRequest("get", "", "configmaps", "app-1");
  for (size_t size = 1; size <= 20; ++size) {
    for (size_t at = 0; at < size; ++at) {
      std::string name(size, 'u');
      name[at] = 'v';
      for (int pass = 0; pass < 2; ++pass) {  // the second pass finds the entry
        const apf::UserInfo user = apf::AuthenticatedUser(name);
        const apf::Admission a = f.Start(user, get, nullptr);
        REQUIRE(f.SchemaOf(a) == "global-default");
        REQUIRE(a.flow_hash == apf::HashFlowID("global-default", name));
      }
    }
  }
}
