// The outcome of an operation that can fail on bad input, as a value (in the manner of
// LevelDB's Status): models return it instead of throwing, and callers in sim/ attach
// the file, line and field before showing it to a user.
#ifndef APF_BASE_STATUS_H_
#define APF_BASE_STATUS_H_

#include <string>
#include <utility>

namespace apf {

class Status {
 public:
  Status() = default;  // OK
  static Status OK() { return Status(); }
  static Status Invalid(std::string message) { return Status(std::move(message)); }

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {
    if (message_.empty()) message_ = "invalid";
  }
  std::string message_;
};

}  // namespace apf

#endif  // APF_BASE_STATUS_H_
