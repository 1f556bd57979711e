// The one error type for bad user input (scenario files, flow-control manifests, JSON on
// stdin, command-line values). It carries where the problem is, so that every message
// reads "FILE:LINE:COLUMN: FIELD.PATH: what is wrong", and the CLI maps it to exit code 2.
//
// Loaders throw it; it is caught at the command boundary and never crosses the engine or
// the apf/ models, which report problems as apf::Status values.
#ifndef SIM_IO_INPUT_ERROR_H_
#define SIM_IO_INPUT_ERROR_H_

#include <stdexcept>
#include <string>

namespace sim {

struct SourceLocation {
  std::string file;  // "" when the input is not a file (a flag, stdin is "<stdin>")
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field_path, std::string message);

  const SourceLocation& where() const { return where_; }
  const std::string& field_path() const { return field_path_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string field_path_;
  std::string message_;
};

// "file:line:column: path: message", leaving out the parts that are unknown.
std::string FormatInputError(const SourceLocation& where, const std::string& field_path,
                             const std::string& message);

}  // namespace sim

#endif  // SIM_IO_INPUT_ERROR_H_
