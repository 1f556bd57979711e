// NO_COLOR (https://no-color.org): "when present and not an empty string" it turns colour
// off; unset or empty leaves it to whether the output is a terminal.
#include "sim/io/terminal.h"

#include <catch2/catch.hpp>

TEST_CASE("NO_COLOR set to any non-empty value turns colour off", "[terminal]") {
  CHECK_FALSE(sim::NoColorRequested(nullptr));
  CHECK_FALSE(sim::NoColorRequested(""));
  CHECK(sim::NoColorRequested("1"));
  CHECK(sim::NoColorRequested("0"));  // any value, even "0", per no-color.org
}
