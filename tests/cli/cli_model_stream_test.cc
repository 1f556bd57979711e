// `apfsim model NAME` reads its cases one at a time (sim/cli/model.cc, StreamCases): each
// model's output is the same bytes as its whole list of answers printed in its layout, and
// a bad case after good ones is named by its own index.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/json_input.h"
#include "sim/model/allocation.h"
#include "sim/model/classify.h"
#include "sim/model/dealer.h"
#include "sim/model/estimate.h"
#include "sim/model/retry_after.h"
#include "tests/support/test_support.h"

using nlohmann::json;

namespace {

struct Model {
  std::string name;
  json (*replay)(const json&, const std::string&);
  std::string two_cases;   // a list of two good cases
  std::string bad_second;  // a list whose second case lacks a required field
  std::string bad_path;    // that field's path
};

// How the command printed the whole list before it streamed (its layout, from model.cc's
// table): allocation dump(2), flowhash dump(), the others one case per line.
std::string Printed(const std::string& model, const json& answer) {
  if (model == "allocation") return answer.dump(2) + "\n";
  if (model == "flowhash") return answer.dump() + "\n";
  std::string out = "[";
  for (std::size_t i = 0; i < answer.size(); ++i) {
    out += (i == 0 ? "\n" : ",\n") + answer[i].dump();
  }
  return out + "\n]\n";
}

}  // namespace

TEST_CASE("every model command streams its cases with the whole list's bytes", "[model][cli]") {
  const std::string level =
      R"({"name": "a", "type": "Limited", "nominalConcurrencyShares": 30, "lendablePercent": 0,
          "borrowingLimitPercent": null, "queuing": null})";
  const std::vector<Model> models = {
      {"allocation", sim::ReplayAllocationCases,
       R"([{"serverConcurrencyLimit": 100, "levels": [)" + level +
           R"(], "periods": []}, {"serverConcurrencyLimit": 7, "levels": [)" + level +
           R"(], "periods": [{"a": {"average": 3, "stdDev": 1, "max": 5, "duration": 10}}]}])",
       R"([{"serverConcurrencyLimit": 100, "levels": [], "periods": []}, {"levels": []}])",
       "[1].serverConcurrencyLimit"},
      {"dealer", sim::ReplayDealerCases,
       R"([{"deckSize": 64, "handSize": 6, "hashValue": "1"},
           {"deckSize": 8, "handSize": 9, "hashValue": "2"}])",
       R"([{"deckSize": 64, "handSize": 6, "hashValue": "1"}, {"deckSize": 64, "handSize": 6}])",
       "[1].hashValue"},
      {"estimate", sim::ReplayEstimateCases,
       R"([{"request": {"verb": "list", "resource": "pods"}, "objectCount": 4000},
           {"request": null}])",
       R"([{"request": null}, {"objectCount": 3}])", "[1].request"},
      {"flowhash", sim::FlowHashCases,
       R"([{"flowSchema": "a", "distinguisher": "b"}, {"flowSchema": "c"}])",
       R"([{"flowSchema": "a"}, {"distinguisher": "b"}])", "[1].flowSchema"},
      {"retry-after", sim::ReplayRetryAfterCases, R"([{"drops": [1, 1, 2]}, {"drops": []}])",
       R"([{"drops": [1]}, {}])", "[1].drops"},
  };
  const test_support::ScratchDir scratch("apfsim-model-stream");
  const std::filesystem::path in = scratch.path() / "in.json";
  for (const Model& m : models) {
    INFO(m.name);
    for (const std::string& text : {m.two_cases, std::string("[]")}) {
      std::ofstream(in) << text;
      const auto r = test_support::RunApfsim("model " + m.name, scratch.path(), in.string());
      REQUIRE(r.exit_code == 0);
      CHECK(r.out == Printed(m.name, m.replay(sim::ParseJsonText(text, "<stdin>"), "<stdin>")));
    }
    std::ofstream(in) << m.bad_second;
    const auto bad = test_support::RunApfsim("model " + m.name, scratch.path(), in.string());
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("<stdin>: " + m.bad_path + ": required field is missing") !=
          std::string::npos);
  }
}
