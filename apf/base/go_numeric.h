// Go's numeric conversions, as the models need them to reproduce kube-apiserver's and
// client-go's arithmetic bit for bit: time.Duration.Seconds(), time.Duration(f) and
// int64(f) truncation, math.Round, uint64(f) as amd64 compiles it, and time.Time.Add. One place for
// each, so that every model spells a conversion the same way; C++'s own casts differ
// from Go's at the edges (out of range, NaN) and C's rounding functions are not all Go's.
//
// Tested by tests/apf/base/go_numeric_test.cc.
#ifndef APF_BASE_GO_NUMERIC_H_
#define APF_BASE_GO_NUMERIC_H_

#include <cmath>
#include <cstdint>

#include "apf/base/virtual_time.h"

namespace apf {

// time.Duration.Seconds(): whole seconds plus the remainder, each converted separately,
// so 10 s + 1 ns is exactly 10.000000001 (one float64 division of the count would not be).
inline double GoDurationSeconds(Nanos d) {
  // Under a second the whole part is 0, and 0 + x is x: one conversion and one division
  // (the seat demand integrator takes this path at almost every change).
  if (static_cast<std::uint64_t>(d) < static_cast<std::uint64_t>(kSecond)) {
    return static_cast<double>(d) / 1e9;
  }
  const Nanos sec = d / kSecond;
  const Nanos nsec = d % kSecond;
  return static_cast<double>(sec) + static_cast<double>(nsec) / 1e9;
}

// Go's math.Round: halves away from zero (24.5 -> 25, -24.5 -> -25), as C's round does.
inline double GoRound(double x) { return std::round(x); }

// Go's int64(f), and so time.Duration(f): truncation toward zero, for the finite,
// in-range values the models produce; out-of-range values saturate and NaN gives 0
// instead of being undefined behaviour.
inline std::int64_t GoFloatToInt64(double f) {
  if (std::isnan(f)) return 0;
  if (f >= 9223372036854775807.0) return INT64_MAX;
  if (f <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<std::int64_t>(f);
}

// int64(math.Round(x)), as the concurrency allocation rounds its shares.
inline std::int64_t GoRoundToInt(double x) { return GoFloatToInt64(GoRound(x)); }

// Go's uint64(f) as compiled for amd64 (the work estimators' uint64(math.Ceil(...))),
// cmd/compile's floatToUint: below 2^63 through int64 (a negative value wraps; one below
// -2^63 gives CVTTSD2SQ's "integer indefinite" 2^63), otherwise int64(f - 2^63) with the
// top bit or-ed in (so NaN and values from 2^64 up give 2^63). Only reachable with
// negative or absurd statistics; real ones give small non-negative values.
inline std::uint64_t GoFloat64ToUint64(double f) {
  constexpr double kTwo63 = 9223372036854775808.0;
  auto to_int64 = [](double x) -> std::int64_t {
    if (!(x >= -kTwo63 && x < kTwo63)) return INT64_MIN;  // CVTTSD2SQ's "integer indefinite"
    return static_cast<std::int64_t>(x);
  };
  if (f < kTwo63) return static_cast<std::uint64_t>(to_int64(f));
  return static_cast<std::uint64_t>(to_int64(f - kTwo63)) | (std::uint64_t{1} << 63);
}

// time.Time.Add on virtual instants, saturating at kNever where Go's would overflow (only
// an InfDuration, "never", gets that far).
inline Nanos AddSaturating(Nanos t, Nanos d) {
  if (d > 0 && t > kNever - d) return kNever;
  return t + d;
}

}  // namespace apf

#endif  // APF_BASE_GO_NUMERIC_H_
