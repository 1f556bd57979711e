#include "sim/io/text.h"

#include <fmt/format.h>

#include <cmath>

namespace sim {

double Round6(double x) { return std::round(x * 1e6) / 1e6; }

std::string GroupThousands(long long n) {
  // The magnitude as unsigned, so that the most negative value has one too.
  const unsigned long long magnitude =
      n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FigureText(double value, bool seconds) {
  if (seconds) {
    return fmt::format("{:.{}f} s", value, std::fabs(value) >= 1 ? 1 : 3);
  }
  if (std::fabs(value) >= 100 || value == std::floor(value)) {
    return GroupThousands(std::llround(value));
  }
  return fmt::format("{:.1f}", value);
}

std::vector<std::string> Split(std::string_view text, char sep, EmptyParts empties) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    const std::string_view part =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (empties == EmptyParts::kKeep || !part.empty()) parts.emplace_back(part);
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace sim
