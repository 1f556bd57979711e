#include "sim/io/json_input.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <vector>

#include "sim/io/input_error.h"

namespace sim {

namespace {

// The 1-based line and column of byte `offset` of `text`.
SourceLocation LocationOf(std::string_view text, size_t offset, const std::string& source_name) {
  SourceLocation where{source_name, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

}  // namespace

namespace {

// Refuses a key repeated in one object, which nlohmann/json (like Go's encoding/json)
// would take silently, the last value winning: a case with "arrive" twice is a mistake,
// and the first value would be ignored without a word. Tracks the field path as it goes,
// for the message. It is a SAX handler over nlohmann's own DOM builder rather than a parse
// callback: the callback parser of nlohmann/json 3.11 rescans the parent array at every
// object's end, which made a long array of objects (a queue-set case's requests)
// quadratic.
class DuplicateRefusingBuilder : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  DuplicateRefusingBuilder(nlohmann::json& result, std::string source)
      : Base(result, true), source_(std::move(source)) {}

  bool start_object(std::size_t n) {
    frames_.push_back(Frame{true, {}, {}, 0});
    return Base::start_object(n);
  }
  bool start_array(std::size_t n) {
    frames_.push_back(Frame{false, {}, {}, 0});
    return Base::start_array(n);
  }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(f.key).second) {
      throw InputError({source_, 0, 0}, Path(),
                       "duplicate key \"" + f.key +
                           "\" (an object must not repeat a key: only the last value "
                           "would count)");
    }
    return Base::key(k);
  }
  bool end_object() {
    frames_.pop_back();
    ValueDone();
    return Base::end_object();
  }
  bool end_array() {
    frames_.pop_back();
    ValueDone();
    return Base::end_array();
  }
  bool null() { return ValueDone(), Base::null(); }
  bool boolean(bool v) { return ValueDone(), Base::boolean(v); }
  bool number_integer(std::int64_t v) { return ValueDone(), Base::number_integer(v); }
  bool number_unsigned(std::uint64_t v) { return ValueDone(), Base::number_unsigned(v); }
  bool number_float(double v, const std::string& text) {
    return ValueDone(), Base::number_float(v, text);
  }
  bool string(std::string& v) { return ValueDone(), Base::string(v); }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;    // objects: the key being read
    std::size_t index;  // arrays: the element being read
  };

  void ValueDone() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.object) {
        path += (path.empty() ? "" : ".") + f.key;
      } else {
        path += "[" + std::to_string(f.index) + "]";
      }
    }
    return path;
  }

  std::string source_;
  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json ParseJsonText(std::string_view text, const std::string& source_name) {
  try {
    nlohmann::json result;
    DuplicateRefusingBuilder builder(result, source_name);
    nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    return result;
  } catch (const nlohmann::json::parse_error& e) {
    const size_t offset = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(LocationOf(text, offset, source_name), "", "invalid JSON: " + what);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double ("1e400"): nlohmann gives no position but quotes
    // the number ("number overflow parsing '1e400'"), so the error points at its first
    // occurrence.
    std::string what = e.what();
    if (auto space = what.find("] "); space != std::string::npos) what = what.substr(space + 2);
    SourceLocation where{source_name, 0, 0};
    const size_t open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      if (size_t at = text.find(what.substr(open + 1, close - open - 1));
          at != std::string_view::npos) {
        where = LocationOf(text, at, source_name);
      }
    }
    throw InputError(where, "", "invalid JSON: " + what);
  }
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
