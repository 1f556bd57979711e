#include "sim/io/duration.h"

#include <cstdint>
#include <limits>

namespace sim {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t nanos;
};

constexpr Unit kUnits[] = {
    {"ns", 1},           {"us", 1000},      {"\xC2\xB5s", 1000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1000},                                          // U+03BC Greek mu
    {"ms", 1000000},     {"s", 1000000000}, {"m", 60000000000ULL}, {"h", 3600000000000ULL},
};

bool Fail(std::string* error, std::string why, std::string_view text) {
  if (error) *error = why + " in duration \"" + std::string(text) + "\"";
  return false;
}

}  // namespace

std::optional<apf::Nanos> ParseDuration(std::string_view text, std::string* error) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) {
    Fail(error, "empty value", text);
    return std::nullopt;
  }
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<apf::Nanos>::max());
  std::uint64_t total = 0;
  while (!s.empty()) {
    // The number: digits, optionally a fraction.
    std::uint64_t whole = 0;
    bool any_digits = false;
    size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      any_digits = true;
      if (whole > (kMax - (s[i] - '0')) / 10) {
        Fail(error, "value out of range", text);
        return std::nullopt;
      }
      whole = whole * 10 + (s[i] - '0');
    }
    // Go's leadingFraction: digits are taken while the fraction fits in 63 bits, the
    // scale a float64 power of ten.
    std::uint64_t frac = 0;
    double scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      bool overflow = false;
      for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
        any_digits = true;
        if (overflow) continue;
        if (frac > ((std::uint64_t{1} << 63) - 1) / 10) {
          overflow = true;
          continue;
        }
        const std::uint64_t y = frac * 10 + static_cast<std::uint64_t>(s[i] - '0');
        if (y > std::uint64_t{1} << 63) {
          overflow = true;
          continue;
        }
        frac = y;
        scale *= 10;
      }
    }
    if (!any_digits) {
      Fail(error, "expected a number", text);
      return std::nullopt;
    }
    s.remove_prefix(i);
    // The unit: the longest name that matches.
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (s.substr(0, u.name.size()) == u.name && (!unit || u.name.size() > unit->name.size())) {
        unit = &u;
      }
    }
    if (!unit) {
      // As Go names it: the characters up to the next digit or point ("e" of "1e400s").
      const std::string_view name = s.substr(0, s.find_first_of("0123456789."));
      Fail(error,
           s.empty() ? "missing unit (use ns, us, ms, s, m or h)"
                     : "unknown unit \"" + std::string(name) + "\" (use ns, us, ms, s, m or h)",
           text);
      return std::nullopt;
    }
    s.remove_prefix(unit->name.size());
    if (whole > kMax / unit->nanos) {
      Fail(error, "value out of range", text);
      return std::nullopt;
    }
    std::uint64_t v = whole * unit->nanos;
    // The fraction as time.ParseDuration computes it, in float64 and in this order:
    // uint64(float64(f) * (float64(unit) / scale)). A wider type gives another
    // nanosecond for about 1 input in 2,000 with a long fraction.
    if (frac > 0) {
      const double part = static_cast<double>(frac) * (static_cast<double>(unit->nanos) / scale);
      v += static_cast<std::uint64_t>(part);
    }
    if (v > kMax || total > kMax - v) {
      Fail(error, "value out of range", text);
      return std::nullopt;
    }
    total += v;
  }
  apf::Nanos result = static_cast<apf::Nanos>(total);
  return negative ? -result : result;
}

std::string GoParseDurationError(std::string_view text) {
  std::string quoted(1, '"');
  quoted.append(text);
  quoted += '"';
  const std::string invalid = "time: invalid duration " + quoted;
  // time.ParseDuration's scan: a sign, then numbers each followed by a unit, the unit
  // being every character up to the next digit or '.'.
  std::string_view s = text;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return invalid;
  const auto is_number_char = [](char c) { return c == '.' || (c >= '0' && c <= '9'); };
  while (!s.empty()) {
    size_t i = 0;
    bool digits = false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits = true;
    if (i < s.size() && s[i] == '.') {
      for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits = true;
    }
    if (!digits) return invalid;
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && !is_number_char(s[u])) ++u;
    if (u == 0) return "time: missing unit in duration " + quoted;
    const std::string_view unit = s.substr(0, u);
    bool known = false;
    for (const Unit& k : kUnits) known = known || k.name == unit;
    if (!known) return "time: unknown unit \"" + std::string(unit) + "\" in duration " + quoted;
    s.remove_prefix(u);
  }
  return invalid;  // every unit known: the value overflows
}

namespace {

// Appends v / 10^prec with prec decimals, trailing zeros (and a bare point) dropped.
void AppendFraction(std::string& out, std::uint64_t v, int prec) {
  std::string digits;
  bool printing = false;
  for (int i = 0; i < prec; ++i) {
    int digit = static_cast<int>(v % 10);
    printing = printing || digit != 0;
    if (printing) digits.insert(digits.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  out += std::to_string(v);
  if (!digits.empty()) out += "." + digits;
}

}  // namespace

std::string FormatDuration(apf::Nanos d) {
  if (d == 0) return "0s";
  std::string out;
  std::uint64_t u =
      d < 0 ? static_cast<std::uint64_t>(-(d + 1)) + 1 : static_cast<std::uint64_t>(d);
  if (d < 0) out += "-";
  if (u < 1000000000ULL) {
    // Below a second Go picks the largest of ns, µs, ms that keeps a non-zero integer part.
    if (u < 1000) return out + std::to_string(u) + "ns";
    if (u < 1000000) {
      AppendFraction(out, u, 3);
      return out + "\xC2\xB5s";
    }
    AppendFraction(out, u, 6);
    return out + "ms";
  }
  std::uint64_t hours = u / 3600000000000ULL;
  std::uint64_t rest = u % 3600000000000ULL;
  std::uint64_t minutes = rest / 60000000000ULL;
  std::uint64_t seconds_ns = rest % 60000000000ULL;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  AppendFraction(out, seconds_ns, 9);
  return out + "s";
}

std::string FormatSeconds(apf::Nanos d) {
  std::string out;
  std::uint64_t u =
      d < 0 ? static_cast<std::uint64_t>(-(d + 1)) + 1 : static_cast<std::uint64_t>(d);
  if (d < 0) out += "-";
  AppendFraction(out, u, 9);
  return out;
}

}  // namespace sim
