#include "sim/scenario/expectation_reader.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "sim/scenario/expectation_paths.h"
#include "sim/scenario/spec_values.h"

namespace sim {

namespace {

// The digits after the point of a number as written: "600" 0, "0.25" 2, "1e3" -1.
int DecimalsWritten(const std::string& text) {
  if (text.find_first_of("eE") != std::string::npos) return -1;
  const std::size_t point = text.find('.');
  return point == std::string::npos ? 0 : static_cast<int>(text.size() - point - 1);
}

}  // namespace

Expectation ReadExpectation(const YamlValue& v, const Scenario& s) {
  YamlMap m = v.Map();
  YamlValue path = m.Required("path");
  const std::string path_text = path.String();
  std::optional<YamlValue> window = m.Optional("window");
  Expectation e;
  const std::string error = ParseExpectationPath(path_text, window.has_value(), &e);
  if (!error.empty()) path.Fail(error);
  e.path = path_text;
  e.where = v.where();
  if (e.section == "clients") {
    bool known = false;
    for (const ClientSpec& c : s.clients) known = known || c.name == e.subject;
    if (!known) {
      std::vector<std::string> names;
      for (const ClientSpec& c : s.clients) names.push_back(c.name);
      path.Fail("no client \"" + e.subject + "\" in spec.clients" + DidYouMean(e.subject, names));
    }
  }
  if (e.section == "gateway" && !s.gateway.enabled) path.Fail("this scenario has no spec.gateway");
  int ops = 0;
  for (const char* op : {"==", "!=", "<", "<=", ">", ">="}) {
    if (auto value = m.Optional(op)) {
      if (++ops > 1) value->Fail("an assertion has exactly one comparison");
      e.op = *ParseExpectationOp(op);
      e.value = value->Number();
      if (!std::isfinite(e.value)) value->Fail("must be a finite number");
      e.value_decimals = DecimalsWritten(value->Text());
    }
  }
  e.description = m.StringOr("description", "");
  if (auto seeds = m.Optional("seeds")) {
    const std::string mode = seeds->String();
    char* end = nullptr;
    const double percent = std::strtod(mode.c_str(), &end);
    const bool share = mode.size() > 1 && mode.back() == '%' &&
                       std::isdigit(static_cast<unsigned char>(mode[0])) &&
                       end == mode.c_str() + mode.size() - 1 && std::isfinite(percent);
    if (mode == "all") {
      e.seeds_mode = Expectation::SeedsMode::kEvery;
    } else if (mode == "mean") {
      e.seeds_mode = Expectation::SeedsMode::kMean;
    } else if (share && percent > 0 && percent <= 100) {
      e.seeds_mode = Expectation::SeedsMode::kShare;
      e.seeds_share = percent / 100;
    } else {
      seeds->Fail(share ? "a share of seeds is above 0% and at most 100%"
                        : "expected all (the default: every seed), mean (the mean over the "
                          "seeds) or a share of the seeds such as \"95%\"");
    }
  }
  if (window) {
    e.windowed = true;
    ReadWindow(*window, s.duration, &e.window_from, &e.window_to);
  }
  m.Finish();  // first, so that a misspelt comparison ("=<") is named as unknown
  if (ops == 0) v.Fail("needs one comparison: ==, !=, <, <=, > or >= with a number");
  return e;
}

}  // namespace sim
