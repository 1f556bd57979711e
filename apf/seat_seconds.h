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
