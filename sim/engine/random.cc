#include "sim/engine/random.h"

#include <cassert>
#include <cmath>

namespace sim {
namespace {

std::uint64_t SplitMix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t Fnv1a64(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

}  // namespace

Random::Random(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : state_) word = SplitMix64(x);
}

Random::Random(std::uint64_t seed, std::string_view stream) {
  std::uint64_t x = seed;
  std::uint64_t mixed = SplitMix64(x) ^ Fnv1a64(stream);
  for (auto& word : state_) word = SplitMix64(mixed);
}

double UniformAt(std::uint64_t seed, std::string_view stream, std::uint64_t n) {
  std::uint64_t x = seed;
  // SplitMix64's state after n steps from the key is key + n * its increment, so the nth
  // output needs no loop.
  std::uint64_t state = (SplitMix64(x) ^ Fnv1a64(stream)) + n * 0x9E3779B97F4A7C15ULL;
  return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53;
}

Random Random::FromState(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3) {
  Random r(0);
  r.state_[0] = s0;
  r.state_[1] = s1;
  r.state_[2] = s2;
  r.state_[3] = s3;
  return r;
}

double Random::Uniform(double low, double high) { return low + (high - low) * Uniform01(); }

std::uint64_t Random::UniformInt(std::uint64_t bound) {
  assert(bound > 0);
  unsigned __int128 m = static_cast<unsigned __int128>(NextU64()) * bound;
  std::uint64_t low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(NextU64()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Random::Normal(double mean, double stddev) {
  // Marsaglia's polar method: only log and sqrt, which every libm rounds correctly or
  // nearly so, unlike the sin and cos of Box-Muller.
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + stddev * spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * Uniform01() - 1.0;
    v = 2.0 * Uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return mean + stddev * u * factor;
}

double Random::LognormalMedianP99(double median, double p99) {
  assert(median > 0 && p99 >= median);
  const double mu = std::log(median);
  const double sigma = (std::log(p99) - mu) / kNormalZ99;
  return std::exp(Normal(mu, sigma));
}

double Random::Pareto(double scale, double shape) {
  return scale / std::pow(UniformOpen0(), 1.0 / shape);
}

std::uint64_t Random::Poisson(double mean) {
  if (mean <= 0) return 0;
  if (mean < 30) {
    // Knuth: multiply uniforms until the product falls below e^-mean.
    const double limit = std::exp(-mean);
    std::uint64_t k = 0;
    double product = Uniform01();
    while (product > limit) {
      ++k;
      product *= Uniform01();
    }
    return k;
  }
  // Hörmann's PTRS (transformed rejection with squeeze), exact for large means.
  const double slam = std::sqrt(mean);
  const double loglam = std::log(mean);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = Uniform01() - 0.5;
    const double v = Uniform01();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
        -mean + k * loglam - std::lgamma(k + 1)) {
      return static_cast<std::uint64_t>(k);
    }
  }
}

}  // namespace sim
