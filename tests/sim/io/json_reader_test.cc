// sim/io/json_reader.h: the pull reader under the `model` commands. Its tokens and values
// (RFC 8259, numbers as nlohmann/json classifies them), its messages and their places, and
// the same tokens whether the text is in memory or streamed in 64 KiB reads.
#include "sim/io/json_reader.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "sim/io/input_error.h"
#include "sim/io/json_input.h"

using sim::JsonReader;
using Token = sim::JsonReader::Token;

namespace {

// Every token of `reader` as "kind:text", to the end.
std::vector<std::string> Tokens(JsonReader& reader) {
  static const char* const kNames[] = {"{",      "}",    "[",     "]",    "key", "string",
                                       "number", "true", "false", "null", "end"};
  std::vector<std::string> out;
  for (;;) {
    const Token t = reader.Next();
    if (t == Token::kNumber) reader.NumberValue();  // a number's value is read when asked
    out.push_back(std::string(kNames[static_cast<int>(t)]) + ":" + std::string(reader.text()));
    if (t == Token::kEnd) return out;
  }
}

std::vector<std::string> TokensOfText(const std::string& text) {
  JsonReader reader(std::string_view(text), "t.json");
  return Tokens(reader);
}

std::vector<std::string> TokensOfStream(const std::string& text) {
  std::istringstream in(text);
  JsonReader reader(in, "t.json");
  return Tokens(reader);
}

// The error reading all of `text` gives, as "line:column: message".
std::string ErrorOf(const std::string& text, bool streamed = false) {
  try {
    if (streamed) {
      TokensOfStream(text);
    } else {
      TokensOfText(text);
    }
  } catch (const sim::InputError& e) {
    return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " +
           e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("json reader: the tokens of a document, and their texts", "[json]") {
  CHECK(
      TokensOfText(R"( {"a": [1, -2.5e3, "x\ty", true, false, null], "": {}} )") ==
      std::vector<std::string>{"{:", "key:a", "[:", "number:1", "number:-2.5e3", "string:x\ty",
                               "true:", "false:", "null:", "]:", "key:", "{:", "}:", "}:", "end:"});
  CHECK(TokensOfText("7") == std::vector<std::string>{"number:7", "end:"});
  CHECK(TokensOfText("[]") == std::vector<std::string>{"[:", "]:", "end:"});
  // A UTF-8 byte order mark at the start is skipped (RFC 8259 section 8.1 allows it).
  CHECK(TokensOfText("\xEF\xBB\xBF[]") == std::vector<std::string>{"[:", "]:", "end:"});
  CHECK(TokensOfStream("\xEF\xBB\xBF[]") == std::vector<std::string>{"[:", "]:", "end:"});
}

TEST_CASE("json reader: strings are unescaped and checked as UTF-8", "[json]") {
  // \u00e9 is e-acute (C3 A9 in UTF-8); \ud83d\ude00 a surrogate pair for U+1F600
  // (F0 9F 98 80); raw multi-byte sequences pass as they are.
  CHECK(TokensOfText(R"(["\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "\u0000"])")[1] ==
        "string:\"\\/\b\f\n\r\t");
  CHECK(TokensOfText(R"(["\u00e9\ud83d\ude00"])")[1] == "string:\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(TokensOfText("[\"\\u0000\"]")[1] == std::string("string:") + '\0');
  CHECK(TokensOfText("[\"\xE2\x82\xAC \xF4\x8F\xBF\xBF\"]")[1] ==
        "string:\xE2\x82\xAC \xF4\x8F\xBF\xBF");
}

TEST_CASE("json reader: numbers take the values nlohmann/json gives them", "[json]") {
  const auto value = [](const std::string& text) {
    return sim::ParseJsonText("[" + text + "]", "t.json")[0];
  };
  CHECK(value("-0").is_number_integer());
  CHECK(value("-0").get<std::int64_t>() == 0);
  CHECK(value("18446744073709551615").is_number_unsigned());
  CHECK(value("18446744073709551615").get<std::uint64_t>() == UINT64_MAX);
  // Beyond uint64 (or int64 below zero), an integer is read as a double.
  CHECK(value("18446744073709551616").is_number_float());
  CHECK(value("18446744073709551616").get<double>() == 18446744073709551616.0);
  CHECK(value("-9223372036854775809").is_number_float());
  CHECK(value("0.1").get<double>() == 0.1);  // correctly rounded, as strtod
  CHECK(value("2.0").is_number_float());
  // Below a double's range is zero, not an error (as strtod and Go take it).
  CHECK(value("1e-400").get<double>() == 0.0);
  CHECK(value("4.9e-324").get<double>() > 0.0);  // the least subnormal

  JsonReader reader(std::string_view("[12, 1.5, 99999999999999999999]"), "t.json");
  reader.Next();
  std::int64_t i = 0;
  REQUIRE(reader.Next() == Token::kNumber);
  CHECK((reader.integral() && reader.Int64(i) && i == 12));
  REQUIRE(reader.Next() == Token::kNumber);
  CHECK_FALSE(reader.integral());
  CHECK_FALSE(reader.Int64(i));
  CHECK(reader.Double() == 1.5);
  REQUIRE(reader.Next() == Token::kNumber);
  CHECK(reader.integral());
  CHECK_FALSE(reader.Int64(i));  // beyond int64
}

TEST_CASE("json reader: each mistake is named at its line and column", "[json]") {
  // Columns count bytes from 1; the place is the byte that breaks the grammar.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "1:1: invalid JSON: syntax error: expected a value, got the end of the input"},
      {"[1 2]",
       "1:4: invalid JSON: syntax error: expected ',' or ']' after an array element, "
       "got '2'"},
      {"{\"a\":1 \"b\":2}",
       "1:8: invalid JSON: syntax error: expected ',' or '}' after an object member, got '\"'"},
      {"{\"a\" 1}", "1:6: invalid JSON: syntax error: expected ':' after an object key, got '1'"},
      {"{\"a\":1,}", "1:8: invalid JSON: syntax error: expected a string key, got '}'"},
      {"{1:2}", "1:2: invalid JSON: syntax error: expected a string key, got '1'"},
      {"[1,]", "1:4: invalid JSON: syntax error: expected a value, got ']'"},
      {"[\n  01]", "2:4: invalid JSON: syntax error: invalid number '01'"},
      {"[1.]", "1:4: invalid JSON: syntax error: invalid number '1.'"},
      {"[-]", "1:3: invalid JSON: syntax error: invalid number '-'"},
      {"[1e+]", "1:5: invalid JSON: syntax error: invalid number '1e+'"},
      {"[tru]", "1:5: invalid JSON: syntax error: invalid literal (expected true)"},
      {"[nul", "1:5: invalid JSON: syntax error: invalid literal (expected null)"},
      {"[x]", "1:2: invalid JSON: syntax error: expected a value, got 'x'"},
      {"[1] x",
       "1:5: invalid JSON: syntax error: expected the end of the input after the "
       "top-level value, got 'x'"},
      {"[1] [2]",
       "1:5: invalid JSON: syntax error: expected the end of the input after the "
       "top-level value, got '['"},
      {"\"a\nb\"",
       "1:3: invalid JSON: invalid string: control character U+000A must be "
       "escaped (\\u000A)"},
      {"\"abc", "1:5: invalid JSON: invalid string: the input ends inside a string"},
      {"\"a\\x\"", "1:3: invalid JSON: invalid string: unknown escape '\\x'"},
      {"\"\\u12g4\"",
       "1:2: invalid JSON: invalid string: '\\u' must be followed by four hexadecimal digits"},
      {"\"\\ud800x\"",
       "1:2: invalid JSON: invalid string: \\uD800 is a high surrogate, and "
       "must be followed by a low one (\\uDC00 to \\uDFFF)"},
      {"\"\\udc00\"",
       "1:2: invalid JSON: invalid string: \\uDC00 is a low surrogate without a "
       "high surrogate before it"},
      // An overlong '/', a UTF-8-encoded surrogate, and a byte that never starts one.
      {"\"\xC0\xAF\"", "1:2: invalid JSON: invalid string: ill-formed UTF-8 byte 0xC0"},
      {"\"\xED\xA0\x80\"", "1:3: invalid JSON: invalid string: ill-formed UTF-8 byte 0xA0"},
      {"\"a\xFF\"", "1:3: invalid JSON: invalid string: ill-formed UTF-8 byte 0xFF"},
      {"[\n  1e400]", "2:3: invalid JSON: number overflow parsing '1e400'"},
      {std::string("[\0]", 3), "1:2: invalid JSON: syntax error: expected a value, got byte 0x00"},
      {std::string(1001, '['),
       "1:1001: invalid JSON: syntax error: arrays and objects nested "
       "deeper than 1000"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(ErrorOf(text) == message);
    CHECK(ErrorOf(text, true) == message);
  }
  CHECK(ErrorOf(std::string(1000, '[') + std::string(1000, ']')).empty());
}

TEST_CASE("json reader: a repeated key is refused at its place, naming its path", "[json]") {
  try {
    sim::ParseJsonText("{\"a\": [{\"b\": 1,\n \"b\": 2}]}", "t.json");
    FAIL("accepted a repeated key");
  } catch (const sim::InputError& e) {
    CHECK(e.field_path() == "a[0].b");
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 2);
    CHECK(e.message() ==
          "duplicate key \"b\" (an object must not repeat a key: only the last value would "
          "count)");
  }
}

TEST_CASE("json reader: tokens that cross a 64 KiB read are read whole", "[json]") {
  // Each token starts a few bytes before the first read's end (65,536 bytes), so that it is
  // split there at one offset or another; the streamed tokens must be the in-memory ones.
  const std::vector<std::string> tokens = {
      R"("plain string")",
      R"("esc\"aped\u00e9\ud83d\ude00")",
      "\"utf-8 \xE2\x82\xAC\"",
      "-12345.678e-9",
      "true",
      "false",
      "null",
      R"({"key"   :   1})",
  };
  for (const std::string& token : tokens) {
    for (std::size_t before = 1; before <= token.size() + 1; ++before) {
      std::string text = "[";
      text.append((1 << 16) - 1 - before, ' ');
      text += token;
      text += ", 1]";
      INFO(token << " starting " << before << " bytes before the end of the first read");
      CHECK(TokensOfStream(text) == TokensOfText(text));
    }
  }
  // A string longer than a read, and a mistake beyond the first read at its place.
  const std::string long_string = "[\"" + std::string(200000, 'x') + "\"]";
  CHECK(TokensOfStream(long_string)[1].size() == 7 + 200000);
  const std::string late = "[\n" + std::string(70000, ' ') + "1 2]";
  CHECK(ErrorOf(late, true) == ErrorOf(late));
  CHECK(ErrorOf(late, true).rfind("2:70003: ", 0) == 0);
}

