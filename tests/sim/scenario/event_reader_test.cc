// spec.events (sim/scenario/event_reader.h): each refusal names its line, column and field.
// Lines and columns are counted by hand in the text below (1-based).
#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/scenario/loader.h"

namespace {

// The scenario up to spec.events (lines 1-12); each test adds its events from line 13 on.
const char* const kHead =
    "apiVersion: apfsim/v1alpha1\n"                                             // 1
    "kind: Scenario\n"                                                          // 2
    "metadata: {name: ev}\n"                                                    // 3
    "spec:\n"                                                                   // 4
    "  duration: 10m\n"                                                         // 5
    "  apiservers: {replicas: 2}\n"                                             // 6
    "  resources:\n"                                                            // 7
    "  - {resource: configmaps, objects: 100, namespaces: 1}\n"                 // 8
    "  clients:\n"                                                              // 9
    "  - name: reader\n"                                                        // 10
    "    traffic:\n"                                                            // 11
    "    - constant: {rate: 1, request: {verb: get, resource: configmaps}}\n";  // 12

sim::InputError ErrorOf(const std::string& events, const std::vector<std::string>& sets = {}) {
  try {
    sim::ParseScenarioText(std::string(kHead) + "  events:\n" + events, "ev.yaml", sets);
  } catch (const sim::InputError& e) {
    return e;
  }
  FAIL("no InputError was thrown");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("events: at must lie within the run", "[events]") {
  // Line 14 is the first event; "  - at: " puts the value at column 9.
  sim::InputError e = ErrorOf("  - at: -1s\n    restart: apiserver-0\n");
  CHECK(e.where().line == 14);
  CHECK(e.where().column == 9);
  CHECK(e.field_path() == "spec.events[0].at");
  CHECK(e.message() == "must not be negative: an event before the run changes nothing");
  // 10m is the duration: the run's last instant is before it.
  e = ErrorOf("  - at: 10m\n    restart: apiserver-0\n");
  CHECK(e.message() == "must be within the run's duration (before 10m0s)");
  // --set reaches events like any other field, and the checks hold on the value it sets.
  e = ErrorOf("  - at: 1m\n    restart: apiserver-0\n", {"events.0.at=11m"});
  CHECK(e.field_path() == "spec.events[0].at");
  CHECK(e.message() == "must be within the run's duration (before 10m0s)");
}

TEST_CASE("events: exactly one action", "[events]") {
  sim::InputError e = ErrorOf("  - at: 1m\n    stop: apiserver-0\n    start: apiserver-0\n");
  // The second action (in the order of kActions: stop before start) is named, at line 16.
  CHECK(e.where().line == 16);
  CHECK(e.where().column == 12);
  CHECK(e.field_path() == "spec.events[0].start");
  CHECK(e.message() == "an event has exactly one action; this one also has `stop`");
  e = ErrorOf("  - at: 1m\n    restrat: apiserver-0\n");
  CHECK(e.where().line == 15);
  CHECK(e.field_path() == "spec.events[0].restrat");
  CHECK(e.message().find("unknown field") != std::string::npos);
  CHECK(e.message().find("restart") != std::string::npos);  // did-you-mean
  e = ErrorOf("  - at: 1m\n");
  CHECK(e.where().line == 14);
  CHECK(e.message() == "needs one action: apply, delete, restart, stop, start or resources");
}

TEST_CASE("events: a replica or resource that does not exist", "[events]") {
  // replicas: 2 gives apiserver-0 and apiserver-1.
  sim::InputError e = ErrorOf("  - at: 1m\n    restart: apiserver-2\n");
  CHECK(e.where().line == 15);
  CHECK(e.where().column == 14);
  CHECK(e.field_path() == "spec.events[0].restart");
  CHECK(e.message() == "no replica \"apiserver-2\": the scenario has apiserver-0 .. apiserver-1");
  e = ErrorOf("  - at: 1m\n    resources:\n    - {resource: secrets, objects: 5}\n");
  CHECK(e.where().line == 16);
  CHECK(e.message() == "resource secrets is not in spec.resources: an event replaces one");
}

TEST_CASE("events: a replica's stops and starts must follow one another", "[events]") {
  // Line 14 is the first event, 16 the second; "    stop: " puts the name at column 11,
  // "    start: " at column 12.
  sim::InputError e =
      ErrorOf("  - at: 1m\n    stop: apiserver-1\n  - at: 2m\n    stop: apiserver-1\n");
  CHECK(e.where().line == 17);
  CHECK(e.where().column == 11);
  CHECK(e.field_path() == "spec.events[1].stop");
  CHECK(e.message() == "apiserver-1 is already stopped at 2m0s");
  // Every replica is up at the start.
  e = ErrorOf("  - at: 1m\n    start: apiserver-0\n");
  CHECK(e.where().line == 15);
  CHECK(e.where().column == 12);
  CHECK(e.message() == "apiserver-0 is already up at 1m0s");
  // Two replicas: stopping both leaves no apiserver, which the world does not model.
  e = ErrorOf("  - at: 1m\n    stop: apiserver-0\n  - at: 2m\n    stop: apiserver-1\n");
  CHECK(e.where().line == 17);
  CHECK(e.message() ==
        "stops apiserver-1, the last replica up at 2m0s: the simulator models no cluster "
        "without an apiserver");
  // A restart is down for spec.restartDelay (30 s by default): a stop within it finds the
  // replica down, one after it up again. The events are taken in the order of `at`,
  // whatever their order in the file.
  e = ErrorOf("  - at: 1m20s\n    stop: apiserver-0\n  - at: 1m\n    restart: apiserver-0\n");
  CHECK(e.field_path() == "spec.events[0].stop");
  CHECK(e.message() == "apiserver-0 is already stopped at 1m20s");
  e = ErrorOf("  - at: 1m\n    restart: apiserver-0\n  - at: 1m10s\n    start: apiserver-0\n");
  // A start during the restart's 30 s: then the restart's own start finds it up.
  CHECK(e.message() ==
        "restarts apiserver-0 at 1m30s (after spec.restartDelay), when it is already up");
  // spec.restartDelay must be positive.
  e = ErrorOf("  - at: 1m\n    restart: apiserver-0\n", {"restartDelay=0s"});
  CHECK(e.field_path() == "spec.restartDelay");
  CHECK(e.message() == "must be positive: a restarted apiserver takes time to serve again");
}

TEST_CASE("events: a restart is read as a stop and, restartDelay later, a start", "[events]") {
  std::string head = kHead;
  head.replace(head.find("  - name: reader\n"), 17, "  - name: reader\n    user: r\n");
  sim::Scenario s = sim::ParseScenarioText(
      head + "  events:\n  - at: 2m\n    restart: apiserver-1\n", "ev.yaml", {});
  REQUIRE(s.events.size() == 1);
  CHECK(s.events[0].replica == 1);
  CHECK(s.events[0].changes_replicas());
  CHECK(s.has_replica_events);
  CHECK(s.restart_delay == 30 * apf::kSecond);  // kDefaultRestartDelay
  // Two marks: the stop at 2m and the start 30 s later.
  REQUIRE(s.marks.size() == 2);
  CHECK(s.marks[0].label == "event: restart apiserver-1");
  CHECK(s.marks[1].at == 150 * apf::kSecond);
  CHECK(s.marks[1].label == "event: restart apiserver-1 up");
  // A stop and start of the same replica, then a stop of the other: valid (one is up).
  s = sim::ParseScenarioText(head +
                                 "  restartDelay: 45s\n"
                                 "  events:\n  - at: 1m\n    stop: apiserver-0\n"
                                 "  - at: 2m\n    start: apiserver-0\n"
                                 "  - at: 3m\n    restart: apiserver-1\n"
                                 "  - at: 4m\n    restart: apiserver-0\n",
                             "ev.yaml", {});
  CHECK(s.restart_delay == 45 * apf::kSecond);
  CHECK(s.events.size() == 4);
}

TEST_CASE("events: apply and delete are read and checked at their items", "[events]") {
  // A kind other than the two flow-control kinds, at its value (line 16, "    - {kind: "
  // puts it at column 14), with did-you-mean.
  sim::InputError e = ErrorOf("  - at: 1m\n    delete:\n    - {kind: FlowSchemas, name: x}\n");
  CHECK(e.where().line == 16);
  CHECK(e.where().column == 14);
  CHECK(e.message().rfind("must be FlowSchema or PriorityLevelConfiguration", 0) == 0);
  e = ErrorOf("  - at: 1m\n    delete: []\n");
  CHECK(e.message() == "lists no objects: give {kind: ..., name: ...}");
  // A manifest the apiserver's validation refuses: shares below 0, at the field (line 22).
  e = ErrorOf(
      "  - at: 1m\n"
      "    apply:\n"
      "    - apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
      "      kind: PriorityLevelConfiguration\n"
      "      metadata: {name: p}\n"
      "      spec:\n"
      "        type: Limited\n"
      "        limited:\n"
      "          nominalConcurrencyShares: -1\n"
      "          limitResponse: {type: Reject}\n");
  CHECK(e.where().line == 22);
  CHECK(e.message().find("must be") != std::string::npos);
  // Valid: read into the event, and a mark names the objects.
  // kHead's client has no identity, which only a scenario read to the end refuses.
  std::string head = kHead;
  head.replace(head.find("  - name: reader\n"), 17, "  - name: reader\n    user: r\n");
  const sim::Scenario s =
      sim::ParseScenarioText(head +
                                 "  events:\n"
                                 "  - at: 2m\n"
                                 "    delete:\n"
                                 "    - {kind: PriorityLevelConfiguration, name: workload-low}\n",
                             "ev.yaml", {});
  REQUIRE(s.events.size() == 1);
  CHECK(s.events[0].deletes.size() == 1);
  CHECK(s.events[0].deletes[0].name == "workload-low");
  CHECK(s.events[0].changes_flow_control());
  CHECK(s.marks.back().label == "event: delete workload-low");
}
