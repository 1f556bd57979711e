// The logic of `apfsim lint`: warnings about valid flow-control configurations that do
// not do what their authors probably meant, the failure modes SREs hit (seed 000, seed
// 001's list and kubernetes#115409). Each warning names the object, the field and why,
// and where the object is in the user's files. Checks:
//   dangling         a FlowSchema names a level that does not exist (it is skipped)
//   fence-borrowing  a user level that holds only named clients (a fence) has
//                    borrowingLimitPercent unset, so it may borrow up to the whole server
//                    and does not hold those clients back (seed 000)
//   shadowing        a FlowSchema takes requests a suggested system FlowSchema would have
//                    sent elsewhere, or takes a whole class of clients (a group, every
//                    service account) from service-accounts or global-default to a level
//                    with fewer seats (seed 001's "wrong precedence"); an example request
//                    that moves is shown, with the seats of both levels
//   no-distinguisher a FlowSchema with broad subjects and no distinguisher makes all their
//                    requests one flow, sharing one queue of a queuing level
//   broad-exempt     a FlowSchema sends broad traffic to the exempt level
//   collisions       a level's queues and hand size are small for its flows: the
//                    probability that the heavy flows' hands cover a light flow's whole hand
//   queue-length-unenforced  the level's widest requests cannot fill its seats, so
//                    queueLengthLimit (enforced only when every seat is in use) never is
//   seats-times-hand a level's nominal seats are fewer than its max seats per request
//                    times its hand size, so one flow can hold all of them (#115409)
//   autoupdate       a suggested object is overridden without autoupdate-spec "false": on a
//                    real cluster the apiserver reverts it within a minute
//   v1beta3          an object is written in a version the cluster no longer serves
//   config           other notes of the config producer and the digest
#ifndef SIM_FLOWCONTROL_LINT_H_
#define SIM_FLOWCONTROL_LINT_H_

#include <string>
#include <vector>

#include "sim/flowcontrol/loader.h"
#include "sim/flowcontrol/summary.h"

namespace sim {

struct LintWarning {
  std::string check;        // one of the names above
  std::string object_kind;  // "FlowSchema" or "PriorityLevelConfiguration"
  std::string name;
  std::string field;     // "spec.limited.borrowingLimitPercent"; "" for the whole object
  SourceLocation where;  // in the user's files; empty for objects they did not write
  std::string message;
  // The object is the version's own suggested or mandatory one, spec unchanged: the warning
  // is about Kubernetes' defaults, not the user's edit (informational; `lint --all`).
  bool stock = false;
};

struct LintOptions {
  int server_concurrency_limit = kDefaultServerConcurrencyLimit;
  // Flows assumed for a level whose FlowSchemas do not bound them (broad subjects with a
  // distinguisher): the collision check's "expected number of flows".
  int expected_flows = 10;
  // Heavy flows assumed for the collision check: flows that keep their queues long. A
  // light flow suffers only when the heavy flows' hands cover its whole hand.
  int heavy_flows = 1;
  // Warn when the probability that a light flow's whole hand is covered exceeds this.
  double collision_threshold = 0.05;
};

// `user` are the files' objects (valid); `setup` is BuildFlowControl of them.
std::vector<LintWarning> LintFlowControl(const FlowControlManifests& user,
                                         const FlowControlSetup& setup, const LintOptions& options);

// "file:line:column: warning: FlowSchema x: spec.field: message [check]".
std::string FormatLintWarning(const LintWarning& w);

// The probability that one flow's hand of `hand_size` queues out of `queues` is entirely
// covered by the hands of `other_flows` other flows, each dealt uniformly at random:
// sum_j (-1)^j C(hand, j) (C(queues - j, hand) / C(queues, hand))^other_flows.
double HandCoveredProbability(int queues, int hand_size, int other_flows);

}  // namespace sim

#endif  // SIM_FLOWCONTROL_LINT_H_
