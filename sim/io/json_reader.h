// A pull reader of JSON text (RFC 8259), from a stream or from text in memory: the
// `model` commands' input. It hands out one token at a time and checks the grammar as it
// goes, so that a reader of a long request list can take each request's fields straight
// into its own records, holding neither the document nor a DOM of one request.
//
// Why not nlohmann/json's SAX parser: it reads its input one byte at a time through an
// iterator, copies every token into a string and builds a value for every number, which
// made the streamed queue-set replay spend most of its time reading. This
// reader scans plain strings and numbers in place in a 64 KiB buffer and converts a
// number only when asked, with std::from_chars (correctly rounded, as strtod is).
//
// Errors are InputErrors at the line and column (1-based, in bytes) of the offending
// byte: "invalid JSON: syntax error: ...", "invalid JSON: invalid string: ..." or
// "invalid JSON: number overflow parsing '1e400'".
#ifndef SIM_IO_JSON_READER_H_
#define SIM_IO_JSON_READER_H_

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/input_error.h"

namespace sim {

class JsonReader {
 public:
  enum class Token : std::uint8_t {
    kBeginObject,
    kEndObject,
    kBeginArray,
    kEndArray,
    kKey,  // an object member's name, with its ':' read; its value is the next token
    kString,
    kNumber,
    kTrue,
    kFalse,
    kNull,
    kEnd,  // the end of the input, after the one top-level value
  };

  // Arrays and objects nested deeper than this are refused, so that nothing that walks a
  // value recursively (dump(), a reader's own descent) can exhaust the stack.
  static constexpr int kMaxDepth = 1000;
  // A single string or number longer than this is refused rather than buffered.
  static constexpr std::size_t kMaxTokenBytes = std::size_t{64} << 20;

  JsonReader(std::istream& in, std::string source);
  JsonReader(std::string_view text, std::string source);  // `text` must outlive the reader
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  Token Next();

  // kKey and kString: the text, unescaped; kNumber: the number as written. Valid until
  // the next call of Next().
  std::string_view text() const { return text_; }

  // kNumber: whether it has neither a fraction nor an exponent.
  bool integral() const { return integral_; }
  // kNumber: its value when it is integral and fits an int64.
  bool Int64(std::int64_t& out) const;
  // kNumber: its value as a double; a number beyond a double's range is an error.
  double Double() const;
  // kNumber: the value nlohmann/json would give it: int64 for a negative integer,
  // uint64 for a non-negative one, double otherwise or when the integer does not fit.
  nlohmann::json NumberValue() const;

  // Where the last token began; line() and column() give it without copying the source's
  // name.
  SourceLocation where() const { return {source_, line(), column()}; }
  int line() const { return token_line_; }
  int column() const { return static_cast<int>(token_ - token_line_start_ + 1); }
  const std::string& source() const { return source_; }
  [[noreturn]] void Fail(const std::string& message) const;  // at the last token

 private:
  enum class Expect : std::uint8_t {
    kValue,
    kValueOrEnd,  // after '['
    kKeyOrEnd,    // after '{'
    kCommaOrEnd,  // after a member or an element
    kInputEnd,    // after the top-level value
    kDone,
  };

  void SkipByteOrderMark();
  bool Fill();  // reads more, keeping bytes from mark_; false at the end of the input
  bool Available(std::size_t n);  // at least n bytes from pos_, reading as needed
  // Makes data_[i, i + n) readable, reading on as needed; a read may move the buffer,
  // and `i` then follows the byte it named. False at the end of the input.
  bool More(std::size_t& i, std::size_t n);
  void SkipWhitespace();
  Token ReadValue(char c);
  Token ReadKey();
  void ReadString();
  void ReadStringSlowly(std::size_t start);
  void ReadNumber();
  Token ReadLiteral(std::string_view word, Token token);
  Token Close(char bracket);
  void AfterValue();
  [[noreturn]] void FailAt(std::size_t index, const std::string& message) const;
  [[noreturn]] void FailUnexpected(std::string_view expected) const;
  std::string Describe(std::size_t index) const;

  std::istream* in_ = nullptr;
  std::string source_;
  std::vector<char> buffer_;
  const char* data_ = nullptr;  // buffer_.data(), or the text read in memory
  std::size_t len_ = 0;         // bytes of data_ that hold input
  std::size_t pos_ = 0;         // the next byte to read
  std::size_t mark_ = 0;        // Fill keeps bytes from here on
  std::uint64_t base_ = 0;      // the input offset of data_[0]
  bool at_eof_ = false;

  int line_ = 1;
  std::uint64_t line_start_ = 0;  // the input offset of the current line's first byte
  std::uint64_t token_ = 0;       // the input offset of the last token
  int token_line_ = 1;
  std::uint64_t token_line_start_ = 0;

  Expect expect_ = Expect::kValue;
  std::vector<char> stack_;  // '{' or '[' per open container
  std::string_view text_;
  std::string unescaped_;  // text_'s bytes when a string had escapes or crossed a read
  bool integral_ = false;
};

// Reads the value whose first token `first` was just read into a document. A key repeated
// in one object is refused (nlohmann/json, like Go's encoding/json, would keep the last
// value silently), naming the field path: `path` is the value's own ("" at the top).
nlohmann::json ReadJsonValue(JsonReader& reader, JsonReader::Token first, const std::string& path);

// The error for key `key`, the reader's last token, repeated in the object at
// `object_path`.
[[noreturn]] void FailDuplicateKey(const JsonReader& reader, const std::string& object_path,
                                   std::string_view key);

}  // namespace sim

#endif  // SIM_IO_JSON_READER_H_
