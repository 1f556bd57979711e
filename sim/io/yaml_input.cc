#include "sim/io/yaml_input.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "sim/io/duration.h"
#include "sim/io/input_file.h"

namespace sim {
namespace {

// yaml-cpp's DepthGuard default (yaml-cpp/depthguard.h), past which it throws DeepRecursion.
constexpr int kYamlDepthLimit = 2000;

// How go-yaml v2 (behind sigs.k8s.io/yaml, behind kubectl) types a plain scalar.
enum class PlainType { kNull, kBool, kInt, kFloat, kString };

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

std::optional<bool> PlainBool(std::string_view s) {
  if (IsOneOf(s, {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"})) {
    return true;
  }
  if (IsOneOf(s, {"n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"})) {
    return false;
  }
  return std::nullopt;
}

// An integer as go-yaml reads it: optional sign, then decimal, 0x hex, 0b binary or a
// leading-0 octal, with '_' separators allowed. Sets *negative and the magnitude;
// *overflow (if given) when the magnitude does not fit 64 bits.
bool PlainInteger(std::string_view s, bool* negative, std::uint64_t* magnitude,
                  bool* overflow = nullptr) {
  std::string digits;
  for (char c : s) {
    if (c != '_') digits += c;
  }
  std::string_view d = digits;
  *negative = false;
  if (!d.empty() && (d[0] == '-' || d[0] == '+')) {
    *negative = d[0] == '-';
    d.remove_prefix(1);
  }
  if (d.empty()) return false;
  int base = 10;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    base = 16;
    d.remove_prefix(2);
  } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
    base = 2;
    d.remove_prefix(2);
  } else if (d.size() > 1 && d[0] == '0') {
    base = 8;
    d.remove_prefix(1);
  }
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), *magnitude, base);
  if (overflow) *overflow = ec == std::errc::result_out_of_range;
  if (ec == std::errc::result_out_of_range) return p == d.data() + d.size();
  return ec == std::errc() && p == d.data() + d.size();
}

bool PlainFloat(std::string_view s, double* out) {
  if (IsOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (IsOneOf(s, {"-.inf", "-.Inf", "-.INF"})) {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (IsOneOf(s, {".nan", ".NaN", ".NAN"})) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t mantissa_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++mantissa_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != s.size()) return false;
  std::string copy(s);
  *out = std::strtod(copy.c_str(), nullptr);
  return true;
}

bool IsPlain(const YAML::Node& node) { return node.Tag() == "?"; }

PlainType TypeOfScalar(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return PlainType::kString;
  if (tag == "tag:yaml.org,2002:int") return PlainType::kInt;
  if (tag == "tag:yaml.org,2002:float") return PlainType::kFloat;
  if (tag == "tag:yaml.org,2002:bool") return PlainType::kBool;
  if (tag == "tag:yaml.org,2002:null") return PlainType::kNull;
  const std::string& s = node.Scalar();
  if (IsOneOf(s, {"", "~", "null", "Null", "NULL"})) return PlainType::kNull;
  if (PlainBool(s)) return PlainType::kBool;
  bool negative;
  std::uint64_t magnitude;
  if (PlainInteger(s, &negative, &magnitude)) return PlainType::kInt;
  double d;
  if (PlainFloat(s, &d)) return PlainType::kFloat;
  return PlainType::kString;
}

const char* TypeName(PlainType t) {
  switch (t) {
    case PlainType::kNull:
      return "null";
    case PlainType::kBool:
      return "a boolean";
    case PlainType::kInt:
      return "an integer";
    case PlainType::kFloat:
      return "a number";
    case PlainType::kString:
      return "a string";
  }
  return "a value";
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

SourceLocation LocationOf(const std::string& source, const YAML::Node& node) {
  SourceLocation where;
  where.file = source;
  if (node.IsDefined()) {
    const YAML::Mark mark = node.Mark();
    if (mark.line >= 0 && mark.column >= 0) {
      where.line = mark.line + 1;
      where.column = mark.column + 1;
    }
  }
  return where;
}

// The 1-based line and column of byte `offset` of `text`, counting a UTF-8 character as
// one column and not counting a leading byte-order mark.
SourceLocation LocationAt(std::string_view text, size_t offset, const std::string& source) {
  SourceLocation where{source, 1, 1};
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++where.column;
    }
  }
  return where;
}

