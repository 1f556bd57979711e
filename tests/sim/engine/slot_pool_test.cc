// The slot pool behind the world's calls and attempts (sim/engine/slot_pool.h): released slots
// are handed out again before new ones, addresses never move, and a reused slot keeps what
// its last user left (the world relies on that to skip copying a call's strings).
#include "sim/engine/slot_pool.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

TEST_CASE("SlotPool reuses the last released slot before making a new one", "[slot_pool]") {
  sim::SlotPool<int> pool;
  const std::uint32_t a = pool.Acquire();
  const std::uint32_t b = pool.Acquire();
  CHECK(a == 0);
  CHECK(b == 1);
  pool.Release(a);
  CHECK(pool.Acquire() == a);
  CHECK(pool.Acquire() == 2);
  CHECK(pool.size() == 3);
}

TEST_CASE("SlotPool slots keep their address and contents across growth and reuse", "[slot_pool]") {
  sim::SlotPool<std::string> pool;
  const std::uint32_t first = pool.Acquire();
  pool[first] = "system:node:node-1";
  const std::string* address = &pool[first];
  // Three chunks' worth of slots: the first chunk must not move.
  for (std::uint32_t i = 1; i < 3 * sim::SlotPool<std::string>::kChunkSize; ++i) {
    CHECK(pool.Acquire() == i);
  }
  CHECK(&pool[first] == address);
  pool.Release(first);
  const std::uint32_t again = pool.Acquire();
  CHECK(again == first);
  CHECK(pool[again] == "system:node:node-1");  // left as its last user wrote it
}

TEST_CASE("SlotPool memory is bounded by the slots in use at once", "[slot_pool]") {
  sim::SlotPool<int> pool;
  // A million acquire/release pairs with at most 100 in use: 100 slots made.
  std::vector<std::uint32_t> in_use;
  for (int i = 0; i < 1000000; ++i) {
    in_use.push_back(pool.Acquire());
    if (in_use.size() == 100) {
      for (std::uint32_t s : in_use) pool.Release(s);
      in_use.clear();
    }
  }
  CHECK(pool.size() == 100);
}
