// --seeds LIST (sim/workflows/seed_list.h): ranges, lists and mixes in the order written,
// and the lists it refuses, each with a message that says why.
#include "sim/workflows/seed_list.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/report/replications.h"

namespace {

using Seeds = std::vector<std::uint64_t>;

// The message of the InputError that ParseSeedList throws for `text`.
std::string Refusal(const std::string& text) {
  try {
    sim::ParseSeedList(text);
  } catch (const sim::InputError& e) {
    CHECK(e.where().file == "--seeds");
    return e.message();
  }
  FAIL("accepted " << text);
  return "";
}

}  // namespace

TEST_CASE("a seed list (--seeds) takes ranges, lists and mixes in the order written", "[seeds]") {
  CHECK(sim::ParseSeedList("1..5") == Seeds{1, 2, 3, 4, 5});
  CHECK(sim::ParseSeedList("1,4,9") == Seeds{1, 4, 9});
  CHECK(sim::ParseSeedList("1..3,9") == Seeds{1, 2, 3, 9});
  CHECK(sim::ParseSeedList("9,1..2") == Seeds{9, 1, 2});
  CHECK(sim::ParseSeedList("7") == Seeds{7});
  CHECK(sim::ParseSeedList("4..4") == Seeds{4});
  CHECK(sim::ParseSeedList("0..2") == Seeds{0, 1, 2});
  CHECK(sim::ParseSeedList("18446744073709551614..18446744073709551615") ==
        Seeds{18446744073709551614u, 18446744073709551615u});
  CHECK(sim::ParseSeedList("1..1000").size() == sim::kMaxSeeds);
}

TEST_CASE("a seed list (--seeds) refuses empty, reversed, repeated, malformed and absurd lists",
          "[seeds]") {
  CHECK(Refusal("").find("no seeds") != std::string::npos);
  CHECK(Refusal("1,,2").find("an empty item") != std::string::npos);
  CHECK(Refusal("1,").find("an empty item") != std::string::npos);
  CHECK(Refusal("9..1").find("runs backwards: write 1..9") != std::string::npos);
  CHECK(Refusal("1..5,3").find("seed 3 is named twice") != std::string::npos);
  CHECK(Refusal("2,2").find("seed 2 is named twice") != std::string::npos);
  CHECK(Refusal("a").find("\"a\" is not a seed") != std::string::npos);
  CHECK(Refusal("-1").find("\"-1\" is not a seed") != std::string::npos);
  CHECK(Refusal("1..").find("\"\" is not a seed") != std::string::npos);
  CHECK(Refusal("1.5").find("\"1.5\" is not a seed") != std::string::npos);
  CHECK(Refusal("99999999999999999999").find("is not a seed") != std::string::npos);
  CHECK(Refusal("1..1001").find("more than 1000 seeds") != std::string::npos);
  CHECK(Refusal("0..18446744073709551615").find("more than 1000 seeds") != std::string::npos);
  CHECK(Refusal("1..1000,2000").find("more than 1000 seeds") != std::string::npos);
}

TEST_CASE("FormatSeeds writes runs of consecutive seeds as ranges", "[seeds]") {
  CHECK(sim::FormatSeeds({1, 2, 3, 4, 5, 9}) == "1..5,9");
  CHECK(sim::FormatSeeds({1, 2, 7}) == "1,2,7");
  CHECK(sim::FormatSeeds({3}) == "3");
  CHECK(sim::FormatSeeds({5, 6, 7, 1}) == "5..7,1");
}
