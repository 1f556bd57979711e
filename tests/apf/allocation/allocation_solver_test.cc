// The fair-proportion solver (doc/model.md#allocation-solver, conc_alloc.go): random problems in
// the manner of Kubernetes' TestConcAlloc, plus cases worked by hand.
#include "apf/allocation/allocation_solver.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "sim/engine/random.h"

namespace {

// conc_alloc_test.go fpSlack: the tolerance for floating-point imprecision.
constexpr double kFpSlack = 1e-10;

double RelDiff(double a, double b) {
  const double den = std::max(std::abs(a), std::abs(b));
  return den == 0 ? 0 : std::abs(a - b) / den;
}

// Calls consume(j, x_j) for j in [0, n) with x_j >= 0 summing to x (partition64).
template <typename F>
void Partition(sim::Random& rng, int n, double x, F consume) {
  if (n <= 0) return;
  std::vector<double> divs(n - 1);
  for (double& d : divs) d = rng.Uniform01();
  std::sort(divs.begin(), divs.end());
  double last = 0;
  for (int j = 0; j < n - 1; ++j) {
    consume(j, (divs[j] - last) * x);
    last = divs[j];
  }
  consume(n - 1, (1 - last) * x);
}

struct Problem {
  std::string style;
  int required_sum = 0;
  std::vector<apf::AllocProblemItem> items;
  double low_sum = 0, high_sum = 0;
};

// One random problem, generated as test1ConcAlloc does, with one more style ("infeasible")
// whose bounds miss the required sum by at least one seat, so that the error path is
// exercised as often as the others.
Problem RandomProblem(sim::Random& rng) {
  static const int kLengths[] = {0, 1, 2, 3, 4, 6, 9};
  Problem p;
  int n = kLengths[rng.UniformInt(7)];
  p.items.resize(n);
  p.style = "empty";
  auto note = [&](int j) {
    p.low_sum += p.items[j].lower_bound;
    p.high_sum += p.items[j].upper_bound;
  };
  if (n > 0) {
    const std::uint64_t style = rng.UniformInt(22);
    if (style == 0) {
      p.style = "bound from below";
      p.required_sum = static_cast<int>(rng.UniformInt(n * 3));
      Partition(rng, n, p.required_sum, [&](int j, double x) {
        p.items[j].lower_bound = x;
        p.items[j].target = x + 2 * rng.Uniform01();
        p.items[j].upper_bound = x + 3 * rng.Uniform01();
        note(j);
      });
    } else if (style == 1) {
      p.style = "bound from above";
      p.required_sum = static_cast<int>(rng.UniformInt(n * 3)) + 1;
      Partition(rng, n, p.required_sum, [&](int j, double x) {
        p.items[j].upper_bound = x;
        p.items[j].lower_bound = x * std::max(0.0, 1.25 * rng.Uniform01() - 1);
        p.items[j].target = p.items[j].lower_bound + rng.Uniform01();
        note(j);
      });
    } else {
      for (int j = 0; j < n; ++j) {
        const double x = std::max(0.0, rng.Uniform01() * 5 - 1);
        p.items[j].lower_bound = x;
        p.items[j].target = x + 2 * rng.Uniform01();
        p.items[j].upper_bound = x + 3 * rng.Uniform01();
        note(j);
      }
      if (style >= 20) {
        p.style = "infeasible";
        if (style == 20 || p.low_sum < 2) {  // above every upper bound
          p.required_sum =
              static_cast<int>(std::ceil(p.high_sum)) + 1 + static_cast<int>(rng.UniformInt(3));
        } else {  // below the lower bounds
          p.required_sum = static_cast<int>(std::floor(p.low_sum)) - 1;
        }
      } else {
        p.style = "not-set-by-bounds";
        p.required_sum =
            static_cast<int>(std::round(p.low_sum + (p.high_sum - p.low_sum) * rng.Uniform01()));
      }
    }
  }
  // Classes with a target of zero, in random positions.
  while (rng.Uniform01() < 0.25) {
    apf::AllocProblemItem zero;
    zero.upper_bound = rng.Uniform01() + 0.00001;
    p.high_sum += zero.upper_bound;
    p.items.push_back(zero);
    const int last = static_cast<int>(p.items.size()) - 1;
    if (last > 1) std::swap(p.items[rng.UniformInt(last)], p.items[last]);
  }
  return p;
}

}  // namespace

