// `apfsim model queueset` and `apfsim model dealer`: the replay's event order, its output
// fields, its input checks, and the commands end to end.
#include "sim/model/queueset.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/io/input_error.h"
#include "tests/support/test_support.h"

using nlohmann::json;

namespace {

json Replay(const std::string& text) { return sim::ReplayQueueSetCases(json::parse(text), "test"); }

// Runs the built apfsim with `input` on stdin; returns its exit code and its stdout and
// stderr together.
std::pair<int, std::string> RunApfsim(const std::string& args, const std::string& input) {
  const test_support::ScratchDir scratch("apfsim-model-queueset");
  const std::filesystem::path in = scratch.path() / "in.json";
  std::ofstream(in) << input;
  const std::string command =
      std::string(APFSIM_BINARY) + " " + args + " < " + in.string() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

}  // namespace

TEST_CASE("the queueset replay follows a hand-worked timeline", "[queueset][replay]") {
  // One queue, one seat, queue length 1; times in seconds.
  const json out = Replay(R"([{"queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
                                            "queueLengthLimit": 1},
    "requests": [
      {"id": 1, "arrive": 0, "service": 1},
      {"id": 2, "arrive": 0.5, "service": 1},
      {"id": 3, "arrive": 0.6, "service": 1},
      {"id": 4, "arrive": 2, "service": 0.5, "finalSeats": 1, "additionalLatency": 0.25},
      {"id": 5, "arrive": 2.1, "service": 1, "waitLimit": 0.3},
      {"id": 6, "arrive": 2.5, "service": 1, "waitLimit": 0.25}]}])");
  const json& r = out[0]["results"];
  // 1 runs at once.
  CHECK(r[0] == json::parse(R"({"id": 1, "outcome": "executed", "queue": 0, "dispatchNs": 0,
                                "finishNs": 1000000000, "releaseNs": 1000000000})"));
  // 2 waits for 1's completion.
  CHECK(r[1] == json::parse(R"({"id": 2, "outcome": "executed", "queue": 0,
                                "dispatchNs": 1000000000, "finishNs": 2000000000,
                                "releaseNs": 2000000000})"));
  // 3 finds the seat taken and the queue at its limit of 1.
  CHECK(r[2] == json::parse(R"({"id": 3, "outcome": "rejected", "reason": "queue-full",
                                "queue": -1, "rejectedAtNs": 600000000})"));
  // 4 arrives at 2 s, as 2 completes: arrivals come first, so it queues (length 0 < 1),
  // then 2's completion dispatches it. It holds its seat 0.25 s past its finish.
  CHECK(r[3] == json::parse(R"({"id": 4, "outcome": "executed", "queue": 0,
                                "dispatchNs": 2000000000, "finishNs": 2500000000,
                                "releaseNs": 2750000000})"));
  // 5 waits from 2.1 s behind 4's seat and gives up at 2.4 s.
  CHECK(r[4] == json::parse(R"({"id": 5, "outcome": "rejected", "reason": "time-out",
                                "queue": 0, "rejectedAtNs": 2400000000})"));
  // 6's wait ends at 2.75 s, the instant 4's seat is released: time-outs come before
  // releases, so it times out.
  CHECK(r[5] == json::parse(R"({"id": 6, "outcome": "rejected", "reason": "time-out",
                                "queue": 0, "rejectedAtNs": 2750000000})"));
}

TEST_CASE("replay: a request's arrival comes before its own zero wait limit",
          "[queueset][replay]") {
  const json out = Replay(R"([{"queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
                                            "queueLengthLimit": 5},
    "requests": [{"id": 7, "arrive": 0, "service": 1, "waitLimit": 0},
                 {"id": 8, "arrive": 0, "service": 1, "waitLimit": 0}]}])");
  CHECK(out[0]["results"][0]["outcome"] == "executed");  // dispatched on arrival
  CHECK(out[0]["results"][1]["reason"] == "time-out");   // queued, then its wait ends
  CHECK(out[0]["results"][1]["rejectedAtNs"] == 0);
}

