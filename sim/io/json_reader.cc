#include "sim/io/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <istream>

namespace sim {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsNumberByte(char c) {
  return IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Hex(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "%0*X", digits, value);
  return text;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The index of the first byte of `s` that breaks RFC 8259's number grammar
// (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), s.size() when it ends too soon, or npos
// when it holds; `integral` says whether it has neither a fraction nor an exponent.
std::size_t NumberGrammarBreak(std::string_view s, bool& integral) {
  std::size_t k = 0;
  const std::size_t n = s.size();
  integral = true;
  if (k < n && s[k] == '-') ++k;
  if (k < n && s[k] == '0') {
    ++k;
  } else if (k < n && s[k] >= '1' && s[k] <= '9') {
    while (k < n && IsDigit(s[k])) ++k;
  } else {
    return k;
  }
  if (k < n && s[k] == '.') {
    integral = false;
    ++k;
    if (k >= n || !IsDigit(s[k])) return k;
    while (k < n && IsDigit(s[k])) ++k;
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    integral = false;
    ++k;
    if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
    if (k >= n || !IsDigit(s[k])) return k;
    while (k < n && IsDigit(s[k])) ++k;
  }
  return k == n ? std::string_view::npos : k;
}

}  // namespace

JsonReader::JsonReader(std::istream& in, std::string source)
    : in_(&in), source_(std::move(source)), buffer_(kChunkBytes) {
  data_ = buffer_.data();
  SkipByteOrderMark();
}

JsonReader::JsonReader(std::string_view text, std::string source)
    : source_(std::move(source)), data_(text.data()), len_(text.size()), at_eof_(true) {
  SkipByteOrderMark();
}

void JsonReader::SkipByteOrderMark() {
  // RFC 8259 lets a reader ignore a UTF-8 byte order mark, as nlohmann/json does.
  if (Available(3) && std::memcmp(data_ + pos_, "\xEF\xBB\xBF", 3) == 0) pos_ += 3;
}

bool JsonReader::Fill() {
  if (in_ == nullptr || at_eof_) return false;
  if (mark_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + mark_, len_ - mark_);
    base_ += mark_;
    len_ -= mark_;
    pos_ -= mark_;
    mark_ = 0;
  }
  if (len_ == buffer_.size()) {
    if (buffer_.size() >= kMaxTokenBytes) {
      FailAt(0, "a string or number longer than " + std::to_string(kMaxTokenBytes >> 20) + " MiB");
    }
    buffer_.resize(buffer_.size() * 2);
  }
  data_ = buffer_.data();
  in_->read(buffer_.data() + len_, static_cast<std::streamsize>(buffer_.size() - len_));
  const auto got = static_cast<std::size_t>(in_->gcount());
  len_ += got;
  if (got == 0) at_eof_ = true;
  return got > 0;
}

bool JsonReader::More(std::size_t& i, std::size_t n) {
  while (len_ - i < n) {
    const std::size_t offset = i - mark_;
    if (!Fill()) return false;
    i = mark_ + offset;
  }
  return true;
}

bool JsonReader::Available(std::size_t n) {
  while (len_ - pos_ < n) {
    if (!Fill()) return false;
  }
  return true;
}

void JsonReader::SkipWhitespace() {
  for (;;) {
    while (pos_ < len_) {
      const char c = data_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = base_ + pos_;
      } else {
        return;
      }
    }
    mark_ = pos_;  // nothing before here is needed again
    if (!Fill()) return;
  }
}

