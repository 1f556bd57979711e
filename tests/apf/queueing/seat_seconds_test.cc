// SeatSeconds arithmetic, against the spot values of doc/model.md appendix A and the
// conventions of section 0.2.
#include "apf/queueing/seat_seconds.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "apf/base/go_numeric.h"

using apf::kMillisecond;
using apf::kSecond;

TEST_CASE("SeatSeconds spot values of appendix A", "[seatseconds]") {
  // The queue set's fixed service estimate G is 3 ms.
  CHECK(apf::SeatsTimesDuration(1, 3 * kMillisecond) == 300000);
  CHECK(apf::SeatSecondsString(300000) == "0.00300000ss");
  CHECK(apf::SeatsTimesDuration(10, 3 * kMillisecond) == 3000000);
  // A write of {1 seat, final 10 seats for 50 ms}: 300 000 + 50 000 000 units.
  CHECK(apf::SeatsTimesDuration(1, 3 * kMillisecond) +
            apf::SeatsTimesDuration(10, 50 * kMillisecond) ==
        50300000);
  // R at ratio 600 for one second advances 600 seat-seconds.
  CHECK(apf::SeatsTimesDuration(600, kSecond) == 60000000000ULL);
  CHECK(apf::SeatSecondsString(60000000000ULL) == "600.00000000ss");
}

TEST_CASE("SeatsTimesDuration rounds half away from zero and wraps negatives", "[seatseconds]") {
  CHECK(apf::SeatsTimesDuration(1, 15) == 2);  // 1.5 units -> 2
  CHECK(apf::SeatsTimesDuration(1, 25) == 3);  // 2.5 units -> 3, not banker's 2
  CHECK(apf::SeatsTimesDuration(1, -25) == static_cast<apf::SeatSeconds>(-3));  // wraps
  apf::SeatSeconds r = 1000;
  r -= apf::SeatsTimesDuration(1, -100);  // subtracting a wrapped -10 adds 10
  CHECK(r == 1010);
}

TEST_CASE("DurationPerSeat truncates toward zero", "[seatseconds]") {
  // 50 000 000 units over 10 seats is 5 seat-... 0.5 s / 10 = 50 ms.
  CHECK(apf::DurationPerSeat(50000000, 10) == 50 * kMillisecond);
  CHECK(apf::DurationPerSeat(50000000, 3) == 166666666);  // 166666666.67 truncated
}

TEST_CASE("SeatsTimesDuration agrees with the rounding of queueset.go on random products",
          "[seatseconds][property]") {
  // The reference is the Go expression uint64(int64(math.Round(seats * float64(d) / 10)))
  // spelled with C's round, which also halves away from zero; the fast path rounds by hand.
  std::uint64_t state = 88172645463325252ULL;  // xorshift64, a fixed seed
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 200000; ++i) {
    const double seats = static_cast<double>(next() % 2000) / (1 + next() % 8);
    const std::int64_t magnitude = static_cast<std::int64_t>(next() >> (next() % 64));
    const apf::Nanos d = (next() & 1) ? magnitude : -magnitude;
    const double product = seats * static_cast<double>(d) / 10;
    const auto expected = static_cast<apf::SeatSeconds>(apf::GoFloatToInt64(std::round(product)));
    REQUIRE(apf::SeatsTimesDuration(seats, d) == expected);
  }
  // Exact halves either side of zero.
  CHECK(apf::SeatsTimesDuration(1, 5) == 1);                                   // 0.5 -> 1
  CHECK(apf::SeatsTimesDuration(1, -5) == static_cast<apf::SeatSeconds>(-1));  // -0.5 -> -1
  CHECK(apf::SeatsTimesDuration(1, 15) == 2);                                  // 1.5 -> 2
}

TEST_CASE("WholeSeatsTimesDuration is SeatsTimesDuration for whole seats, either side of 2^50",
          "[seatseconds][property]") {
  // The integer path must give the float64 expression's answer wherever it is taken, and
  // hand the rest to it: random seats and durations of every magnitude and sign, products
  // just below and above 2^50 in magnitude, and exact halves.
  std::uint64_t state = 2718281828459045235ULL;  // xorshift64, a fixed seed
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 400000; ++i) {
    const std::uint64_t seats = next() >> (next() % 64);
    const std::int64_t magnitude = static_cast<std::int64_t>(next() >> (1 + next() % 63));
    const apf::Nanos d = (next() & 1) ? magnitude : -magnitude;
    REQUIRE(apf::WholeSeatsTimesDuration(seats, d) ==
            apf::SeatsTimesDuration(static_cast<double>(seats), d));
  }
  const std::int64_t edge = std::int64_t{1} << 50;
  for (std::int64_t p = edge - 40; p <= edge + 40; ++p) {
    for (const apf::Nanos d : {p, -p}) {
      REQUIRE(apf::WholeSeatsTimesDuration(1, d) == apf::SeatsTimesDuration(1, d));
      REQUIRE(apf::WholeSeatsTimesDuration(2, d / 2) == apf::SeatsTimesDuration(2, d / 2));
    }
  }
  CHECK(apf::WholeSeatsTimesDuration(1, 5) == 1);                                    // 0.5 -> 1
  CHECK(apf::WholeSeatsTimesDuration(1, -5) == static_cast<apf::SeatSeconds>(-1));   // -0.5
  CHECK(apf::WholeSeatsTimesDuration(3, 5) == 2);                                    // 1.5 -> 2
  CHECK(apf::WholeSeatsTimesDuration(1, -14) == static_cast<apf::SeatSeconds>(-1));  // -1.4
  CHECK(apf::WholeSeatsTimesDuration(0, -7) == 0);
}
