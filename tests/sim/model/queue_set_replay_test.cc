// `apfsim model queueset` and `apfsim model dealer`: the replay's event order, its output
// fields, its input checks, and the commands end to end.
#include "sim/model/queue_set_replay.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
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

TEST_CASE("replay: input out of time order keeps the up-front order of same-time events",
          "[queueset][replay]") {
  // Neither arrivals nor time-outs come in time order, and at 2 s a time-out, two
  // arrivals, another time-out and a completion fall due together. They fire as if every
  // arrival and time-out had been scheduled first, request by request: by time, then input
  // order (an arrival before its own time-out), then completions.
  const json out = Replay(R"([{"queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
                                            "queueLengthLimit": 5},
    "requests": [
      {"id": 1, "arrive": 1, "service": 1},
      {"id": 2, "arrive": 0, "service": 1},
      {"id": 3, "arrive": 1.5, "service": 1, "waitLimit": 0.5},
      {"id": 4, "arrive": 2, "service": 1},
      {"id": 5, "arrive": 0.2, "service": 1, "waitLimit": 0.3},
      {"id": 6, "arrive": 2, "service": 1, "waitLimit": 0}]}])");
  const json& r = out[0]["results"];
  // 2 arrives first and runs 0-1 s.
  CHECK(r[1] == json::parse(R"({"id": 2, "outcome": "executed", "queue": 0, "dispatchNs": 0,
                                "finishNs": 1000000000, "releaseNs": 1000000000})"));
  // 5 waits from 0.2 s and times out at 0.5 s, before 3's earlier-listed time-out.
  CHECK(r[4] == json::parse(R"({"id": 5, "outcome": "rejected", "reason": "time-out",
                                "queue": 0, "rejectedAtNs": 500000000})"));
  // 1 arrives at 1 s as 2 completes: the arrival first, so it queues and 2's completion
  // dispatches it.
  CHECK(r[0] == json::parse(R"({"id": 1, "outcome": "executed", "queue": 0,
                                "dispatchNs": 1000000000, "finishNs": 2000000000,
                                "releaseNs": 2000000000})"));
  // At 2 s: 3's time-out (request 3), 4's arrival (request 4), 6's arrival and its own
  // time-out (request 6), then 1's completion, which dispatches 4.
  CHECK(r[2] == json::parse(R"({"id": 3, "outcome": "rejected", "reason": "time-out",
                                "queue": 0, "rejectedAtNs": 2000000000})"));
  CHECK(r[5] == json::parse(R"({"id": 6, "outcome": "rejected", "reason": "time-out",
                                "queue": 0, "rejectedAtNs": 2000000000})"));
  CHECK(r[3] == json::parse(R"({"id": 4, "outcome": "executed", "queue": 0,
                                "dispatchNs": 2000000000, "finishNs": 3000000000,
                                "releaseNs": 3000000000})"));
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

