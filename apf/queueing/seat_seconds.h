// SeatSeconds: the unit of work in APF's fair queuing, an unsigned 64-bit fixed-point
// count of 1e-8 seat-seconds (one unit is one seat held for 10 ns), mirroring
// k8s.io/apiserver pkg/util/flowcontrol/request/seat_seconds.go.
//
// Arithmetic on SeatSeconds wraps modulo 2^64 exactly as Go's uint64 does; the queue set
// relies on that (subtracting a wrapped negative amount adds its magnitude).
#ifndef APF_QUEUEING_SEAT_SECONDS_H_
#define APF_QUEUEING_SEAT_SECONDS_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "apf/base/go_numeric.h"
#include "apf/base/virtual_time.h"

namespace apf {

using SeatSeconds = std::uint64_t;

inline constexpr SeatSeconds kMinSeatSeconds = 0;
inline constexpr SeatSeconds kMaxSeatSeconds = UINT64_MAX;
inline constexpr double kSeatSecondsScale = 1e8;  // units per seat-second

// uint64(int64(math.Round(seats * float64(d) / 10))): a negative product wraps. Inline:
// the queue set advances R with it at every operation that finds time has passed.
inline SeatSeconds SeatsTimesDuration(double seats, Nanos d) {
  const double product = seats * static_cast<double>(d) / 10;
  if (std::fabs(product) < 0x1p52) {
    // round() is a library call on baseline x86-64. Below 2^52 the truncation and the
    // fraction x - trunc(x) are exact, so rounding halves away from zero by hand gives
    // round()'s integer.
    auto whole = static_cast<std::int64_t>(product);
    const double fraction = product - static_cast<double>(whole);
    if (fraction >= 0.5) ++whole;
    if (fraction <= -0.5) --whole;
    return static_cast<SeatSeconds>(whole);
  }
  return static_cast<SeatSeconds>(GoFloatToInt64(GoRound(product)));
}

// The same for a whole number of seats, in integers while that is exact: below 2^50 in
// magnitude the product seats * d is exact in float64 and its float64 tenth lies within
// 1/64 of the true quotient, whose fraction is a multiple of 0.1; so the rounding sees the
// same side of every half, and an exact half is exact in both. The queue set calls this
// at every finish.
inline SeatSeconds WholeSeatsTimesDuration(std::uint64_t seats, Nanos d) {
  auto rounded_tenth = [](std::int64_t p) {
    return static_cast<SeatSeconds>(p >= 0 ? (p + 5) / 10 : -((5 - p) / 10));
  };
  // The usual operands (under 2^13 seats, under 2^37 ns either way) bound the product by
  // 2^50 with two compares; only others need the 128-bit product to tell.
  if (seats < (std::uint64_t{1} << 13) &&
      static_cast<std::uint64_t>(d) + (std::uint64_t{1} << 37) < (std::uint64_t{1} << 38)) {
    return rounded_tenth(static_cast<std::int64_t>(seats) * d);
  }
  const __int128 product = static_cast<__int128>(seats) * d;
  constexpr __int128 kExact = __int128{1} << 50;
  if (product > -kExact && product < kExact) {
    return rounded_tenth(static_cast<std::int64_t>(product));
  }
  return SeatsTimesDuration(static_cast<double>(seats), d);
}

// Duration(float64(ss) / seats * 10), truncated toward zero: how long `seats` seats
// take to do `ss` of work.
Nanos DurationPerSeat(SeatSeconds ss, double seats);

inline double SeatSecondsToFloat(SeatSeconds ss) {
  return static_cast<double>(ss) / kSeatSecondsScale;
}

// The Go String() form, "<whole>.<8 digits>ss", as the debug dumps print it.
std::string SeatSecondsString(SeatSeconds ss);

}  // namespace apf

#endif  // APF_QUEUEING_SEAT_SECONDS_H_
