// Borrowing in motion (doc/model.md#borrowing, #allocation-solver, #worked-allocation), in the
// manner of Kubernetes' TestBorrowing (k8s.io/apiserver pkg/util/flowcontrol/borrowing_test.go):
// one apiserver's filter (apf::FlowControl) driven in virtual time by closed-loop clients, as the
// Go test drives its controller's Handle from client goroutines.
//
// The Go test's setup, which this one copies: a server concurrency limit of 24; two
// priority levels test-pl0 and test-pl1 of 100 shares each, queuing with 10 queues, hand
// size 2 and queue length limit 10; each reached by a FlowSchema (precedence 100,
// distinguisher ByUser) matching one user's non-resource requests; no other objects, so
// the mandatory exempt and catch-all are imagined. 24 client threads on test-pl0 and 6 on
// test-pl1 each call Handle in a loop with an exec that sleeps 250 ms and whose work
// estimate is one seat. After 10 s the executing-request integrators are reset; 15 s later
// their averages must be in [15.5, 16.1] and [5.5, 6.1].
//
// Why those numbers (doc/model.md#max-seats, #worked-allocation): the shares sum to 100 + 100 + 5
// (catch-all) + 0 (exempt) = 205, so each test level's nominal limit is ceil(24 * 100 / 205) = 12
// and catch-all's is ceil(24 * 5 / 205) = 1; the seats re-divided are the sum of the nominal
// limits, 25. The busy level (demand about 22 to 24 seats) may rise to at most 16:
//   - lendable-limited: test-pl1 lends at most round(12 * 33%) = 4 (it keeps 8, more than its
//     demand of 6), and test-pl0 may borrow round(12 * 67%) = 8: 12 + 4 = 16;
//   - borrowing-limited: test-pl0 may borrow only round(12 * 33%) = 4: 12 + 4 = 16, while
//     test-pl1 could lend 8.
// The quiet level's 6 clients always execute (its limit never drops below 6), so it
// averages 6.
#include <array>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apf/allocation/concurrency_allocator.h"
#include "apf/classification/request_info.h"
#include "apf/classification/user_info.h"
#include "apf/config/defaults.h"
#include "apf/config/flow_control_config.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/filter/flow_control.h"
#include "sim/engine/engine.h"

namespace {

using apf::kMillisecond;
using apf::kSecond;
using apf::Nanos;

struct LevelConstraints {
  int lendable_percent;
  int borrowing_limit_percent;
};

apf::FlowControlObjects BorrowingTestObjects(const std::array<LevelConstraints, 2>& constraints) {
  apf::FlowControlObjects objects;
  for (int flow = 0; flow < 2; ++flow) {
    const std::string level_name = "test-pl" + std::to_string(flow);
    apf::PriorityLevelConfiguration pl;
    pl.metadata.name = level_name;
    pl.spec.type = apf::kPriorityLevelTypeLimited;
    apf::LimitedPriorityLevelConfiguration limited;
    limited.nominal_concurrency_shares = 100;
    limited.lendable_percent = constraints[flow].lendable_percent;
    limited.borrowing_limit_percent = constraints[flow].borrowing_limit_percent;
    limited.limit_response.type = apf::kLimitResponseQueue;
    limited.limit_response.queuing =
        apf::QueuingConfiguration{.queues = 10, .hand_size = 2, .queue_length_limit = 10};
    pl.spec.limited = limited;
    apf::SetPriorityLevelConfigurationDefaults(pl);
    objects.priority_levels.push_back(pl);

    apf::FlowSchema fs;
    fs.metadata.name = "test-fs" + std::to_string(flow);
    fs.spec.priority_level_name = level_name;
    fs.spec.matching_precedence = 100;
    fs.spec.distinguisher_method = apf::FlowDistinguisherMethod{"ByUser"};
    apf::PolicyRulesWithSubjects rule;
    apf::Subject subject;
    subject.kind = "User";
    subject.user = apf::UserSubject{"test-user" + std::to_string(flow)};
    rule.subjects.push_back(subject);
    rule.non_resource_rules.push_back(apf::NonResourcePolicyRule{{"*"}, {"*"}});
    fs.spec.rules.push_back(rule);
    apf::SetFlowSchemaDefaults(fs);
    objects.flow_schemas.push_back(fs);
  }
  return objects;
}

class NoObjects final : public apf::ObjectStatsSource {
 public:
  apf::ObjectStatsResult GetStats(std::string_view, std::string_view, Nanos) const override {
    return {};
  }
};

// The Go test's harness in virtual time. Each client is one closed loop: call, execute
// 250 ms when dispatched, call again at once. A rejected call is retried after
// kRetryAfterReject: the Go thread loops back into Handle at once (wait.Until with period
// 0), which in virtual time needs some positive delay to make progress.
class BorrowingHarness final : public sim::EventHandler, public apf::FlowControlListener {
 public:
  static constexpr Nanos kExecution = 250 * kMillisecond;
  static constexpr Nanos kRetryAfterReject = 1 * kMillisecond;

  explicit BorrowingHarness(const apf::FlowControlConfig* config)
      : engine_(this), filter_(0, Options(), config, &no_objects_, this) {
    for (int flow = 0; flow < 2; ++flow) {
      users_[flow].name = "test-user" + std::to_string(flow);
      users_[flow].groups = {"system:authenticated"};
      for (int i = 0; i < kClientsPerFlow[flow]; ++i) {
        clients_.push_back(Client{flow, {}});
      }
    }
    request_ = apf::NewRequestInfo("GET", "/foobar", "");
  }