// go-yaml (behind kubectl) reads only UTF-8 text whose characters YAML allows: it refuses
// invalid byte sequences ("invalid leading UTF-8 octet") and control characters other
// than tab, newline and carriage return. yaml-cpp is laxer, and would hand a binary file's
// bytes on to the reader, so the text is checked first. Returns the offset of the first
// byte that is not allowed and what is wrong with it, or nullopt.
std::optional<std::pair<size_t, std::string>> FirstBadCharacter(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        return std::make_pair(i, std::string("control character ") + hex +
                                     " is not allowed (is this a binary file?)");
      }
      if (c == 0x7F) return std::make_pair(i, std::string("control character 0x7F is not allowed"));
      ++i;
      continue;
    }
    // The length of the sequence and the smallest code point it may encode (RFC 3629).
    size_t length = 0;
    std::uint32_t code = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
      length = 2, code = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3, code = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4, code = c & 0x07, min = 0x10000;
    }
    bool ok = length > 0 && i + length <= text.size();
    for (size_t k = 1; ok && k < length; ++k) {
      ok = (bytes[i + k] & 0xC0) == 0x80;
      code = (code << 6) | (bytes[i + k] & 0x3F);
    }
    ok = ok && code >= min && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      return std::make_pair(
          i, std::string("invalid UTF-8 (byte ") + hex + "): the file must be UTF-8 text");
    }
    i += length;
  }
  return std::nullopt;
}

// yaml-cpp takes a quoted scalar that runs to the end of the input as ending there; go-yaml
// refuses it ("found unexpected end of stream"). Finds the first quoted scalar in `node`
// (keys included) whose closing quote is missing, by scanning from its opening quote.
// Each node is visited once, by the offset where it starts: an alias is the node its
// anchor names, so ten levels of ten aliases each (an alias bomb) would otherwise be walked
// 10^10 times.
std::optional<size_t> UnclosedQuote(const YAML::Node& node, std::string_view text,
                                    std::unordered_set<std::int64_t>* visited) {
  // A block mapping starts where its first key does: scalars and collections apart.
  const int pos = node.Mark().pos;
  if (pos >= 0 && !visited->insert(std::int64_t{pos} * 2 + (node.IsScalar() ? 1 : 0)).second) {
    return std::nullopt;
  }
  if (node.IsScalar() && node.Tag() == "!") {
    if (pos < 0 || static_cast<size_t>(pos) >= text.size()) return std::nullopt;
    const char quote = text[pos];
    if (quote != '"' && quote != '\'') return std::nullopt;  // a block scalar (| or >)
    for (size_t i = pos + 1; i < text.size(); ++i) {
      if (quote == '"' && text[i] == '\\') {
        ++i;
      } else if (text[i] == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' is a quote inside a single-quoted scalar
        } else {
          return std::nullopt;
        }
      }
    }
    return static_cast<size_t>(pos);
  }
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (auto at = UnclosedQuote(item, text, visited)) return at;
    }
  } else if (node.IsMap()) {
    for (const auto& pair : node) {
      if (auto at = UnclosedQuote(pair.first, text, visited)) return at;
      if (auto at = UnclosedQuote(pair.second, text, visited)) return at;
    }
  }
  return std::nullopt;
}

