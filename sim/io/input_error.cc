#include "sim/io/input_error.h"

#include <utility>

namespace sim {

std::string FormatInputError(const SourceLocation& where, const std::string& field_path,
                             const std::string& message) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ':';
      out += std::to_string(where.line);
      if (where.column > 0) {
        out += ':';
        out += std::to_string(where.column);
      }
    }
    out += ": ";
  }
  if (!field_path.empty()) {
    out += field_path;
    out += ": ";
  }
  out += message;
  return out;
}

InputError::InputError(SourceLocation where, std::string field_path, std::string message)
    : std::runtime_error(FormatInputError(where, field_path, message)),
      where_(std::move(where)),
      field_path_(std::move(field_path)),
      message_(std::move(message)) {}

}  // namespace sim
