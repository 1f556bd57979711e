#include "sim/io/json_input.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "sim/io/input_error.h"
#include "sim/io/json_reader.h"

namespace sim {

nlohmann::json ParseJsonText(std::string_view text, const std::string& source_name) {
  JsonReader reader(text, source_name);
  nlohmann::json result = ReadJsonValue(reader, reader.Next(), "");
  reader.Next();  // the end, or an error for what follows the value
  return result;
}

void JsonField::Fail(const std::string& message) const {
  throw InputError({source_, 0, 0}, path_.empty() ? "(top level)" : path_, message);
}

namespace {
const char* TypeName(const nlohmann::json& v) { return v.type_name(); }
}  // namespace

void JsonField::ExpectObject(std::initializer_list<std::string_view> allowed) const {
  if (!value_->is_object()) Fail(std::string("expected an object, got ") + TypeName(*value_));
  for (const auto& [key, unused] : value_->items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      JsonField(*value_, source_, path_ + (path_.empty() ? "" : ".") + key)
          .Fail("unknown field (known fields: " + list + ")");
    }
  }
}

void JsonField::ExpectArray() const {
  if (!value_->is_array()) Fail(std::string("expected an array, got ") + TypeName(*value_));
}

bool JsonField::Has(std::string_view key) const {
  return value_->is_object() && value_->contains(key) && !(*value_)[std::string(key)].is_null();
}

JsonField JsonField::operator[](std::string_view key) const {
  std::string child = path_ + (path_.empty() ? "" : ".") + std::string(key);
  if (!value_->is_object()) Fail(std::string("expected an object, got ") + TypeName(*value_));
  auto it = value_->find(key);
  if (it == value_->end()) JsonField(*value_, source_, child).Fail("required field is missing");
  return JsonField(*it, source_, child);
}

JsonField JsonField::At(size_t index) const {
  return JsonField((*value_)[index], source_, path_ + "[" + std::to_string(index) + "]");
}

std::int64_t JsonField::Int() const {
  if (value_->is_number_unsigned()) {
    // Beyond int64 it would wrap to a negative number.
    const std::uint64_t u = value_->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      Fail("expected an integer, got " + value_->dump() + ", beyond 9223372036854775807");
    }
    return static_cast<std::int64_t>(u);
  }
  if (value_->is_number_integer()) return value_->get<std::int64_t>();
  if (value_->is_number_float()) {
    double d = value_->get<double>();
    if (std::floor(d) == d && std::abs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  Fail(std::string("expected an integer, got ") + value_->dump());
}

std::uint64_t JsonField::Uint64FromDecimalString() const {
  if (!value_->is_string()) Fail("expected a decimal string of a uint64, got " + value_->dump());
  const std::string& s = value_->get_ref<const std::string&>();
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    Fail("\"" + s + "\" is not a uint64 in decimal");
  }
  return v;
}

double JsonField::Number() const {
  if (!value_->is_number()) Fail(std::string("expected a number, got ") + value_->dump());
  return value_->get<double>();
}

bool JsonField::Bool() const {
  if (!value_->is_boolean()) Fail(std::string("expected true or false, got ") + value_->dump());
  return value_->get<bool>();
}

std::string JsonField::String() const {
  if (!value_->is_string()) Fail(std::string("expected a string, got ") + value_->dump());
  return value_->get<std::string>();
}

std::int64_t JsonField::IntOr(std::string_view key, std::int64_t fallback) const {
  return Has(key) ? (*this)[key].Int() : fallback;
}
double JsonField::NumberOr(std::string_view key, double fallback) const {
  return Has(key) ? (*this)[key].Number() : fallback;
}
bool JsonField::BoolOr(std::string_view key, bool fallback) const {
  return Has(key) ? (*this)[key].Bool() : fallback;
}
std::string JsonField::StringOr(std::string_view key, std::string fallback) const {
  return Has(key) ? (*this)[key].String() : fallback;
}

}  // namespace sim