// A tab in the indentation of line `line` (1-based), whose column is returned; YAML
// indents with spaces only, and yaml-cpp's message for it ("illegal map value") does not
// say so.
std::optional<int> TabInIndentation(std::string_view text, int line) {
  size_t start = 0;
  for (int l = 1; l < line && start != std::string_view::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos) return std::nullopt;
  for (size_t i = start; i < text.size() && (text[i] == ' ' || text[i] == '\t'); ++i) {
    if (text[i] == '\t') return static_cast<int>(i - start + 1);
  }
  return std::nullopt;
}

// yaml-cpp 0.7's LoadAll loops for ever, adding a null document each time, when a
// document starts with a token that no node can start with: a ',' outside [ ] or { }
// (yaml-cpp issue 1040; fixed in 0.8.0). The parser then starts every document at the
// same token, so this pass runs yaml-cpp's own parser with an event handler that stops at
// the first document starting where the one before it did, and returns its offset.
// Syntax errors are left to the real parse, which reports them.
class StuckDocumentFinder : public YAML::EventHandler {
 public:
  std::optional<int> stuck_at;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (last_start_ && *last_start_ == mark.pos) stuck_at = mark.pos;
    last_start_ = mark.pos;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  std::optional<int> last_start_;
};

std::optional<size_t> StuckDocument(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StuckDocumentFinder finder;
  try {
    while (!finder.stuck_at && parser.HandleNextDocument(finder)) {
    }
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  if (!finder.stuck_at) return std::nullopt;
  return static_cast<size_t>(*finder.stuck_at);
}

}  // namespace

std::vector<YAML::Node> ParseYamlDocuments(std::string_view text, const std::string& source_name) {
  if (auto bad = FirstBadCharacter(text)) {
    throw InputError(LocationAt(text, bad->first, source_name), "", "invalid YAML: " + bad->second);
  }
  std::vector<YAML::Node> docs;
  auto syntax_error = [&](const YAML::Mark& mark, const std::string& msg) {
    if (std::optional<int> column = TabInIndentation(text, mark.line + 1)) {
      return InputError({source_name, mark.line + 1, *column}, "",
                        "invalid YAML: a tab in the indentation (YAML indents with spaces only)");
    }
    return InputError({source_name, mark.line + 1, mark.column + 1}, "", "invalid YAML: " + msg);
  };
  std::string copy(text);
  if (std::optional<size_t> stuck = StuckDocument(copy)) {
    // The offset counts bytes after a byte-order mark, as yaml-cpp's marks do.
    const size_t bom = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    const size_t at = std::min(*stuck + bom, text.size());
    const std::string token = at < text.size() ? std::string(1, text[at]) : std::string();
    throw InputError(LocationAt(text, at, source_name), "",
                     "invalid YAML: a value cannot start with \"" + token +
                         "\" (quote a string that starts with it)");
  }
  try {
    for (YAML::Node& doc : YAML::LoadAll(copy)) {
      if (doc.IsDefined() && !doc.IsNull()) docs.push_back(doc);
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's message for this is "bad file", which says nothing of the nesting.
    throw InputError({source_name, e.mark.line + 1, e.mark.column + 1}, "",
                     "invalid YAML: nested too deeply (yaml-cpp stops at " +
                         std::to_string(kYamlDepthLimit) + " levels of nesting)");
  } catch (const YAML::Exception& e) {
    throw syntax_error(e.mark, e.msg);
  }
  // yaml-cpp's marks count bytes after a byte-order mark.
  const std::string_view body = text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
  std::unordered_set<std::int64_t> visited;
  for (const YAML::Node& doc : docs) {
    if (std::optional<size_t> at = UnclosedQuote(doc, body, &visited)) {
      throw InputError(LocationAt(body, *at, source_name), "",
                       "invalid YAML: this quoted string is never closed");
    }
  }
  return docs;
}

std::string InputSourceName(const std::string& path) {
  return path == kStdinPath ? "<stdin>" : path;
}

std::string ReadInputText(const std::string& path) {
  if (path == kStdinPath) {
    // Standard input can be read once; a command that reads "-" twice (a scenario and its
    // own configuration) sees the same text.
    static const std::string stdin_text = ReadInputStream(std::cin, "<stdin>");
    return stdin_text;
  }
  return ReadInputFile(path);
}

std::vector<YAML::Node> LoadYamlFile(const std::string& path) {
  return ParseYamlDocuments(ReadInputText(path), InputSourceName(path));
}

YamlValue::YamlValue(YAML::Node node, std::string source, std::string path)
    : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)) {}

