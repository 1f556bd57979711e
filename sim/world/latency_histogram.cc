#include "sim/world/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sim {

apf::Nanos LatencyHistogram::BucketMiddle(int bucket) {
  if (bucket < kSub) return bucket;
  const int shift = bucket / kSub - 1;
  const std::uint64_t sub = static_cast<std::uint64_t>(bucket % kSub);
  const std::uint64_t low = (static_cast<std::uint64_t>(kSub) + sub) << shift;
  const std::uint64_t width = std::uint64_t{1} << shift;
  return static_cast<apf::Nanos>(low + (width - 1) / 2);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = other.lo_; i <= other.hi_; ++i) counts_[i] += other.counts_[i];
  lo_ = std::min(lo_, other.lo_);
  hi_ = std::max(hi_, other.hi_);
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::Clear() {
  if (count_ == 0) return;
  std::fill(counts_.begin() + lo_, counts_.begin() + hi_ + 1, 0u);
  lo_ = kBuckets;
  hi_ = -1;
  count_ = 0;
  max_ = 0;
}

apf::Nanos LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  // Nearest rank: the smallest value with at least ceil(q * n) samples at or below it.
  std::uint64_t rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (int i = lo_; i <= hi_; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(BucketMiddle(i), max_);
  }
  return max_;
}

}  // namespace sim
