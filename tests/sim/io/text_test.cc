// sim/io/text.h: the one rounding of JSON figures, the grouping of counts and the one
// splitter of lists.
#include "sim/io/text.h"

#include <catch2/catch.hpp>
#include <limits>
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

TEST_CASE("GroupThousands groups a count's digits by three", "[io][text]") {
  CHECK(sim::GroupThousands(0) == "0");
  CHECK(sim::GroupThousands(999) == "999");
  CHECK(sim::GroupThousands(1126) == "1,126");
  CHECK(sim::GroupThousands(18406) == "18,406");
  CHECK(sim::GroupThousands(1234567) == "1,234,567");
  CHECK(sim::GroupThousands(-1400) == "-1,400");
  CHECK(sim::GroupThousands(std::numeric_limits<long long>::min()) == "-9,223,372,036,854,775,808");
}

TEST_CASE("FigureText prints counts grouped and seconds to a sensible precision", "[io][text]") {
  CHECK(sim::FigureText(1126, false) == "1,126");
  CHECK(sim::FigureText(449.35, false) == "449");  // a mean over seeds, whole from 100
  CHECK(sim::FigureText(3.26, false) == "3.3");    // below 100 and not whole: one decimal
  CHECK(sim::FigureText(0, false) == "0");
  CHECK(sim::FigureText(10.94, true) == "10.9 s");
  CHECK(sim::FigureText(1.3, true) == "1.3 s");
  CHECK(sim::FigureText(0.0042, true) == "0.004 s");
  CHECK(sim::FigureText(0, true) == "0.000 s");
}
