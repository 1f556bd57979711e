#include "sim/workflows/seed_list.h"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <string_view>

#include "sim/io/input_error.h"

namespace sim {
namespace {

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw InputError({"--seeds", 0, 0}, text, why);
}

std::uint64_t SeedNumber(const std::string& list, std::string_view item) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
    Fail(list, fmt::format("\"{}\" is not a seed: seeds are integers from 0 to {}, written "
                           "1..20, 1,4,9 or 1..5,9",
                           item, UINT64_MAX));
  }
  return value;
}

}  // namespace

std::vector<std::uint64_t> ParseSeedList(const std::string& text) {
  if (text.empty()) Fail(text, "no seeds: give a list such as 1..20, 1,4,9 or 1..5,9");
  std::vector<std::uint64_t> seeds;
  std::set<std::uint64_t> seen;
  auto add = [&](std::uint64_t seed) {
    if (!seen.insert(seed).second) {
      Fail(text, fmt::format("seed {} is named twice; each seed is one replication", seed));
    }
    if (seeds.size() == kMaxSeeds) {
      Fail(text, fmt::format("more than {} seeds; each seed is a whole run", kMaxSeeds));
    }
    seeds.push_back(seed);
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string_view item = std::string_view(text).substr(start, comma - start);
    if (item.empty()) Fail(text, "an empty item in the list");
    const std::size_t dots = item.find("..");
    if (dots == std::string_view::npos) {
      add(SeedNumber(text, item));
    } else {
      const std::uint64_t from = SeedNumber(text, item.substr(0, dots));
      const std::uint64_t to = SeedNumber(text, item.substr(dots + 2));
      if (to < from) {
        Fail(text, fmt::format("the range {} runs backwards: write {}..{}", item, to, from));
      }
      if (to - from >= kMaxSeeds) {
        Fail(text, fmt::format("more than {} seeds; each seed is a whole run", kMaxSeeds));
      }
      for (std::uint64_t s = from;; ++s) {
        add(s);
        if (s == to) break;
      }
    }
    start = comma + 1;
  }
  return seeds;
}

}  // namespace sim
