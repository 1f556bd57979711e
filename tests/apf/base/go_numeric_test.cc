// Go's numeric conversions (apf/base/go_numeric.h). Each expected value is what the Go
// expression in the test's name gives on amd64 (Go spec "Conversions between numeric
// types", time.Duration.Seconds, math.Round).
#include "apf/base/go_numeric.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

using apf::kSecond;

TEST_CASE("Duration.Seconds splits whole seconds from the remainder", "[go_numeric]") {
  CHECK(apf::GoDurationSeconds(1500000000) == 1.5);
  // float64(10) + float64(1)/1e9 is 10.000000001 exactly as that literal rounds; one
  // division 10000000001/1e9 also happens to agree, but the split is what Go does.
  CHECK(apf::GoDurationSeconds(10 * kSecond + 1) == 10.000000001);
  // Both parts carry the sign (Go's / and % truncate toward zero).
  CHECK(apf::GoDurationSeconds(-1500000000) == -1.5);
}

TEST_CASE("math.Round halves away from zero", "[go_numeric]") {
  CHECK(apf::GoRound(24.5) == 25);
  CHECK(apf::GoRound(-24.5) == -25);
  CHECK(apf::GoRound(2.5) == 3);  // math.RoundToEven would give 2
  CHECK(apf::GoRoundToInt(2.5) == 3);
  CHECK(apf::GoRoundToInt(-0.4) == 0);
}

TEST_CASE("int64(f) and time.Duration(f) truncate toward zero", "[go_numeric]") {
  CHECK(apf::GoFloatToInt64(1.9) == 1);
  CHECK(apf::GoFloatToInt64(-1.9) == -1);
  CHECK(apf::GoFloatToInt64(333333333.9) == 333333333);
  // Out of range Go's result is implementation-specific; here it saturates (and NaN is
  // 0) so that no caller hits undefined behaviour.
  CHECK(apf::GoFloatToInt64(1e300) == INT64_MAX);
  CHECK(apf::GoFloatToInt64(-1e300) == INT64_MIN);
  CHECK(apf::GoFloatToInt64(std::nan("")) == 0);
}

TEST_CASE("uint64(f) on amd64 goes through int64 below 2^63", "[go_numeric]") {
  constexpr std::uint64_t kTwo63 = std::uint64_t{1} << 63;
  CHECK(apf::GoFloat64ToUint64(3.0) == 3);
  // uint64(-1.0) on amd64 is CVTTSD2SQ's -1 reinterpreted: 2^64 - 1.
  CHECK(apf::GoFloat64ToUint64(-1.0) == std::numeric_limits<std::uint64_t>::max());
  // From 2^63 up the compiler subtracts 2^63, converts, and sets the top bit back.
  CHECK(apf::GoFloat64ToUint64(9223372036854775808.0) == kTwo63);
  CHECK(apf::GoFloat64ToUint64(9223372036854777856.0) == kTwo63 + 2048);
  // NaN is not below 2^63, and NaN - 2^63 converts to CVTTSD2SQ's "integer indefinite"
  // 0x8000000000000000, with the top bit or-ed in: 2^63. So is anything from 2^64 up.
  CHECK(apf::GoFloat64ToUint64(std::nan("")) == kTwo63);
  CHECK(apf::GoFloat64ToUint64(1e30) == kTwo63);
  // Below -2^63 the int64 conversion is out of range: integer indefinite again.
  CHECK(apf::GoFloat64ToUint64(-1e30) == kTwo63);
}

TEST_CASE("time.Time.Add saturates at the end of virtual time", "[go_numeric]") {
  CHECK(apf::AddSaturating(5 * kSecond, kSecond) == 6 * kSecond);
  CHECK(apf::AddSaturating(5 * kSecond, -kSecond) == 4 * kSecond);
  // rate.InfDuration (MaxInt64) added to any instant after 0 would overflow: "never".
  CHECK(apf::AddSaturating(1, apf::kNever) == apf::kNever);
  CHECK(apf::AddSaturating(apf::kNever - 1, 2) == apf::kNever);
}
