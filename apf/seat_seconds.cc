#include "apf/seat_seconds.h"

#include <cmath>
#include <cstdio>

#include "apf/go_numeric.h"

namespace apf {

SeatSeconds SeatsTimesDuration(double seats, Nanos d) {
  const double product = seats * static_cast<double>(d) / 10;
  if (std::fabs(product) < 0x1p52) {
    // The queue set calls this at every operation, and round() is a library call on
    // baseline x86-64. Below 2^52 the truncation and the fraction x - trunc(x) are exact,
    // so rounding halves away from zero by hand gives round()'s integer.
    auto whole = static_cast<std::int64_t>(product);
    const double fraction = product - static_cast<double>(whole);
    if (fraction >= 0.5) ++whole;
    if (fraction <= -0.5) --whole;
    return static_cast<SeatSeconds>(whole);
  }
  return static_cast<SeatSeconds>(GoFloatToInt64(GoRound(product)));
}

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
