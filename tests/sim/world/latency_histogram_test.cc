// Percentiles from the fixed-memory histogram, against exact nearest-rank percentiles of
// the same samples (the bucket width bounds the error at 1/64 of the value).
#include "sim/world/latency_histogram.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "sim/engine/random.h"

TEST_CASE("histogram percentiles are within one bucket of the exact ones",
          "[histogram][property]") {
  sim::Random rng(3, "histogram");
  for (int trial = 0; trial < 20; ++trial) {
    sim::LatencyHistogram h;
    std::vector<apf::Nanos> xs;
    const int n = 1 + static_cast<int>(rng.UniformInt(5000));
    for (int i = 0; i < n; ++i) {
      auto v = static_cast<apf::Nanos>(rng.LognormalMedianP99(2e6, 5e8));
      xs.push_back(v);
      h.Add(v);
    }
    std::sort(xs.begin(), xs.end());
    for (double q : {0.5, 0.9, 0.99, 1.0}) {
      size_t rank = static_cast<size_t>(std::ceil(q * n));
      apf::Nanos exact = xs[std::max<size_t>(rank, 1) - 1];
      apf::Nanos approx = h.Quantile(q);
      CHECK(std::abs(static_cast<double>(approx - exact)) <= exact / 64.0 + 1);
    }
    CHECK(h.max() == xs.back());
    CHECK(h.count() == static_cast<std::uint64_t>(n));
  }
}

TEST_CASE("small values are exact and an empty histogram reports zero", "[histogram]") {
  sim::LatencyHistogram h;
  CHECK(h.Quantile(0.99) == 0);
  for (int v : {1, 2, 3, 4, 50}) h.Add(v);
  CHECK(h.Quantile(0.5) == 3);  // nearest rank 3 of 5
  CHECK(h.Quantile(1.0) == 50);
  sim::LatencyHistogram other;
  other.Add(7);
  h.Merge(other);
  CHECK(h.count() == 6);
  h.Clear();
  CHECK(h.count() == 0);
}
