// Durations parse and print as Go's time.ParseDuration and Duration.String do; the
// expected strings are Go's own outputs for the same values.
#include "sim/io/duration.h"

#include <catch2/catch.hpp>
#include <string>

using apf::kMillisecond;
using apf::kSecond;
using sim::FormatDuration;
using sim::ParseDuration;

TEST_CASE("durations parse like Go's time.ParseDuration", "[duration]") {
  CHECK(ParseDuration("250ms") == 250 * kMillisecond);
  CHECK(ParseDuration("1.5s") == 1500 * kMillisecond);
  CHECK(ParseDuration("5m") == 300 * kSecond);
  CHECK(ParseDuration("2h") == 7200 * kSecond);
  CHECK(ParseDuration("5m0.5s") == 300 * kSecond + 500 * kMillisecond);
  CHECK(ParseDuration("1h2m3s4ms5us6ns") == 3723004005006);
  CHECK(ParseDuration("0") == 0);
  CHECK(ParseDuration("-1.5s") == -1500 * kMillisecond);
  CHECK(ParseDuration(".5s") == 500 * kMillisecond);
  CHECK(ParseDuration("1.000000001s") == 1000000001);
  CHECK(ParseDuration("3\xC2\xB5s") == 3000);
  CHECK(ParseDuration("2562047h") == 2562047LL * 3600 * kSecond);  // near Go's max
}

TEST_CASE("bad durations say what is wrong", "[duration]") {
  std::string why;
  CHECK_FALSE(ParseDuration("15", &why));
  CHECK(why == "missing unit (use ns, us, ms, s, m or h) in duration \"15\"");
  CHECK_FALSE(ParseDuration("5 minutes", &why));
  CHECK(why == "unknown unit \" minutes\" (use ns, us, ms, s, m or h) in duration \"5 minutes\"");
  // Go's time.ParseDuration("1e400s"): `unknown unit "e" in duration "1e400s"`.
  CHECK_FALSE(ParseDuration("1e400s", &why));
  CHECK(why == "unknown unit \"e\" (use ns, us, ms, s, m or h) in duration \"1e400s\"");
  CHECK_FALSE(ParseDuration("", &why));
  CHECK(why == "empty value in duration \"\"");
  CHECK_FALSE(ParseDuration("s", &why));
  CHECK(why == "expected a number in duration \"s\"");
  CHECK_FALSE(ParseDuration("9999999999h", &why));
  CHECK(why == "value out of range in duration \"9999999999h\"");
}

TEST_CASE("durations print like Go's Duration.String", "[duration]") {
  CHECK(FormatDuration(0) == "0s");
  CHECK(FormatDuration(1) == "1ns");
  CHECK(FormatDuration(1500) == "1.5\xC2\xB5s");
  CHECK(FormatDuration(250 * kMillisecond) == "250ms");
  CHECK(FormatDuration(1500 * kMillisecond) == "1.5s");
  CHECK(FormatDuration(300 * kSecond) == "5m0s");
  CHECK(FormatDuration(300 * kSecond + 500 * kMillisecond) == "5m0.5s");
  CHECK(FormatDuration(7200 * kSecond) == "2h0m0s");
  CHECK(FormatDuration(-1500 * kMillisecond) == "-1.5s");
  CHECK(sim::FormatSeconds(12500 * kMillisecond) == "12.5");
  CHECK(sim::FormatSeconds(1) == "0.000000001");
}

TEST_CASE("printing then parsing gives the same duration", "[duration][property]") {
  for (apf::Nanos d : {apf::Nanos{1}, apf::Nanos{999}, apf::Nanos{1001}, apf::Nanos{123456789},
                       apf::Nanos{3723004005006}, apf::Nanos{86400} * kSecond + 1}) {
    CHECK(ParseDuration(FormatDuration(d)) == d);
  }
}

TEST_CASE("long fractions give the nanosecond time.ParseDuration gives", "[duration]") {
  // Go computes a fraction's nanoseconds as uint64(float64(f) * (float64(unit) / scale))
  // (src/time/format.go ParseDuration), f the fraction's digits taken while they fit in
  // 63 bits and scale a float64 power of ten. The expected values below are that formula
  // in IEEE double arithmetic (Python's float is the same type):
  //   0.60815753105h: 60815753105 * (3.6e12 / 1e11 = 36) = 2189367111780 exactly (the
  //     former long double f * unit / scale lost a unit: 2189367111779);
  //   0.02867190211000h: 2867190211000 * (3.6e12 / 1e14) = 103218847595.99999..., so
  //     103218847595, where exact arithmetic gives 103218847596: Go's answer is kept;
  //   0.38276952830000m: 38276952830000 * (6e10 / 1e14) -> 22966171697 (exact: ...698).
  CHECK(ParseDuration("0.60815753105h") == 2189367111780);
  CHECK(ParseDuration("0.02867190211000h") == 103218847595);
  CHECK(ParseDuration("0.38276952830000m") == 22966171697);
  // Digits past what 63 bits hold are read and ignored (leadingFraction's overflow): f is
  // 1234567890123456789 (19 digits) and scale 1e19, 123456789.01... ns.
  CHECK(ParseDuration("1.12345678901234567890123s") == kSecond + 123456789);
  CHECK(ParseDuration("1.5s") == 1500 * kMillisecond);
}