TEST_CASE("solver: random problems sum to the total with each item the clamp of fairProp * target",
          "[conc_alloc][property]") {
  sim::Random rng(1234567890);
  int solved = 0, refused = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Problem p = RandomProblem(rng);
    const double required = p.required_sum;
    INFO("trial " << trial << ", style " << p.style << ", required " << p.required_sum);
    apf::ConcurrencyAllocation result;
    const apf::Status status = apf::ComputeConcurrencyAllocation(p.required_sum, p.items, &result);
    // An error exactly when the bounds make the total impossible.
    const bool impossible = p.low_sum - required > kFpSlack || required - p.high_sum > kFpSlack;
    REQUIRE(status.ok() == !impossible);
    if (!status.ok()) {
      ++refused;
      continue;
    }
    ++solved;
    REQUIRE(result.allocs.size() == p.items.size());
    double sum = 0;
    for (double a : result.allocs) sum += a;
    REQUIRE(RelDiff(required, sum) <= kFpSlack);
    for (size_t i = 0; i < p.items.size(); ++i) {
      const apf::AllocProblemItem& item = p.items[i];
      const double proportional = result.fair_prop * std::max(item.target, apf::kAllocMinTarget);
      INFO("item " << i << ": lb " << item.lower_bound << " ub " << item.upper_bound << " target "
                   << item.target << " alloc " << result.allocs[i] << " fairProp "
                   << result.fair_prop);
      if (proportional <= item.lower_bound) {
        REQUIRE(result.allocs[i] == item.lower_bound);
      } else if (proportional >= item.upper_bound) {
        REQUIRE(result.allocs[i] == item.upper_bound);
      } else {
        REQUIRE(RelDiff(proportional, result.allocs[i]) <= kFpSlack);
      }
    }
  }
  // Both outcomes were exercised many times.
  CHECK(solved > 10000);
  CHECK(refused > 500);
}

TEST_CASE("solver: with no binding bound the allocation is proportional to the targets",
          "[conc_alloc]") {
  // doc/model.md#worked-allocation, zero demand: every target is minCL, 602 seats over targets
  // summing to 258.
  const double min_cls[] = {13, 50, 73, 25, 49, 24, 24};
  std::vector<apf::AllocProblemItem> items;
  for (double m : min_cls) items.push_back({m, m, m + 600});
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(602, items, &r).ok());
  CHECK(r.fair_prop == 602.0 / 258.0);
  CHECK(r.allocs[0] == 13 * (602.0 / 258.0));
}

TEST_CASE("solver: an item capped at its upper bound leaves the rest to the others",
          "[conc_alloc]") {
  // By hand: A wants 10 but may have at most 2, B wants 1. Proportionally A would get
  // 10 * 10/11 > 2, so A is capped at 2 and B takes the other 8: fairProp = 8 / 1.
  std::vector<apf::AllocProblemItem> items = {{10, 0, 2}, {1, 0, 100}};
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(10, items, &r).ok());
  CHECK(r.allocs[0] == 2);
  CHECK(r.allocs[1] == Approx(8).epsilon(1e-12));
  CHECK(r.fair_prop == Approx(8).epsilon(1e-12));
}

TEST_CASE("solver: an item held at its lower bound leaves the rest to the others", "[conc_alloc]") {
  // By hand: A must have 5 (target 5), B wants 10; 6 seats in all. Proportionally A
  // would get 2 < 5, so A gets 5 and B the remaining 1: fairProp = 1 / 10.
  std::vector<apf::AllocProblemItem> items = {{5, 5, 100}, {10, 0, 100}};
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(6, items, &r).ok());
  CHECK(r.allocs[0] == 5);
  CHECK(r.allocs[1] == Approx(1).epsilon(1e-12));
  CHECK(r.fair_prop == Approx(0.1).epsilon(1e-12));
}

TEST_CASE("solver: no room above the lower bounds gives every item its lower bound",
          "[conc_alloc]") {
  // conc_alloc.go: fairProp is then the smallest relative lower bound, here 2/8.
  std::vector<apf::AllocProblemItem> items = {{4, 3, 10}, {8, 2, 10}};
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(5, items, &r).ok());
  CHECK(r.allocs == std::vector<double>{3, 2});
  CHECK(r.fair_prop == 0.25);
  // ... and no room below the upper bounds every item its upper bound, fairProp the
  // largest relative upper bound, 10/4.
  REQUIRE(apf::ComputeConcurrencyAllocation(20, items, &r).ok());
  CHECK(r.allocs == std::vector<double>{10, 10});
  CHECK(r.fair_prop == 2.5);
}

TEST_CASE("solver: a zero target counts as 0.001", "[conc_alloc]") {
  // conc_alloc.go MinTarget: proportional shares 1 : 0.001 of 1001 seats.
  std::vector<apf::AllocProblemItem> items = {{1, 0, 2000}, {0, 0, 2000}};
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(1001, items, &r).ok());
  CHECK(r.allocs[0] == Approx(1000).epsilon(1e-12));
  CHECK(r.allocs[1] == Approx(1).epsilon(1e-12));
}

TEST_CASE("solver: a zero total gives zeros and inconsistent items are refused", "[conc_alloc]") {
  apf::ConcurrencyAllocation r;
  REQUIRE(apf::ComputeConcurrencyAllocation(0, {{1, 0, 5}}, &r).ok());
  CHECK(r.allocs == std::vector<double>{0});
  CHECK(r.fair_prop == 0);
  CHECK_FALSE(apf::ComputeConcurrencyAllocation(-1, {{1, 0, 5}}, &r).ok());
  CHECK_FALSE(apf::ComputeConcurrencyAllocation(3, {{1, 2, 5}}, &r).ok());   // target < lb
  CHECK_FALSE(apf::ComputeConcurrencyAllocation(3, {{3, 2, 1}}, &r).ok());   // ub < lb
  CHECK_FALSE(apf::ComputeConcurrencyAllocation(3, {{3, -1, 5}}, &r).ok());  // lb < 0
}