TEST_CASE("an integer field beyond int64 is refused, not wrapped", "[json]") {
  // 2^64 - 1 is a uint64 to nlohmann/json; taken as int64 it used to become -1 (a request
  // id of -1 in `apfsim model queueset`'s output).
  const nlohmann::json cases = sim::ParseJsonText(
      R"([{"big": 18446744073709551615, "max": 9223372036854775807}])", "t.json");
  const sim::JsonField c = sim::JsonField(cases, "t.json", "").At(0);
  CHECK(c["max"].Int() == INT64_MAX);
  try {
    c["big"].Int();
    FAIL("accepted 2^64 - 1 as an int64");
  } catch (const sim::InputError& e) {
    CHECK(e.field_path() == "[0].big");
    CHECK(e.message() ==
          "expected an integer, got 18446744073709551615, beyond 9223372036854775807");
  }
}

TEST_CASE("a string longer than 64 MiB is refused at its start", "[json]") {
  // The reader keeps a token whole in its buffer; one that does not fit in 64 MiB is
  // refused rather than buffered without bound.
  const std::string text = "[1,\n \"" + std::string(sim::JsonReader::kMaxTokenBytes, 'x') + "\"]";
  CHECK(ErrorOf(text, true) == "2:2: invalid JSON: a string or number longer than 64 MiB");
  const std::string fits = "[\"" + std::string(sim::JsonReader::kMaxTokenBytes - 64, 'x') + "\"]";
  CHECK(TokensOfStream(fits).size() == 4);
}
