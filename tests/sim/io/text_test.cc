// sim/io/text.h: the one rounding of JSON figures and the one splitter of lists.
#include "sim/io/text.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using Parts = std::vector<std::string>;

TEST_CASE("Round6 rounds to 6 decimals, half away from zero", "[io][text]") {
  CHECK(sim::Round6(0.1 + 0.2) == 0.3);  // 0.30000000000000004 in binary
  CHECK(sim::Round6(1.0000005) == 1.000001);
  CHECK(sim::Round6(-1.0000005) == -1.000001);
  CHECK(sim::Round6(2.5e-7) == 0.0);
  CHECK(sim::Round6(576.3333333333334) == 576.333333);
}

TEST_CASE("Split keeps or skips the empty parts between separators", "[io][text]") {
  CHECK(sim::Split("a,b,c", ',') == Parts{"a", "b", "c"});
  CHECK(sim::Split("a..b", '.') == Parts{"a", "", "b"});
  CHECK(sim::Split("", ',') == Parts{""});
  CHECK(sim::Split(",a,", ',') == Parts{"", "a", ""});
  CHECK(sim::Split(",a,,b,", ',', sim::EmptyParts::kSkip) == Parts{"a", "b"});
  CHECK(sim::Split("", ',', sim::EmptyParts::kSkip).empty());
}
