#include "sim/scenario/spec_values.h"

#include <filesystem>

namespace sim {

namespace fs = std::filesystem;

DurationDistribution ReadDistribution(const YamlValue& v) {
  DurationDistribution d;
  if (v.IsScalar()) {
    d.kind = DurationDistribution::Kind::kConstant;
    d.value = v.Duration();
    return d;
  }
  YamlMap m = v.Map();
  int kinds = 0;
  if (auto c = m.Optional("constant")) {
    d.kind = DurationDistribution::Kind::kConstant;
    d.value = c->Duration();
    ++kinds;
  }
  if (auto e = m.Optional("exponential")) {
    d.kind = DurationDistribution::Kind::kExponential;
    d.value = e->Duration();
    ++kinds;
  }
  if (auto l = m.Optional("lognormal")) {
    YamlMap lm = l->Map();
    d.kind = DurationDistribution::Kind::kLognormal;
    d.value = lm.Required("median").Duration();
    d.value2 = lm.Required("p99").Duration();
    if (d.value <= 0) lm.Required("median").Fail("must be positive");
    if (d.value2 < d.value) lm.Required("p99").Fail("must be at least the median");
    lm.Finish();
    ++kinds;
  }
  if (auto u = m.Optional("uniform")) {
    YamlMap um = u->Map();
    d.kind = DurationDistribution::Kind::kUniform;
    d.value = um.Required("min").Duration();
    d.value2 = um.Required("max").Duration();
    if (d.value2 < d.value) um.Required("max").Fail("must be at least min");
    um.Finish();
    ++kinds;
  }
  m.Finish();
  if (kinds != 1) v.Fail("expected exactly one of constant, exponential, lognormal, uniform");
  if (d.value < 0) v.Fail("durations must not be negative");
  return d;
}

// Every rate becomes a wait of 1/rate seconds, converted to int64 nanoseconds and added to
// the clock: below one per 11 days (1e-6 per second) the wait, or a random one drawn
// around it, could overflow, and a rate that small is surely a typo for something else.
void ReadWindow(const YamlValue& v, apf::Nanos duration, apf::Nanos* from, apf::Nanos* to) {
  YamlMap w = v.Map();
  *from = w.DurationOr("from", 0);
  if (*from < 0 || *from >= duration) w.Required("from").Fail("must be within the run's duration");
  *to = apf::kNever;
  if (auto t = w.Optional("to")) {
    *to = t->Duration();
    if (*to <= *from || *to > duration) {
      t->Fail("must be after `from` and not after the run's duration");
    }
  }
  w.Finish();
}

void CheckRateNotTiny(const YamlValue& v, double rate) {
  if (rate > 0 && rate < 1e-6) {
    v.Fail(
        "a rate below 1e-6 per second (one in 11 days) is surely a typo; the wait between "
        "two calls would overflow the clock");
  }
}

std::string ResolveScenarioFile(const YamlValue& v, const std::string& scenario_file) {
  const fs::path name = v.String();
  const fs::path full = name.is_absolute() ? name : fs::path(scenario_file).parent_path() / name;
  if (!fs::exists(full)) v.Fail("no such file: " + full.string());
  if (fs::is_directory(full)) {
    v.Fail(full.lexically_normal().string() + " is a directory, not a file");
  }
  return full.lexically_normal().string();
}

// A name is printed in tables, CSV files and JUnit reports: it must not hold characters
// that do not show or that reorder the text around them ("Trojan Source", CVE-2021-42574):
// C0 and C1 controls and Unicode's bidirectional formatting characters. Returns what is
// wrong, or "".
std::string InvisibleCharacterIn(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) return "must not contain control characters";
    if (c == 0xC2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) < 0xA0) {
      return "must not contain control characters";  // U+0080..U+009F
    }
    // U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 are E2 80 8E/8F, E2 80 AA..AE,
    // E2 81 A6..A9 in UTF-8.
    if (c == 0xE2 && i + 2 < name.size()) {
      const auto b1 = static_cast<unsigned char>(name[i + 1]);
      const auto b2 = static_cast<unsigned char>(name[i + 2]);
      if ((b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE))) ||
          (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9)) {
        return "must not contain bidirectional formatting characters (U+200E, U+200F, "
               "U+202A to U+202E, U+2066 to U+2069), which make it print other than it reads";
      }
    }
  }
  return "";
}

}  // namespace sim