SourceLocation YamlValue::where() const { return LocationOf(source_, node_); }

void YamlValue::Fail(const std::string& message) const {
  throw InputError(where(), path_.empty() ? "(top level)" : path_, message);
}

bool YamlValue::IsNull() const {
  if (!node_.IsDefined() || node_.IsNull()) return true;
  return node_.IsScalar() && TypeOfScalar(node_) == PlainType::kNull && IsPlain(node_);
}

std::string YamlValue::Describe() const {
  if (!node_.IsDefined() || node_.IsNull()) return "null";
  if (node_.IsMap()) return "a mapping";
  if (node_.IsSequence()) return "a list";
  const PlainType t = TypeOfScalar(node_);
  if (t == PlainType::kString) return "the string \"" + node_.Scalar() + "\"";
  return std::string(TypeName(t)) + " (" + node_.Scalar() + ")";
}

std::string YamlValue::String() const {
  if (node_.IsScalar()) {
    const PlainType t = TypeOfScalar(node_);
    if (t == PlainType::kString) return node_.Scalar();
    Fail("expected a string, got " + Describe() + "; quote it if a string is meant");
  }
  Fail("expected a string, got " + Describe());
}

std::string YamlValue::Text() const {
  if (!node_.IsScalar()) Fail("expected a single value, got " + Describe());
  return node_.Scalar();
}

