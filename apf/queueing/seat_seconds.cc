#include "apf/queueing/seat_seconds.h"

#include <cmath>
#include <cstdio>

#include "apf/base/go_numeric.h"

namespace apf {

Nanos DurationPerSeat(SeatSeconds ss, double seats) {
  return GoFloatToInt64(static_cast<double>(ss) / seats * 10);
}

std::string SeatSecondsString(SeatSeconds ss) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%llu.%08lluss", static_cast<unsigned long long>(ss / 100000000),
                static_cast<unsigned long long>(ss % 100000000));
  return buf;
}

}  // namespace apf
