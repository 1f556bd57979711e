// `--seeds LIST`: the seeds of a run's replications (`apfsim run`, `compare`, `sweep` and
// `check`), written `1..20`, `1,4,9` or a mix such as `1..5,9`. One parser, so that every
// command accepts and refuses the same lists with the same words.
//
// Tested by tests/sim/workflows/seed_list_test.cc.
#ifndef SIM_WORKFLOWS_SEED_LIST_H_
#define SIM_WORKFLOWS_SEED_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

// The most seeds one --seeds may name. Each seed is a whole run; a thousand is already
// hours of a large scenario, and an interval over a thousand samples is as narrow as
// the model's own approximations make worthwhile.
inline constexpr std::size_t kMaxSeeds = 1000;

// The seeds in the order written. Throws InputError (field "--seeds") on an empty list or
// item, a number that is not a non-negative integer, a reversed range (`9..1`), a seed
// named twice, or more than kMaxSeeds seeds.
std::vector<std::uint64_t> ParseSeedList(const std::string& text);

}  // namespace sim

#endif  // SIM_WORKFLOWS_SEED_LIST_H_