namespace {

// What `apfsim model queueset` printed before the replay streamed: the whole-document
// replay's answer in its one-result-per-line layout (sim/cli/model.cc, Layout::kResultPerLine).
std::string WholeDocument(const std::string& text) {
  const json answer = sim::ReplayQueueSetCases(sim::ParseJsonText(text, "<stdin>"), "<stdin>");
  std::string out = "[";
  for (size_t i = 0; i < answer.size(); ++i) {
    out += (i == 0 ? "\n" : ",\n") + std::string("{\"results\": [");
    const json& list = answer[i]["results"];
    for (size_t j = 0; j < list.size(); ++j) out += (j == 0 ? "\n  " : ",\n  ") + list[j].dump();
    out += "\n]}";
  }
  return out + "\n]\n";
}

std::string Streamed(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  sim::StreamQueueSetCases(in, out, "<stdin>");
  return out.str();
}

// The message each path gives for bad input ("" when it is accepted).
std::string WholeDocumentError(const std::string& text) {
  try {
    WholeDocument(text);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}
std::string StreamedError(const std::string& text) {
  try {
    Streamed(text);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}

// The InputError `f` throws.
template <typename F>
sim::InputError ErrorOf(F f) {
  try {
    f();
  } catch (const sim::InputError& e) {
    return e;
  }
  FAIL("no InputError");
  throw std::logic_error("not reached");
}

// `n` requests of one case, one per line, with `bad` spliced in as request `at`.
std::string LongCase(int n, int at, const std::string& bad) {
  std::string text = R"([{"queueset": {"concurrencyLimit": 4, "queues": 16, "handSize": 3,
    "queueLengthLimit": 5}, "requests": [)";
  for (int i = 0; i < n; ++i) {
    text += (i == 0 ? "\n" : ",\n");
    text += i == at
                ? bad
                : R"({"id": )" + std::to_string(i) + R"(, "arrive": )" + std::to_string(i * 0.001) +
                      R"(, "distinguisher": "f)" + std::to_string(i % 7) + R"(", "service": 0.01})";
  }
  return text + "\n]}]\n";
}

// Serves `parts` one after the other and, when it first reaches the last, notes what the
// replay had written by then.
class PartsBuffer : public std::streambuf {
 public:
  PartsBuffer(std::vector<std::string> parts, const std::ostringstream& out)
      : parts_(std::move(parts)), out_(out) {}
  std::string written_before_last;

 protected:
  int_type underflow() override {
    if (next_ == parts_.size()) return traits_type::eof();
    if (next_ + 1 == parts_.size()) written_before_last = out_.str();
    std::string& part = parts_[next_++];
    setg(part.data(), part.data(), part.data() + part.size());
    return traits_type::to_int_type(part[0]);
  }

 private:
  std::vector<std::string> parts_;
  std::size_t next_ = 0;
  const std::ostringstream& out_;
};

}  // namespace

TEST_CASE("streamed queueset replay: the same bytes as the whole-document replay",
          "[queueset][replay][stream]") {
  // Several cases, one with "requests" before "queueset", nulls for defaults, an integral
  // float id, unknown flows and every outcome.
  const std::string text = R"([{"queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
                                            "queueLengthLimit": 1},
    "requests": [
      {"id": 1, "arrive": 0, "service": 1},
      {"id": 2.0, "arrive": 0.5, "service": 1, "waitLimit": null},
      {"id": 3, "arrive": 0.6, "service": 1},
      {"id": 4, "arrive": 2, "service": 0.5, "finalSeats": 1, "additionalLatency": 0.25},
      {"id": 5, "arrive": 2.1, "service": 1, "waitLimit": 0.3}]},
   {"requests": [{"id": 9, "arrive": 0, "service": 1, "flowSchema": "a", "distinguisher": "b"},
                 {"id": 8, "arrive": 0, "service": 1, "initialSeats": 3}],
    "queueset": {"concurrencyLimit": 3, "queues": 8, "handSize": 2, "queueLengthLimit": 2}},
   {"queueset": {"concurrencyLimit": 2, "queues": 0}, "requests": [
      {"id": 1, "arrive": 0, "service": 1}, {"id": 2, "arrive": 0, "service": 1},
      {"id": 3, "arrive": 0, "service": 1}]},
   {"queueset": {"concurrencyLimit": 2, "queues": -1}, "requests": []}])";
  const std::string expected = WholeDocument(text);
  REQUIRE(expected.find("time-out") != std::string::npos);
  REQUIRE(expected.find("queue-full") != std::string::npos);
  REQUIRE(expected.find("concurrency-limit") != std::string::npos);
  CHECK(Streamed(text) == expected);
  CHECK(Streamed("[]") == WholeDocument("[]"));
  const std::string long_case = LongCase(3000, -1, "");
  CHECK(Streamed(long_case) == WholeDocument(long_case));
}

TEST_CASE("streamed queueset replay: seconds read as exact nanoseconds round as the double does",
          "[queueset][replay][stream]") {
  // The stream reads plain decimals of up to 9 places below 2^50 ns straight into
  // nanoseconds; the whole-document replay takes llround(double * 1e9). Each request here
  // is dispatched on arrival (no queues, room for all), so dispatchNs is its arrival.
  const std::string text = R"([{"queueset": {"concurrencyLimit": 100, "queues": 0}, "requests": [
      {"id": 1, "arrive": 0.000000001, "service": 0.1},
      {"id": 2, "arrive": 1.999999999, "service": 0.3},
      {"id": 3, "arrive": 0.0000000015, "service": 0.7},
      {"id": 4, "arrive": 0.1234567895, "service": 1.1},
      {"id": 5, "arrive": 1e-3, "service": 2.5e0},
      {"id": 6, "arrive": 1125899.906842623, "service": 0.000001},
      {"id": 7, "arrive": 1125899.906842624, "service": 0.5},
      {"id": 8, "arrive": 1125899.9068426245, "service": 0.5},
      {"id": 9, "arrive": 0.5, "service": 12345.678901234}]}])";
  const std::string expected = WholeDocument(text);
  CHECK(Streamed(text) == expected);
  // Hand-checked: 1.999999999 s is 1,999,999,999 ns (9 decimals, exact), and
  // 1125899.906842623 s is 2^50 - 1 ns, the largest the exact path takes.
  CHECK(expected.find("\"dispatchNs\":1999999999,") != std::string::npos);
  CHECK(expected.find("\"dispatchNs\":1125899906842623,") != std::string::npos);
}

