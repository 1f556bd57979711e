// `apfsim model allocation`: the JSON replay of the seat allocation, called as a library
// and as the command, on the default configuration of doc/model.md#default-objects / 3.6.
#include "sim/model/allocation.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
#include "tests/support/test_support.h"

namespace {

// The default levels of doc/model.md#default-objects in the replay's input format.
nlohmann::json DefaultLevelsJson() {
  auto queuing = [](int queues, int hand_size) {
    return nlohmann::json{{"queues", queues}, {"handSize", hand_size}, {"queueLengthLimit", 50}};
  };
  auto limited = [](const char* name, int shares, int lendable, nlohmann::json queuing) {
    return nlohmann::json{{"name", name},
                          {"type", "Limited"},
                          {"nominalConcurrencyShares", shares},
                          {"lendablePercent", lendable},
                          {"borrowingLimitPercent", nullptr},
                          {"queuing", std::move(queuing)}};
  };
  return nlohmann::json::array({
      {{"name", "exempt"},
       {"type", "Exempt"},
       {"nominalConcurrencyShares", 0},
       {"lendablePercent", 0},
       {"borrowingLimitPercent", nullptr},
       {"queuing", nullptr}},
      limited("catch-all", 5, 0, nullptr),
      limited("system", 30, 33, queuing(64, 6)),
      limited("node-high", 40, 25, queuing(64, 6)),
      limited("leader-election", 10, 0, queuing(16, 4)),
      limited("workload-high", 40, 50, queuing(128, 6)),
      limited("workload-low", 100, 90, queuing(128, 6)),
      limited("global-default", 20, 50, queuing(128, 6)),
  });
}

nlohmann::json DefaultCase() {
  return {
      {"serverConcurrencyLimit", 600},
      {"levels", DefaultLevelsJson()},
      {"periods", nlohmann::json::array(
                      {nlohmann::json::object(),
                       {{"workload-low",
                         {{"average", 300}, {"stdDev", 0}, {"max", 300}, {"duration", 10}}}}})}};
}

// The field path of the InputError that replaying `cases` throws, or "" if none.
std::string ErrorPath(const nlohmann::json& cases) {
  try {
    sim::ReplayAllocationCases(cases, "<test>");
  } catch (const sim::InputError& e) {
    return e.field_path();
  }
  return "";
}

}  // namespace

TEST_CASE("model allocation replays the default configuration as in doc/model.md#worked-allocation",
          "[allocation][replay]") {
  const nlohmann::json out =
      sim::ReplayAllocationCases(nlohmann::json::array({DefaultCase()}), "<test>");
  REQUIRE(out.size() == 1);
  const nlohmann::json& config = out[0]["config"];
  // doc/model.md#worked-allocation: nominalCL, minCL, maxCL, maxSeats.
  CHECK(config["workload-low"] ==
        nlohmann::json({{"nominalCL", 245}, {"minCL", 24}, {"maxCL", 845}, {"maxSeats", 37}}));
  CHECK(config["system"] ==
        nlohmann::json({{"nominalCL", 74}, {"minCL", 50}, {"maxCL", 674}, {"maxSeats", 12}}));
  CHECK(config["catch-all"] ==
        nlohmann::json({{"nominalCL", 13}, {"minCL", 13}, {"maxCL", 613}, {"maxSeats", nullptr}}));
  CHECK(config["exempt"] ==
        nlohmann::json({{"nominalCL", 0}, {"minCL", 0}, {"maxCL", 600}, {"maxSeats", nullptr}}));
  CHECK(config.size() == 8);
  // Period 1, zero demand; period 2, workload-low at 300 (the two currentCL columns).
  const nlohmann::json& periods = out[0]["periods"];
  REQUIRE(periods.size() == 2);
  CHECK(periods[0]["workload-low"]["currentCL"] == 56);
  CHECK(periods[0]["catch-all"]["currentCL"] == 30);
  CHECK(periods[0]["node-high"]["currentCL"] == 170);
  CHECK(periods[1]["workload-low"]["currentCL"] == 338);
  CHECK(periods[1]["catch-all"]["currentCL"] == 15);
  CHECK(periods[1]["node-high"]["currentCL"] == 82);
  CHECK(periods[1]["exempt"]["currentCL"] == 0);
}