JsonReader::Token JsonReader::Next() {
  text_ = {};
  SkipWhitespace();
  mark_ = pos_;
  token_ = base_ + pos_;
  token_line_ = line_;
  token_line_start_ = line_start_;
  const bool end = pos_ >= len_;
  const char c = end ? '\0' : data_[pos_];
  switch (expect_) {
    case Expect::kDone:
      return Token::kEnd;
    case Expect::kInputEnd:
      if (!end) FailUnexpected("the end of the input after the top-level value");
      expect_ = Expect::kDone;
      return Token::kEnd;
    case Expect::kKeyOrEnd:
      if (!end && c == '}') return Close('}');
      return ReadKey();
    case Expect::kCommaOrEnd: {
      const bool object = stack_.back() == '{';
      const char close = object ? '}' : ']';
      if (!end && c == close) return Close(close);
      if (end || c != ',') {
        FailUnexpected(object ? "',' or '}' after an object member"
                              : "',' or ']' after an array element");
      }
      ++pos_;
      expect_ = object ? Expect::kKeyOrEnd : Expect::kValue;
      if (object) {
        // A key must follow; '}' after ',' is not JSON.
        SkipWhitespace();
        mark_ = pos_;
        token_ = base_ + pos_;
        token_line_ = line_;
        token_line_start_ = line_start_;
        return ReadKey();
      }
      return Next();
    }
    case Expect::kValueOrEnd:
      if (!end && c == ']') return Close(']');
      [[fallthrough]];
    case Expect::kValue:
      if (end) FailUnexpected("a value");
      return ReadValue(c);
  }
  return Token::kEnd;  // not reached
}

JsonReader::Token JsonReader::ReadValue(char c) {
  switch (c) {
    case '{':
    case '[':
      if (stack_.size() >= static_cast<std::size_t>(kMaxDepth)) {
        FailAt(pos_,
               "syntax error: arrays and objects nested deeper than " + std::to_string(kMaxDepth));
      }
      stack_.push_back(c);
      ++pos_;
      expect_ = c == '{' ? Expect::kKeyOrEnd : Expect::kValueOrEnd;
      return c == '{' ? Token::kBeginObject : Token::kBeginArray;
    case '"':
      ReadString();
      AfterValue();
      return Token::kString;
    case 't':
      return ReadLiteral("true", Token::kTrue);
    case 'f':
      return ReadLiteral("false", Token::kFalse);
    case 'n':
      return ReadLiteral("null", Token::kNull);
    default:
      if (c == '-' || IsDigit(c)) {
        ReadNumber();
        AfterValue();
        return Token::kNumber;
      }
      FailUnexpected("a value");
  }
}

JsonReader::Token JsonReader::ReadKey() {
  if (pos_ >= len_ || data_[pos_] != '"') FailUnexpected("a string key");
  ReadString();
  if (pos_ >= len_ || data_[pos_] != ':') {
    // Reading on may move the buffer under a key that points into it.
    if (text_.data() != unescaped_.data()) {
      unescaped_.assign(text_);
      text_ = unescaped_;
    }
    SkipWhitespace();
    if (pos_ >= len_ || data_[pos_] != ':') FailUnexpected("':' after an object key");
  }
  ++pos_;
  expect_ = Expect::kValue;
  return Token::kKey;
}

void JsonReader::ReadString() {
  // pos_ and mark_ are at the opening quote.
  std::size_t i = pos_ + 1;
  for (;;) {
    while (i < len_) {
      const auto b = static_cast<unsigned char>(data_[i]);
      if (b == '"') {
        text_ = std::string_view(data_ + mark_ + 1, i - mark_ - 1);
        pos_ = i + 1;
        return;
      }
      if (b < 0x20 || b == '\\' || b >= 0x80) {
        ReadStringSlowly(i);
        return;
      }
      ++i;
    }
    if (!More(i, 1)) FailAt(len_, "invalid string: the input ends inside a string");
  }
}

