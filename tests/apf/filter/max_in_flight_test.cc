// The MaxInFlight filter used when APF is off (doc/model.md#max-in-flight, seed 002):
// maxinflight.go.
#include "apf/filter/max_in_flight.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "apf/classification/long_running.h"
#include "apf/classification/request_info.h"

using Decision = apf::MaxInFlightFilter::Decision;

namespace {

const std::vector<std::string> kNoGroups = {"system:authenticated"};
const std::vector<std::string> kMasters = {"system:authenticated", "system:masters"};

apf::MaxInFlightFilter::Outcome Send(apf::MaxInFlightFilter& filter, const apf::RequestInfo& r,
                                     const std::vector<std::string>& groups = kNoGroups) {
  return filter.Admit(r, apf::IsLongRunningRequest(r), groups);
}

}  // namespace

TEST_CASE("A watch flood does not take read-only slots", "[maxinflight][seed002]") {
  apf::MaxInFlightFilter filter(400, 200);  // the defaults
  auto watch = apf::NewRequestInfo("GET", "/api/v1/pods", "watch=true");
  for (int i = 0; i < 10000; ++i) CHECK(Send(filter, watch).decision == Decision::kServedUntracked);
  CHECK(filter.in_flight(apf::InFlightKind::kReadOnly) == 0);
  // All 400 read slots are still there for lists.
  auto list = apf::NewRequestInfo("GET", "/api/v1/namespaces/a/pods", "");
  for (int i = 0; i < 400; ++i) REQUIRE(Send(filter, list).decision == Decision::kServed);
  CHECK(Send(filter, list).decision == Decision::kRejected);
}

TEST_CASE("Mutating and read-only requests have separate pools, with no queue",
          "[maxinflight][seed002]") {
  // Seed 002's event storm fills the 200 mutating slots; reads still get theirs.
  apf::MaxInFlightFilter filter(400, 200);
  auto event = apf::NewRequestInfo("POST", "/api/v1/namespaces/a/events", "");
  for (int i = 0; i < 200; ++i) REQUIRE(Send(filter, event).decision == Decision::kServed);
  auto rejected = Send(filter, event);
  CHECK(rejected.decision == Decision::kRejected);
  CHECK(rejected.kind == apf::InFlightKind::kMutating);
  CHECK(apf::MaxInFlightFilter::kRetryAfterSeconds == 1);  // the 429's constant Retry-After
  CHECK(Send(filter, apf::NewRequestInfo("GET", "/api/v1/pods", "")).decision == Decision::kServed);
  // A release frees a slot for the next try.
  filter.Release(apf::InFlightKind::kMutating);
  CHECK(Send(filter, event).decision == Decision::kServed);
  // Non-resource POSTs are mutating; a non-resource GET is read-only.
  CHECK(apf::InFlightKindOf(apf::NewRequestInfo("POST", "/apis/x/y", "")) ==
        apf::InFlightKind::kMutating);
  CHECK(apf::InFlightKindOf(apf::NewRequestInfo("GET", "/healthz", "")) ==
        apf::InFlightKind::kReadOnly);
}

TEST_CASE("system:masters is served when the pool is full, without a slot", "[maxinflight]") {
  apf::MaxInFlightFilter filter(1, 1);
  auto get = apf::NewRequestInfo("GET", "/api/v1/namespaces/a/pods/p", "");
  CHECK(Send(filter, get, kMasters).decision == Decision::kServed);  // takes a slot while free
  CHECK(Send(filter, get).decision == Decision::kRejected);
  CHECK(Send(filter, get, kMasters).decision == Decision::kServedPrivileged);
  CHECK(filter.in_flight(apf::InFlightKind::kReadOnly) == 1);
}

TEST_CASE("A zero limit leaves its class unlimited, both zero remove the filter", "[maxinflight]") {
  auto post = apf::NewRequestInfo("POST", "/api/v1/namespaces/a/configmaps", "");
  auto get = apf::NewRequestInfo("GET", "/api/v1/namespaces/a/configmaps", "");
  // maxinflight.go: a limit of 0 makes a nil channel, and the handler is called
  // directly. The requests are still counted: the simulator's pool reports
  // what it serves, 50 in flight here, without Go's watermark seeing them.
  apf::MaxInFlightFilter reads_only(1, 0);
  for (int i = 0; i < 50; ++i) CHECK(Send(reads_only, post).decision == Decision::kServedUnlimited);
  CHECK(reads_only.in_flight(apf::InFlightKind::kMutating) == 50);
  CHECK(reads_only.TakeWatermark(apf::InFlightKind::kMutating) == 0);
  CHECK(Send(reads_only, get).decision == Decision::kServed);
  CHECK(Send(reads_only, get).decision == Decision::kRejected);
  reads_only.Release(apf::InFlightKind::kMutating);
  CHECK(reads_only.in_flight(apf::InFlightKind::kMutating) == 49);
  CHECK(reads_only.TakeWatermark(apf::InFlightKind::kMutating) == 0);
  apf::MaxInFlightFilter none(0, 0);
  CHECK(Send(none, get).decision == Decision::kServedUnlimited);
  CHECK(none.in_flight(apf::InFlightKind::kReadOnly) == 1);
  // A watch is long-running: it bypasses the filter and is not counted.
  CHECK(Send(none, apf::NewRequestInfo("GET", "/api/v1/pods", "watch=true")).decision ==
        Decision::kServedUntracked);
  CHECK(none.in_flight(apf::InFlightKind::kReadOnly) == 1);
}

TEST_CASE("The in-flight watermark is the per-period maximum", "[maxinflight]") {
  apf::MaxInFlightFilter filter(10, 10);
  auto get = apf::NewRequestInfo("GET", "/api/v1/pods", "");
  for (int i = 0; i < 3; ++i) Send(filter, get);
  filter.Release(apf::InFlightKind::kReadOnly);
  CHECK(filter.TakeWatermark(apf::InFlightKind::kReadOnly) == 3);
  CHECK(filter.TakeWatermark(apf::InFlightKind::kReadOnly) == 0);  // reset each period
  filter.Release(apf::InFlightKind::kReadOnly);
  CHECK(filter.TakeWatermark(apf::InFlightKind::kReadOnly) == 1);
}
