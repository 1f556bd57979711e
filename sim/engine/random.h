// Seeded random numbers that are the same on every compiler and standard library:
// xoshiro256** (Blackman and Vigna) for the bits and our own code for every
// distribution, because std:: distributions differ between library implementations.
//
// A scenario's seed and a stream name (a client's name, "replica-0/service-time", ...)
// give an independent stream, so adding a client to a scenario does not change the
// numbers any other client draws, and two configurations compare on identical traffic.
#ifndef SIM_ENGINE_RANDOM_H_
#define SIM_ENGINE_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <string_view>

namespace sim {

class Random {
 public:
  // A stream seeded directly; for tests and for deriving streams.
  explicit Random(std::uint64_t seed);
  // The stream named `stream` of the run seeded with `seed`.
  Random(std::uint64_t seed, std::string_view stream);
  // A generator in exactly this xoshiro256** state (not all zero); for test vectors.
  static Random FromState(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3);

  // Inline, with the draws built on it: a simulated request takes several, and a call
  // would cost as much as the draw.
  std::uint64_t NextU64() {
    const std::uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the logarithm of.
  double UniformOpen0() { return static_cast<double>((NextU64() >> 11) + 1) * 0x1.0p-53; }
  double Uniform(double low, double high);
  // Uniform integer in [0, bound), without modulo bias (Lemire's method). bound > 0.
  std::uint64_t UniformInt(std::uint64_t bound);

  double Exponential(double rate) { return -std::log(UniformOpen0()) / rate; }  // mean 1/rate
  double Normal(double mean, double stddev);
  // Lognormal given by its median and 99th percentile (p99 >= median > 0), the way
  // people describe latencies.
  double LognormalMedianP99(double median, double p99);
  double Pareto(double scale, double shape);  // x_m and alpha; support [scale, inf)
  std::uint64_t Poisson(double mean);

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t state_[4];
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

// A number in [0, 1) fixed by (seed, stream, n) alone, not drawn from any stream: a
// decision made from it (which calls --trace-sample keeps) changes no other number of the
// run, and the same n gets the same number whatever was decided before it. It is the
// (n+1)th output of SplitMix64 from a key mixed of the seed and the stream's name.
double UniformAt(std::uint64_t seed, std::string_view stream, std::uint64_t n);

// The z-score of the 99th percentile of the standard normal distribution.
inline constexpr double kNormalZ99 = 2.3263478740408408;

}  // namespace sim

#endif  // SIM_ENGINE_RANDOM_H_