TEST_CASE("replay: Reject-type and Exempt levels", "[queueset][replay]") {
  const json out = Replay(R"([
    {"queueset": {"concurrencyLimit": 1, "queues": 0},
     "requests": [{"id": 1, "arrive": 0, "service": 1}, {"id": 2, "arrive": 0.5, "service": 1}]},
    {"queueset": {"concurrencyLimit": 0, "queues": -1},
     "requests": [{"id": 1, "arrive": 0, "service": 1, "initialSeats": 9}]}])");
  CHECK(out[0]["results"][1] == json::parse(R"({"id": 2, "outcome": "rejected",
      "reason": "concurrency-limit", "queue": -1, "rejectedAtNs": 500000000})"));
  CHECK(out[1]["results"][0]["dispatchNs"] == 0);
}

TEST_CASE("replay: a flow is dealt the queues of its hand", "[queueset][replay]") {
  // hashFlowID("global-default", "alice") deals {55, 62, 126, 125, 105, 1} from 128 queues
  // (appendix A). All queues empty: the first enqueue (offset 0) takes hand[0], the second
  // (offset 1) visits 62 first, which is empty while 55 holds one request.
  const json out = Replay(R"([{"queueset": {"concurrencyLimit": 0, "queues": 128, "handSize": 6,
                                            "queueLengthLimit": 50},
    "requests": [
      {"id": 1, "arrive": 0, "service": 1, "flowSchema": "global-default", "distinguisher": "alice"},
      {"id": 2, "arrive": 0, "service": 1, "flowSchema": "global-default", "distinguisher": "alice"}
    ]}])");
  CHECK(out[0]["results"][0]["queue"] == 55);
  CHECK(out[0]["results"][1]["queue"] == 62);
}

TEST_CASE("replay: bad input is an InputError naming the field", "[queueset][replay]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      Replay(text);
    } catch (const sim::InputError& e) {
      return e.field_path() + ": " + e.message();
    }
    return "no error";
  };
  const std::string config = R"("queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
                                             "queueLengthLimit": 1})";
  CHECK(error_of("[{" + config + R"(, "requests": [{"id": 1, "arrive": 0, "service": 1,
                                                    "colour": 3}]}])") ==
        "[0].requests[0].colour: unknown field (known fields: id, arrive, flowSchema, "
        "distinguisher, initialSeats, finalSeats, additionalLatency, service, waitLimit)");
  CHECK(error_of("[{" + config + R"(, "requests": [{"id": 1, "arrive": -1, "service": 1}]}])") ==
        "[0].requests[0].arrive: expected seconds in [0, 1e9], got -1");
  CHECK(error_of("[{" + config + R"(, "requests": [{"id": 1, "arrive": 0, "service": 1},
                                                   {"id": 1, "arrive": 0, "service": 1}]}])") ==
        "[0].requests[1].id: duplicate request id 1");
  CHECK(error_of(R"([{"queueset": {"concurrencyLimit": 1, "queues": 4, "handSize": 5,
                                   "queueLengthLimit": 1}, "requests": []}])") ==
        "[0].queueset: the QueueSetConfig implies an invalid shuffle sharding config "
        "(DesiredNumQueues is deckSize): handSize 5 is greater than deckSize 4");
  CHECK(error_of(R"([{"queueset": {"concurrencyLimit": 1, "queues": 4}, "requests": []}])") ==
        "[0].queueset.handSize: required field is missing");
}

TEST_CASE("apfsim model queueset and model dealer run end to end", "[queueset][replay][cli]") {
  auto [code, out] = RunApfsim("model queueset", R"([{"queueset": {"concurrencyLimit": 1,
      "queues": 0}, "requests": [{"id": 3, "arrive": 0.000000001, "service": 0.5}]}])");
  CHECK(code == 0);
  const json results = json::parse(out);
  CHECK(results[0]["results"][0]["dispatchNs"] == 1);
  CHECK(results[0]["results"][0]["finishNs"] == 500000001);

  auto [dealer_code, dealer_out] = RunApfsim(
      "model dealer", R"([{"deckSize": 64, "handSize": 6, "hashValue": "14257900033262264633"}])");
  CHECK(dealer_code == 0);
  CHECK(json::parse(dealer_out)[0]["hand"] == json::parse("[57, 29, 61, 56, 39, 18]"));

  auto [bad_code, bad_out] = RunApfsim("model dealer", R"([{"deckSize": 64}])");
  CHECK(bad_code == 2);
  CHECK(bad_out.find("[0].handSize: required field is missing") != std::string::npos);
}