TEST_CASE("model allocation imagines the mandatory levels a case leaves out",
          "[allocation][replay]") {
  // Kubernetes' borrowing test: two 100-share levels at 24 seats get 12 each, because the
  // imagined catch-all's 5 shares count too: ceil(24 * 100 / 205) = 12.
  nlohmann::json c = {{"serverConcurrencyLimit", 24}, {"periods", nlohmann::json::array()}};
  for (const char* name : {"test-pl0", "test-pl1"}) {
    c["levels"].push_back(
        {{"name", name},
         {"type", "Limited"},
         {"nominalConcurrencyShares", 100},
         {"lendablePercent", 50},
         {"borrowingLimitPercent", 67},
         {"queuing", {{"queues", 10}, {"handSize", 2}, {"queueLengthLimit", 10}}}});
  }
  const nlohmann::json out = sim::ReplayAllocationCases(nlohmann::json::array({c}), "<test>");
  const nlohmann::json& config = out[0]["config"];
  CHECK(config.size() == 4);
  CHECK(config["test-pl0"]["nominalCL"] == 12);
  CHECK(config["catch-all"]["nominalCL"] == 1);  // ceil(24 * 5 / 205)
  CHECK(config["exempt"]["maxCL"] == 24);
  CHECK(out[0]["periods"] == nlohmann::json::array());
}

TEST_CASE("model allocation names the field of every bad input", "[allocation][replay]") {
  CHECK(ErrorPath(nlohmann::json::object()) == "(top level)");
  nlohmann::json c = DefaultCase();
  c["extra"] = 1;
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].extra");

  c = DefaultCase();
  c["levels"][2]["type"] = "Queue";
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].levels[2].type");

  c = DefaultCase();
  c["levels"][0]["queuing"] = {{"queues", 1}, {"handSize", 1}, {"queueLengthLimit", 1}};
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].levels[0]");  // an Exempt level has no queues

  c = DefaultCase();
  c["levels"][3]["name"] = "system";
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].levels[3].name");

  c = DefaultCase();
  c["levels"][2]["queuing"]["handSize"] = 65;
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].levels[2].queuing.handSize");

  c = DefaultCase();
  c["levels"][2]["lendablePercent"] = 101;
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].levels[2]");

  c = DefaultCase();
  c["periods"][1]["no-such-level"] = c["periods"][1]["workload-low"];
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].periods[1].no-such-level");

  c = DefaultCase();
  c["periods"][1]["workload-low"]["duration"] = -1;
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].periods[1].workload-low.duration");

  c = DefaultCase();
  c["periods"][1]["workload-low"].erase("max");
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].periods[1].workload-low.max");

  c = DefaultCase();
  c["serverConcurrencyLimit"] = -1;
  CHECK(ErrorPath(nlohmann::json::array({c})) == "[0].serverConcurrencyLimit");
}

TEST_CASE("apfsim model allocation reads stdin, writes JSON and exits 2 on bad input",
          "[allocation][replay][cli]") {
  namespace fs = std::filesystem;
  const test_support::ScratchDir scratch("apfsim-model-allocation");
  const fs::path& dir = scratch.path();
  auto run = [&](const std::string& input, std::string* output) {
    std::ofstream(dir / "in.json") << input;
    const std::string command = std::string(APFSIM_BINARY) + " model allocation < " +
                                (dir / "in.json").string() + " > " + (dir / "out.json").string() +
                                " 2> " + (dir / "err.txt").string();
    const int status = std::system(command.c_str());
    std::ifstream in(dir / "out.json");
    std::stringstream text;
    text << in.rdbuf();
    *output = text.str();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string output;
  REQUIRE(run(nlohmann::json::array({DefaultCase()}).dump(), &output) == 0);
  const nlohmann::json out = sim::ParseJsonText(output, "output");
  CHECK(out[0]["periods"][1]["workload-low"]["currentCL"] == 338);
  CHECK(run("[{\"serverConcurrencyLimit\": 600, \"levels\": [}]", &output) == 2);
  CHECK(run("[{\"serverConcurrencyLimit\": 600}]", &output) == 2);
}