std::int64_t YamlValue::Int64() const {
  if (node_.IsScalar() && TypeOfScalar(node_) == PlainType::kInt) {
    bool negative = false, overflow = false;
    std::uint64_t magnitude = 0;
    PlainInteger(node_.Scalar(), &negative, &magnitude, &overflow);
    if (overflow) Fail("integer " + node_.Scalar() + " is out of range");
    const std::uint64_t limit =
        negative ? std::uint64_t{1} << 63 : std::uint64_t(std::numeric_limits<std::int64_t>::max());
    if (magnitude > limit) Fail("integer " + node_.Scalar() + " is out of range");
    return negative ? static_cast<std::int64_t>(0 - magnitude)
                    : static_cast<std::int64_t>(magnitude);
  }
  if (node_.IsScalar() && TypeOfScalar(node_) == PlainType::kFloat) {
    double d = 0;
    PlainFloat(node_.Scalar(), &d);
    if (std::floor(d) == d && std::abs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  Fail("expected an integer, got " + Describe());
}

std::int32_t YamlValue::Int32() const {
  const std::int64_t v = Int64();
  if (v < std::numeric_limits<std::int32_t>::min() ||
      v > std::numeric_limits<std::int32_t>::max()) {
    Fail("integer " + std::to_string(v) + " does not fit in 32 bits");
  }
  return static_cast<std::int32_t>(v);
}

std::uint64_t YamlValue::Uint64() const {
  if (node_.IsScalar() && TypeOfScalar(node_) == PlainType::kInt) {
    bool negative = false, overflow = false;
    std::uint64_t magnitude = 0;
    PlainInteger(node_.Scalar(), &negative, &magnitude, &overflow);
    if (overflow) Fail("integer " + node_.Scalar() + " is out of range");
    if (negative && magnitude != 0) Fail("expected a non-negative integer, got " + node_.Scalar());
    return magnitude;
  }
  Fail("expected a non-negative integer, got " + Describe());
}

double YamlValue::Number() const {
  if (node_.IsScalar()) {
    const PlainType t = TypeOfScalar(node_);
    if (t == PlainType::kInt) return static_cast<double>(Int64());
    if (t == PlainType::kFloat) {
      double d = 0;
      PlainFloat(node_.Scalar(), &d);
      // .nan, .inf and a literal beyond a double (1e400) would pass every range check a
      // reader makes (NaN compares false) and mean "no limit" downstream.
      if (!std::isfinite(d)) {
        Fail("expected a finite number, got " + node_.Scalar() +
             (std::isnan(d) || node_.Scalar().find('.') == 0 ? std::string()
                                                             : std::string(" (beyond a double)")));
      }
      return d;
    }
  }
  Fail("expected a number, got " + Describe());
}

bool YamlValue::Bool() const {
  if (node_.IsScalar() && TypeOfScalar(node_) == PlainType::kBool) {
    if (std::optional<bool> b = PlainBool(node_.Scalar())) return *b;
  }
  Fail("expected true or false, got " + Describe());
}

apf::Nanos YamlValue::Duration() const {
  if (!node_.IsScalar()) Fail("expected a duration such as 250ms or 1.5s, got " + Describe());
  std::string why;
  std::optional<apf::Nanos> d = ParseDuration(node_.Scalar(), &why);
  if (!d) Fail(why);
  if (*d > kMaxInputDuration || *d < -kMaxInputDuration) {
    Fail("duration " + node_.Scalar() + " is beyond " + FormatDuration(kMaxInputDuration) +
         ", the longest apfsim accepts (so that a time plus a duration, or a duration times a "
         "count, cannot overflow)");
  }
  return *d;
}

std::size_t YamlValue::size() const {
  if (!node_.IsSequence()) Fail("expected a list, got " + Describe());
  return node_.size();
}

YamlValue YamlValue::operator[](std::size_t index) const {
  if (!node_.IsSequence()) Fail("expected a list, got " + Describe());
  return YamlValue(node_[index], source_, IndexPath(index));
}

std::vector<YamlValue> YamlValue::Items() const {
  if (!node_.IsSequence()) Fail("expected a list, got " + Describe());
  std::vector<YamlValue> out;
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back((*this)[i]);
  return out;
}

std::vector<std::string> YamlValue::StringList() const {
  if (IsNull()) return {};
  std::vector<std::string> out;
  for (const YamlValue& item : Items()) out.push_back(item.String());
  return out;
}

YamlMap YamlValue::Map() const { return YamlMap(*this); }

std::map<std::string, std::string> YamlValue::StringMap() const {
  std::map<std::string, std::string> out;
  if (IsNull()) return out;
  YamlMap map(*this);
  for (const std::string& key : map.Keys()) out[key] = map.Required(key).String();
  return out;
}

std::string YamlValue::ChildPath(std::string_view key) const {
  std::string out = path_;
  if (!out.empty()) out += '.';
  out.append(key);
  return out;
}

std::string YamlValue::IndexPath(std::size_t index) const {
  return path_ + "[" + std::to_string(index) + "]";
}

YamlMap::YamlMap(const YamlValue& value) : value_(value) {
  const YAML::Node& node = value.node();
  if (!node.IsMap()) {
    if (value.IsNull()) value.Fail("expected a mapping, got null");
    value.Fail(std::string("expected a mapping, got ") +
               (node.IsSequence() ? "a list" : "the value \"" + node.Scalar() + "\""));
  }
  for (const auto& pair : node) {
    const YAML::Node key = pair.first;
    if (!key.IsScalar()) {
      throw InputError(LocationOf(value.source(), key),
                       value.path().empty() ? "(top level)" : value.path(),
                       "a mapping key must be a plain value");
    }
    for (const Entry& e : entries_) {
      if (e.key == key.Scalar()) {
        throw InputError(LocationOf(value.source(), key), value.ChildPath(key.Scalar()),
                         "duplicate field (also at line " +
                             std::to_string(LocationOf(value.source(), e.key_node).line) + ")");
      }
    }
    entries_.push_back(Entry{key.Scalar(), key, pair.second, false});
  }
}

YamlMap::Entry* YamlMap::Find(std::string_view key) {
  if (std::find(known_keys_.begin(), known_keys_.end(), key) == known_keys_.end()) {
    known_keys_.emplace_back(key);
  }
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.known = true;
      return &e;
    }
  }
  return nullptr;
}

