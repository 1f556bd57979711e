#include "sim/io/text.h"

#include <cmath>

namespace sim {

double Round6(double x) { return std::round(x * 1e6) / 1e6; }

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
