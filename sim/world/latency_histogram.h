// A fixed-memory histogram of durations with about 1.6% relative precision, for the
// wait and latency percentiles of reports. Memory does not grow with the number of
// samples (a day of traffic must not need a day's worth of RAM), and it is exact and
// deterministic: integer buckets, no sampling.
//
// Buckets are log-linear: values below 64 ns have a bucket each; above, each power of
// two is split into 64 equal sub-buckets.
#ifndef SIM_WORLD_LATENCY_HISTOGRAM_H_
#define SIM_WORLD_LATENCY_HISTOGRAM_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "apf/base/virtual_time.h"

namespace sim {

class LatencyHistogram {
 public:
  // Inline: a request adds to about ten histograms on its way (waits, latencies, per
  // interval and per window), the call would cost as much as the work.
  void Add(apf::Nanos value) {
    if (value < 0) value = 0;
    const int bucket = BucketOf(static_cast<std::uint64_t>(value));
    ++counts_[bucket];
    lo_ = std::min(lo_, bucket);
    hi_ = std::max(hi_, bucket);
    ++count_;
    max_ = std::max(max_, value);
  }
  void Merge(const LatencyHistogram& other);
  void Clear();

  std::uint64_t count() const { return count_; }
  apf::Nanos max() const { return max_; }
  // The q-quantile (0 <= q <= 1) by the nearest-rank method, reported as the middle of its
  // bucket (the exact value for the smallest buckets); 0 when empty. The maximum is exact.
  apf::Nanos Quantile(double q) const;

 private:
  static constexpr int kSubBits = 6;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = kSub * (64 - kSubBits + 1);
  static int BucketOf(std::uint64_t v) {
    if (v < kSub) return static_cast<int>(v);
    const int exponent = std::bit_width(v) - 1;  // >= kSubBits
    const int shift = exponent - kSubBits;
    const int sub = static_cast<int>((v >> shift) & (kSub - 1));
    return (shift + 1) * kSub + sub;
  }
  static apf::Nanos BucketMiddle(int bucket);

  std::array<std::uint32_t, kBuckets> counts_{};
  // The lowest and highest occupied buckets (lo_ > hi_ when empty): Quantile, Merge and
  // Clear touch only this span, not all the buckets, which matters when a report takes
  // percentiles of many histograms every interval.
  int lo_ = kBuckets;
  int hi_ = -1;
  std::uint64_t count_ = 0;
  apf::Nanos max_ = 0;
};

}  // namespace sim

#endif  // SIM_WORLD_LATENCY_HISTOGRAM_H_