bool YamlMap::Has(std::string_view key) {
  Entry* e = Find(key);
  return e && !YamlValue(e->value, value_.source(), "").IsNull();
}

YamlValue YamlMap::Required(std::string_view key) {
  Entry* e = Find(key);
  if (!e) {
    // A misspelt required key is more helpfully named as the unknown field it is.
    std::vector<std::string> others;
    for (const Entry& other : entries_) {
      if (!other.known) others.push_back(other.key);
    }
    const std::string near = ClosestMatch(key, others);
    for (const Entry& other : entries_) {
      if (!near.empty() && other.key == near) {
        throw InputError(LocationOf(value_.source(), other.key_node), value_.ChildPath(near),
                         "unknown field (did you mean \"" + std::string(key) + "\"?)");
      }
    }
    throw InputError(value_.where(), value_.ChildPath(key), "required field is missing");
  }
  YamlValue v(e->value, value_.source(), value_.ChildPath(key));
  if (v.IsNull()) {
    throw InputError(LocationOf(value_.source(), e->key_node), value_.ChildPath(key),
                     "required field is null");
  }
  return v;
}

std::optional<YamlValue> YamlMap::Optional(std::string_view key) {
  Entry* e = Find(key);
  if (!e) return std::nullopt;
  YamlValue v(e->value, value_.source(), value_.ChildPath(key));
  if (v.IsNull()) return std::nullopt;
  return v;
}

void YamlMap::Ignore(std::string_view key) { Find(key); }

void YamlMap::Ignore(std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) Find(k);
}

std::string YamlMap::StringOr(std::string_view key, std::string fallback) {
  auto v = Optional(key);
  return v ? v->String() : fallback;
}
std::int64_t YamlMap::Int64Or(std::string_view key, std::int64_t fallback) {
  auto v = Optional(key);
  return v ? v->Int64() : fallback;
}
double YamlMap::NumberOr(std::string_view key, double fallback) {
  auto v = Optional(key);
  return v ? v->Number() : fallback;
}
bool YamlMap::BoolOr(std::string_view key, bool fallback) {
  auto v = Optional(key);
  return v ? v->Bool() : fallback;
}
apf::Nanos YamlMap::DurationOr(std::string_view key, apf::Nanos fallback) {
  auto v = Optional(key);
  return v ? v->Duration() : fallback;
}

std::vector<std::string> YamlMap::Keys() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.key);
  return out;
}

void YamlMap::Finish() const {
  for (const Entry& e : entries_) {
    if (e.known) continue;
    std::string message = "unknown field";
    if (std::string near = ClosestMatch(e.key, known_keys_); !near.empty()) {
      message += " (did you mean \"" + near + "\"?)";
    } else if (!known_keys_.empty()) {
      std::vector<std::string> sorted = known_keys_;
      std::sort(sorted.begin(), sorted.end());
      std::string list;
      for (const std::string& k : sorted) list += (list.empty() ? "" : ", ") + k;
      message += " (known fields: " + list + ")";
    }
    throw InputError(LocationOf(value_.source(), e.key_node), value_.ChildPath(e.key), message);
  }
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string near = ClosestMatch(word, candidates);
  return near.empty() ? "" : " (did you mean \"" + near + "\"?)";
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 3;
  const std::string lower = Lower(word);
  for (const std::string& c : candidates) {
    if (Lower(c) == lower) return c;
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace sim
