// Strict reading of JSON input (the `model` commands' cases): parse errors carry line and
// column, every object's keys are checked against the ones the reader knows, and each
// typed getter names the field path when a value is missing or of the wrong type.
#ifndef SIM_IO_JSON_INPUT_H_
#define SIM_IO_JSON_INPUT_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace sim {

// Parses `text` with JsonReader; a syntax error or a repeated key becomes an InputError at
// the right line and column of `source_name` ("<stdin>" for standard input).
nlohmann::json ParseJsonText(std::string_view text, const std::string& source_name);

// A view of one JSON value at a field path ("[3].requests[0].arrive"), with strict getters.
// Errors are InputErrors naming the source and the path.
class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string source, std::string path)
      : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void Fail(const std::string& message) const;

  // Requires an object whose keys are all in `allowed`.
  void ExpectObject(std::initializer_list<std::string_view> allowed) const;
  void ExpectArray() const;

  bool Has(std::string_view key) const;
  bool IsNull() const { return value_->is_null(); }
  JsonField operator[](std::string_view key) const;  // the key must be present
  JsonField At(size_t index) const;
  size_t size() const { return value_->size(); }

  std::int64_t Int() const;
  std::uint64_t Uint64FromDecimalString() const;  // "<uint64 decimal string>"
  double Number() const;
  bool Bool() const;
  std::string String() const;

  // The value of an optional key, or `fallback` when it is absent (or null).
  std::int64_t IntOr(std::string_view key, std::int64_t fallback) const;
  double NumberOr(std::string_view key, double fallback) const;
  bool BoolOr(std::string_view key, bool fallback) const;
  std::string StringOr(std::string_view key, std::string fallback) const;

 private:
  const nlohmann::json* value_;
  std::string source_;
  std::string path_;
};

}  // namespace sim

#endif  // SIM_IO_JSON_INPUT_H_