TEST_CASE("streamed queueset replay: a case's results are written before the next is read",
          "[queueset][replay][stream]") {
  const std::string first = R"([{"queueset": {"concurrencyLimit": 1, "queues": 1, "handSize": 1,
    "queueLengthLimit": 1}, "requests": [{"id": 41, "arrive": 0, "service": 1}]},)";
  // More blank space than the reader takes at once (64 KiB), so the second case is asked
  // for only after the first has been read whole.
  const std::string blank(3 << 16, ' ');
  const std::string second = R"({"queueset": {"concurrencyLimit": 1, "queues": 0},
    "requests": [{"id": 42, "arrive": 0, "service": 1}]}])";
  std::ostringstream out;
  PartsBuffer parts({first, blank, second}, out);
  std::istream in(&parts);
  sim::StreamQueueSetCases(in, out, "<stdin>");
  CHECK(parts.written_before_last.find("\"id\":41") != std::string::npos);
  CHECK(parts.written_before_last.find("\"id\":42") == std::string::npos);
  CHECK(out.str() == WholeDocument(first + blank + second));
}

TEST_CASE("streamed queueset replay: bad input deep in a long request list is named as before",
          "[queueset][replay][stream]") {
  // Each bad request at index 2,500 of 3,000 (ids 0 to 2,999, so 9999 is new), one request
  // per line (line 2,503). Mistakes
  // of syntax, and repeated keys, are named as the whole-document reader names them, at
  // the same line and column. A request that reads but is wrong gets the whole-document
  // message and field path, and the streamed reader also places it: at the key of the
  // field it names, or at the request's start.
  struct Bad {
    std::string request;
    int column;  // of the streamed message on line 2,503; 0: the same as the whole document
  };
  const std::vector<Bad> bad = {
      {R"({"id": 9999, "arrive": -5, "service": 1})", 14},             // out of range
      {R"({"id": 9999, "arrive": "soon", "service": 1})", 14},         // wrong type
      {R"({"id": 9999, "arrive": 1, "service": 1, "extra": 2})", 41},  // unknown field
      {R"({"id": 9999, "arrive": 1, "arrive": 2, "service": 1})", 0},  // duplicate key
      {R"({"id": 7, "arrive": 1, "service": 1})", 2},                  // duplicate id
      {R"({"id": 9999, "arrive": 1 "service": 1})", 0},                // missing comma
      {R"({"id": 9999, "arrive": 1e400, "service": 1})", 0},           // number overflow
      {R"({"id": 9999.5, "arrive": 1, "service": 1})", 2},             // not an integer
      {R"({"id": 9999, "arrive": 1, "service": 1, "initialSeats": -1})", 41},
      {R"({"id": 9999, "arrive": 1, "service": 1, "flowSchema": 3})", 41},
      {R"([1, 2])", 1},                                                  // not an object
      {R"({"id": 9999, "arrive": 1, "service": {"a": 1, "a": 2}})", 0},  // nested repeat
      {R"({"arrive": 1, "service": 1})", 1},                             // no id
  };
  for (const Bad& b : bad) {
    const std::string text = LongCase(3000, 2500, b.request);
    INFO(b.request);
    if (b.column == 0) {
      const std::string expected = WholeDocumentError(text);
      REQUIRE(!expected.empty());
      CHECK(StreamedError(text) == expected);
      continue;
    }
    const sim::InputError whole = ErrorOf([&] { WholeDocument(text); });
    const sim::InputError streamed = ErrorOf([&] { Streamed(text); });
    CHECK(whole.where().line == 0);
    CHECK(streamed.message() == whole.message());
    CHECK(streamed.field_path() == whole.field_path());
    CHECK(streamed.where().file == "<stdin>");
    CHECK(streamed.where().line == 2503);
    CHECK(streamed.where().column == b.column);
  }
  // A bad configuration comes before a bad request, as in the whole document.
  std::string late = LongCase(10, 3, R"({"id": 1, "arrive": -1, "service": 1})");
  late.replace(late.find("\"handSize\": 3"), 13, "\"handSize\": 99");
  CHECK(StreamedError(late) == WholeDocumentError(late));
  CHECK(StreamedError(late).find("queueset") != std::string::npos);
  // A top level that is not a list, and truncated input.
  for (const std::string& text : {std::string(R"({"queueset": 1})"), std::string("[{"),
                                  std::string(""), std::string("[1]"), std::string("[] x")}) {
    INFO(text);
    CHECK(StreamedError(text) == WholeDocumentError(text));
  }
}
