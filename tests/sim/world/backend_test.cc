// Processor sharing on the backend, against hand calculations.
#include "sim/world/backend.h"

#include <catch2/catch.hpp>

using apf::kMillisecond;

TEST_CASE("below the core count every request runs at full speed", "[backend]") {
  sim::Backend backend(4);
  backend.Start(0, 1, 10 * kMillisecond);
  backend.Start(0, 2, 20 * kMillisecond);
  CHECK(backend.NextCompletionTime() == 10 * kMillisecond);
  CHECK(backend.CompleteNext(10 * kMillisecond) == 1);
  CHECK(backend.NextCompletionTime() == 20 * kMillisecond);
}

TEST_CASE("past the core count requests share the cores equally", "[backend]") {
  // One core, two requests of 10 ms and 30 ms starting together: both run at half speed,
  // so the first is done at 20 ms (10 ms of work each); the second then has 20 ms of work
  // left at full speed and is done at 40 ms, the total work on one core.
  sim::Backend backend(1);
  backend.Start(0, 1, 10 * kMillisecond);
  backend.Start(0, 2, 30 * kMillisecond);
  CHECK(backend.rate() == 0.5);
  CHECK(backend.NextCompletionTime() == 20 * kMillisecond);
  CHECK(backend.CompleteNext(20 * kMillisecond) == 1);
  CHECK(backend.NextCompletionTime() == 40 * kMillisecond);
  // A third arrives at 30 ms needing 5 ms: the second has 10 ms left; at half speed the
  // third is done after 10 ms (at 40 ms) and the second has 5 ms left, done at 45 ms.
  backend.Start(30 * kMillisecond, 3, 5 * kMillisecond);
  CHECK(backend.NextCompletionTime() == 40 * kMillisecond);
  CHECK(backend.CompleteNext(40 * kMillisecond) == 3);
  CHECK(backend.NextCompletionTime() == 45 * kMillisecond);
  CHECK(backend.CompleteNext(45 * kMillisecond) == 2);
  CHECK(backend.NextCompletionTime() == apf::kNever);
}