void JsonReader::ReadStringSlowly(std::size_t i) {
  unescaped_.assign(data_ + mark_ + 1, i - mark_ - 1);
  const auto more = [this, &i](std::size_t n) { return More(i, n); };
  const auto hex4 = [this](std::size_t at) {
    int value = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const int digit = HexValue(data_[k]);
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    return value;
  };
  for (;;) {
    if (!more(1)) FailAt(len_, "invalid string: the input ends inside a string");
    const auto b = static_cast<unsigned char>(data_[i]);
    if (b == '"') {
      pos_ = i + 1;
      text_ = unescaped_;
      return;
    }
    if (b < 0x20) {
      FailAt(i, "invalid string: control character U+" + Hex(b, 4) + " must be escaped (\\u" +
                    Hex(b, 4) + ")");
    }
    if (b == '\\') {
      if (!more(2)) FailAt(len_, "invalid string: the input ends inside an escape");
      const char e = data_[i + 1];
      // The one-letter escapes, and what each stands for.
      static constexpr std::string_view kEscapes = "\"\\/bfnrt";
      static constexpr std::string_view kMeanings = "\"\\/\b\f\n\r\t";
      if (const std::size_t k = kEscapes.find(e); k != std::string_view::npos) {
        unescaped_.push_back(kMeanings[k]);
        i += 2;
        continue;
      }
      if (e != 'u') {
        FailAt(i, "invalid string: unknown escape '\\" +
                      std::string(e >= 0x21 && e <= 0x7E ? std::string(1, e) : "?") + "'");
      }
      if (!more(6) || hex4(i + 2) < 0) {
        FailAt(i, "invalid string: '\\u' must be followed by four hexadecimal digits");
      }
      auto cp = static_cast<std::uint32_t>(hex4(i + 2));
      if (cp >= 0xDC00 && cp <= 0xDFFF) {
        FailAt(i, "invalid string: \\u" + Hex(cp, 4) +
                      " is a low surrogate without a high surrogate before it");
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        const std::size_t high = i - mark_;  // reading on may move the buffer
        i += 6;
        int low = -1;
        if (more(6) && data_[i] == '\\' && data_[i + 1] == 'u') low = hex4(i + 2);
        if (low < 0xDC00 || low > 0xDFFF) {
          FailAt(mark_ + high,
                 "invalid string: \\u" + Hex(cp, 4) +
                     " is a high surrogate, and must be followed by a low one (\\uDC00 to "
                     "\\uDFFF)");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<std::uint32_t>(low) - 0xDC00);
      }
      AppendUtf8(unescaped_, cp);
      i += 6;
      continue;
    }
    if (b < 0x80) {
      unescaped_.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    // RFC 3629's well-formed sequences: no overlong forms, no surrogates, at most U+10FFFF.
    std::size_t follow = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      follow = 1;
    } else if (b == 0xE0) {
      follow = 2;
      low = 0xA0;
    } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
      follow = 2;
    } else if (b == 0xED) {
      follow = 2;
      high = 0x9F;
    } else if (b == 0xF0) {
      follow = 3;
      low = 0x90;
    } else if (b >= 0xF1 && b <= 0xF3) {
      follow = 3;
    } else if (b == 0xF4) {
      follow = 3;
      high = 0x8F;
    } else {
      FailAt(i, "invalid string: ill-formed UTF-8 byte 0x" + Hex(b, 2));
    }
    more(follow + 1);
    for (std::size_t k = 1; k <= follow; ++k) {
      if (i + k >= len_) FailAt(len_, "invalid string: the input ends inside a string");
      const auto c = static_cast<unsigned char>(data_[i + k]);
      if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) {
        FailAt(i + k, "invalid string: ill-formed UTF-8 byte 0x" + Hex(c, 2));
      }
    }
    unescaped_.append(data_ + i, follow + 1);
    i += follow + 1;
  }
}

void JsonReader::ReadNumber() {
  // pos_ and mark_ are at its first byte.
  std::size_t i = pos_;
  for (;;) {
    while (i < len_ && IsNumberByte(data_[i])) ++i;
    if (i < len_ || !More(i, 1)) break;
  }
  text_ = std::string_view(data_ + pos_, i - pos_);
  const std::size_t at = NumberGrammarBreak(text_, integral_);
  if (at != std::string_view::npos) {
    FailAt(pos_ + at, "syntax error: invalid number '" + std::string(text_) + "'");
  }
  pos_ = i;
}

JsonReader::Token JsonReader::ReadLiteral(std::string_view word, Token token) {
  Available(word.size());
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (pos_ + k >= len_ || data_[pos_ + k] != word[k]) {
      FailAt(pos_ + k, "syntax error: invalid literal (expected " + std::string(word) + ")");
    }
  }
  pos_ += word.size();
  AfterValue();
  return token;
}

JsonReader::Token JsonReader::Close(char bracket) {
  ++pos_;
  stack_.pop_back();
  AfterValue();
  return bracket == '}' ? Token::kEndObject : Token::kEndArray;
}