  // Runs `warm_up`, then measures for `measured`; returns each flow's average number of
  // executing requests over the measured span.
  std::array<double, 2> Run(Nanos warm_up, Nanos measured) {
    for (std::uint64_t c = 0; c < clients_.size(); ++c) engine_.At(0, {kCall, 0, c});
    // The controller's wait.Until runs the adjustment at once, then every 10 s.
    engine_.At(0, {kAdjust, 0, 0});
    engine_.Run({.end_time = warm_up});
    for (Integral& i : integrals_) i = Integral{i.executing, warm_up, 0};
    engine_.Run({.end_time = warm_up + measured});
    std::array<double, 2> averages{};
    for (int flow = 0; flow < 2; ++flow) {
      Advance(flow, engine_.now());
      averages[flow] =
          static_cast<double>(integrals_[flow].executing_ns) / static_cast<double>(measured);
    }
    return averages;
  }

  int current_cl(const std::string& level) const {
    return static_cast<int>(filter_.allocator()->Find(level)->current_cl);
  }

 private:
  static constexpr std::array<int, 2> kClientsPerFlow = {24, 6};
  enum Kind : std::uint32_t { kCall, kFinish, kAdjust };

  struct Client {
    int flow;
    apf::FlowHandle handle;
  };
  struct Integral {
    int executing = 0;
    Nanos since = 0;
    Nanos executing_ns = 0;  // integral of `executing` over time, in request-nanoseconds
  };

  static apf::FlowControlOptions Options() {
    apf::FlowControlOptions options;
    options.max_requests_inflight = 24;  // ServerConcurrencyLimit: 24 + 0
    options.max_mutating_requests_inflight = 0;
    return options;
  }

  void Advance(int flow, Nanos now) {
    Integral& i = integrals_[flow];
    i.executing_ns += i.executing * (now - i.since);
    i.since = now;
  }

  void BeginExecution(Nanos now, std::uint64_t client) {
    const int flow = clients_[client].flow;
    Advance(flow, now);
    ++integrals_[flow].executing;
    engine_.At(now + kExecution, {kFinish, 0, client});
  }

  void OnDispatched(Nanos now, std::uint64_t id) override { BeginExecution(now, id); }

  void HandleEvent(Nanos now, const sim::Event& event) override {
    const std::uint64_t client = event.arg64;
    switch (event.kind) {
      case kCall: {
        Client& c = clients_[client];
        const apf::Admission a = filter_.Start(now, client, users_[c.flow], request_, std::nullopt);
        c.handle = a.handle;
        switch (a.outcome) {
          case apf::Admission::Outcome::kExecuting:
            BeginExecution(now, client);
            break;
          case apf::Admission::Outcome::kWaiting:
            break;  // waits are far below 15 s here
          case apf::Admission::Outcome::kRejected:
            engine_.At(now + kRetryAfterReject, {kCall, 0, client});
            break;
          case apf::Admission::Outcome::kBypass:
            FAIL("GET /foobar is subject to APF");
            break;
        }
        break;
      }
      case kFinish: {
        Client& c = clients_[client];
        Advance(c.flow, now);
        --integrals_[c.flow].executing;
        const Nanos release = filter_.Finish(now, c.handle);
        REQUIRE(release == now);  // one seat, no final seats
        engine_.At(now, {kCall, 0, client});
        break;
      }
      case kAdjust:
        filter_.Adjust(now);
        engine_.At(now + apf::kBorrowingAdjustmentPeriod, {kAdjust, 0, 0});
        break;
    }
  }

  sim::Engine engine_;
  NoObjects no_objects_;
  apf::FlowControl filter_;
  std::array<apf::UserInfo, 2> users_;
  apf::RequestInfo request_;
  std::vector<Client> clients_;
  std::array<Integral, 2> integrals_{};
};

void CheckBorrowing(const std::array<LevelConstraints, 2>& constraints) {
  const apf::FlowControlConfig config = apf::DigestConfig(BorrowingTestObjects(constraints));
  REQUIRE(config.priority_levels.size() == 4);  // test-pl0, test-pl1, exempt, catch-all
  BorrowingHarness harness(&config);
  const std::array<double, 2> average = harness.Run(10 * kSecond, 15 * kSecond);
  INFO("test-pl0 average " << average[0] << ", test-pl1 average " << average[1]);
  CHECK(harness.current_cl("test-pl0") == 16);
  CHECK(average[0] >= 15.5);
  CHECK(average[0] <= 16.1);
  CHECK(average[1] >= 5.5);
  CHECK(average[1] <= 6.1);
}

}  // namespace

TEST_CASE("Borrowing in motion: lendable-limited, the busy level executes about 16 seats",
          "[borrowing]") {
  CheckBorrowing({LevelConstraints{50, 67}, LevelConstraints{33, 50}});
}

TEST_CASE("Borrowing in motion: borrowing-limited, the busy level executes about 16 seats",
          "[borrowing]") {
  CheckBorrowing({LevelConstraints{50, 33}, LevelConstraints{67, 50}});
}
