// SeatSeconds: the unit of work in APF's fair queuing, an unsigned 64-bit fixed-point
// count of 1e-8 seat-seconds (one unit is one seat held for 10 ns), mirroring
// k8s.io/apiserver pkg/util/flowcontrol/request/seat_seconds.go.
//
// Arithmetic on SeatSeconds wraps modulo 2^64 exactly as Go's uint64 does; the queue set
// relies on that (subtracting a wrapped negative amount adds its magnitude).
#ifndef APF_SEAT_SECONDS_H_
#define APF_SEAT_SECONDS_H_

#include <cstdint>
#include <string>

#include "apf/virtual_time.h"

namespace apf {

using SeatSeconds = std::uint64_t;

inline constexpr SeatSeconds kMinSeatSeconds = 0;
inline constexpr SeatSeconds kMaxSeatSeconds = UINT64_MAX;
inline constexpr double kSeatSecondsScale = 1e8;  // units per seat-second

// uint64(int64(math.Round(seats * float64(d) / 10))): a negative product wraps.
SeatSeconds SeatsTimesDuration(double seats, Nanos d);

// The same for a whole number of seats, in integers while that is exact: below 2^50 in
// magnitude the product seats * d is exact in float64 and its float64 tenth lies within
// 1/64 of the true quotient, whose fraction is a multiple of 0.1; so the rounding sees the
// same side of every half, and an exact half is exact in both. The queue set calls this
// at every finish.
inline SeatSeconds WholeSeatsTimesDuration(std::uint64_t seats, Nanos d) {
  const __int128 product = static_cast<__int128>(seats) * d;
  constexpr __int128 kExact = __int128{1} << 50;
  if (product > -kExact && product < kExact) {
    const auto p = static_cast<std::int64_t>(product);
    return static_cast<SeatSeconds>(p >= 0 ? (p + 5) / 10 : -((5 - p) / 10));
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

#endif  // APF_SEAT_SECONDS_H_