void JsonReader::AfterValue() {
  expect_ = stack_.empty() ? Expect::kInputEnd : Expect::kCommaOrEnd;
}

bool JsonReader::Int64(std::int64_t& out) const {
  if (!integral_) return false;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), out);
  return ec == std::errc() && end == text_.data() + text_.size();
}

double JsonReader::Double() const {
  double value = 0;
  const auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), value);
  if (ec == std::errc()) return value;
  // Out of range: strtod tells an overflow (refused) from an underflow (a fine zero or
  // subnormal, as nlohmann/json and Go's encoding/json take it).
  const std::string copy(text_);
  value = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(value)) Fail("invalid JSON: number overflow parsing '" + copy + "'");
  return value;
}

nlohmann::json JsonReader::NumberValue() const {
  if (integral_) {
    const char* const end = text_.data() + text_.size();
    if (text_.front() == '-') {
      std::int64_t value = 0;
      if (auto r = std::from_chars(text_.data(), end, value); r.ec == std::errc()) return value;
    } else {
      std::uint64_t value = 0;
      if (auto r = std::from_chars(text_.data(), end, value); r.ec == std::errc()) return value;
    }
  }
  return Double();
}

void JsonReader::Fail(const std::string& message) const { throw InputError(where(), "", message); }

void JsonReader::FailAt(std::size_t index, const std::string& message) const {
  const std::uint64_t offset = base_ + index;
  throw InputError({source_, line_, static_cast<int>(offset - line_start_ + 1)}, "",
                   "invalid JSON: " + message);
}

void JsonReader::FailUnexpected(std::string_view expected) const {
  FailAt(pos_, "syntax error: expected " + std::string(expected) + ", got " + Describe(pos_));
}

std::string JsonReader::Describe(std::size_t index) const {
  if (index >= len_) return "the end of the input";
  const auto b = static_cast<unsigned char>(data_[index]);
  if (b >= 0x21 && b <= 0x7E) return std::string("'") + static_cast<char>(b) + "'";
  return "byte 0x" + Hex(b, 2);
}

namespace {

std::string MemberPath(const std::string& object_path, std::string_view key) {
  return object_path.empty() ? std::string(key) : object_path + "." + std::string(key);
}

}  // namespace

void FailDuplicateKey(const JsonReader& reader, const std::string& object_path,
                      std::string_view key) {
  throw InputError(reader.where(), MemberPath(object_path, key),
                   "duplicate key \"" + std::string(key) +
                       "\" (an object must not repeat a key: only the last value would count)");
}

nlohmann::json ReadJsonValue(JsonReader& reader, JsonReader::Token first, const std::string& path) {
  using Token = JsonReader::Token;
  switch (first) {
    case Token::kBeginObject: {
      nlohmann::json object = nlohmann::json::object();
      auto& members = object.get_ref<nlohmann::json::object_t&>();
      for (Token t = reader.Next(); t == Token::kKey; t = reader.Next()) {
        auto [member, added] = members.try_emplace(std::string(reader.text()));
        if (!added) FailDuplicateKey(reader, path, member->first);
        const std::string member_path = MemberPath(path, member->first);
        member->second = ReadJsonValue(reader, reader.Next(), member_path);
      }
      return object;
    }
    case Token::kBeginArray: {
      nlohmann::json array = nlohmann::json::array();
      std::size_t index = 0;
      for (Token t = reader.Next(); t != Token::kEndArray; t = reader.Next(), ++index) {
        array.push_back(ReadJsonValue(reader, t, path + "[" + std::to_string(index) + "]"));
      }
      return array;
    }
    case Token::kString:
      return std::string(reader.text());
    case Token::kNumber:
      return reader.NumberValue();
    case Token::kTrue:
      return true;
    case Token::kFalse:
      return false;
    case Token::kNull:
      return nullptr;
    case Token::kKey:
    case Token::kEndObject:
    case Token::kEndArray:
    case Token::kEnd:
      break;
  }
  // The reader's grammar check makes every value start with one of the tokens above.
  reader.Fail("invalid JSON: syntax error: expected a value");
}

}  // namespace sim
