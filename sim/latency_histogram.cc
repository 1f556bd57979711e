#include "sim/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sim {

int LatencyHistogram::BucketOf(std::uint64_t v) {
  if (v < kSub) return static_cast<int>(v);
  const int exponent = std::bit_width(v) - 1;  // >= kSubBits
  const int shift = exponent - kSubBits;
  const int sub = static_cast<int>((v >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

apf::Nanos LatencyHistogram::BucketMiddle(int bucket) {
  if (bucket < kSub) return bucket;
  const int shift = bucket / kSub - 1;
  const std::uint64_t sub = static_cast<std::uint64_t>(bucket % kSub);
  const std::uint64_t low = (static_cast<std::uint64_t>(kSub) + sub) << shift;
  const std::uint64_t width = std::uint64_t{1} << shift;
  return static_cast<apf::Nanos>(low + (width - 1) / 2);
}

void LatencyHistogram::Add(apf::Nanos value) {
  if (value < 0) value = 0;
  ++counts_[BucketOf(static_cast<std::uint64_t>(value))];
  ++count_;
  max_ = std::max(max_, value);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::Clear() {
  if (count_ == 0) return;
  counts_.fill(0);
  count_ = 0;
  max_ = 0;
}

apf::Nanos LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  // Nearest rank: the smallest value with at least ceil(q * n) samples at or below it.
  std::uint64_t rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(BucketMiddle(i), max_);
  }
  return max_;
}

}  // namespace sim
