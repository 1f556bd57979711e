// Strict reading of YAML input (flow-control manifests, scenario files): every error is
// a sim::InputError that names the file, the line and column, and the field path
// ("spec.limited.limitResponse.queuing.queues"), in the manner of
// `kubectl apply --validate=strict`.
//
// The pieces:
//   - ParseYamlDocuments / LoadYamlFile: text or a file to its `---`-separated documents;
//     a syntax error carries its line and column.
//   - YamlValue: one node at a field path, with typed getters that refuse what Kubernetes'
//     decoder refuses: a plain 123 is not a string, a quoted "123" is not an integer, a
//     number out of int32 range is not an int32.
//   - YamlMap: a mapping read strictly. The reader names each key it understands
//     (Required, Optional, Ignore); Finish() then fails on the first key it did not name,
//     as an unknown field, and suggests the closest known key ("did you mean ...?").
//
// A typical reader:
//   YamlMap spec = value.Map();
//   int32_t queues = spec.Required("queues").Int32();
//   std::optional<YamlValue> hand = spec.Optional("handSize");
//   spec.Ignore("comment");            // accepted and not used
//   spec.Finish();                     // any other key is an error
//
// Scalars are typed with the YAML 1.1 rules of the go-yaml library that kubectl's
// decoder uses, so `yes` is a boolean and `0x10` an integer. Text() gives a scalar's
// text whatever its type, for readers that want to be lenient.
#ifndef SIM_IO_YAML_INPUT_H_
#define SIM_IO_YAML_INPUT_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apf/base/virtual_time.h"
#include "sim/io/input_error.h"

namespace sim {

class YamlMap;

// The longest duration a scenario or manifest may give (100000h, over eleven years): far
// beyond any run, and small enough that the run's clock plus a few such durations, or one
// times a count of a million, stays within int64 nanoseconds.
inline constexpr apf::Nanos kMaxInputDuration = apf::Nanos{100000} * 3600 * 1000000000;

// The documents of `text` ("---"-separated); empty documents are dropped. A syntax error
// throws an InputError at its line and column of `source_name`.
std::vector<YAML::Node> ParseYamlDocuments(std::string_view text, const std::string& source_name);

// Reads and parses a file, or standard input for "-"; an unreadable file throws an
// InputError naming it.
std::vector<YAML::Node> LoadYamlFile(const std::string& path);

// "-" is standard input wherever a command reads a YAML file (`kubectl get ... -o yaml |
// apfsim lint --config -`), named "<stdin>" in messages. It is read once: a second read of
// "-" in the same process gets the same text.
inline constexpr const char* kStdinPath = "-";
std::string InputSourceName(const std::string& path);
// The whole text of a file or of standard input; an unreadable file throws an InputError.
std::string ReadInputText(const std::string& path);

// One YAML node with the source it came from and its field path ("" at the top of a
// document). Cheap to copy (YAML::Node is a handle).
class YamlValue {
 public:
  YamlValue(YAML::Node node, std::string source, std::string path);

  const YAML::Node& node() const { return node_; }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }
  // Where the node starts (1-based line and column; 0 when unknown).
  SourceLocation where() const;
  // Throws an InputError at this node, naming its path.
  [[noreturn]] void Fail(const std::string& message) const;

  bool IsNull() const;
  bool IsMap() const { return node_.IsMap(); }
  bool IsSequence() const { return node_.IsSequence(); }
  bool IsScalar() const { return node_.IsScalar(); }

  // Scalars. Each fails, naming the path and what was found, when the node is not of
  // that type.
  std::string String() const;  // a string; a plain scalar that reads as a number,
                               // boolean or null is refused (quote it)
  std::string Text() const;    // any scalar's text
  std::int64_t Int64() const;
  std::int32_t Int32() const;
  std::uint64_t Uint64() const;
  // Refuses NaN, infinities and literals beyond a double (1e400).
  double Number() const;  // an integer or a float
  bool Bool() const;
  // "250ms", "1.5s", "5m" (sim/io/duration.h); a bare 0 is 0. At most kMaxInputDuration
  // either way.
  apf::Nanos Duration() const;

  // Sequences.
  std::size_t size() const;  // elements of a sequence (fails on other nodes)
  YamlValue operator[](std::size_t index) const;
  std::vector<YamlValue> Items() const;  // the elements; fails unless a sequence
  // A sequence of strings; null and an empty sequence give {}.
  std::vector<std::string> StringList() const;

  // Mappings.
  YamlMap Map() const;  // fails unless a mapping
  // A mapping of strings to strings (labels, annotations); null gives {}.
  std::map<std::string, std::string> StringMap() const;

  // The path of a child: "a.b" for a key, "a[3]" for an index.
  std::string ChildPath(std::string_view key) const;
  std::string IndexPath(std::size_t index) const;

 private:
  std::string Describe() const;  // what the node is, for messages

  YAML::Node node_;
  std::string source_;
  std::string path_;
};

// A mapping read strictly; see the file comment. Not copyable: it tracks which keys the
// reader has named.
class YamlMap {
 public:
  explicit YamlMap(const YamlValue& value);
  YamlMap(const YamlMap&) = delete;
  YamlMap& operator=(const YamlMap&) = delete;
  YamlMap(YamlMap&&) = default;

  const YamlValue& value() const { return value_; }

  // Present and not null (names the key as known).
  bool Has(std::string_view key);
  // The value of a key that must be present and not null.
  YamlValue Required(std::string_view key);
  // The value of an optional key; nullopt when absent or null.
  std::optional<YamlValue> Optional(std::string_view key);
  // Names keys that are accepted and not read.
  void Ignore(std::string_view key);
  void Ignore(std::initializer_list<std::string_view> keys);

  // Conveniences for optional scalars.
  std::string StringOr(std::string_view key, std::string fallback);
  std::int64_t Int64Or(std::string_view key, std::int64_t fallback);
  double NumberOr(std::string_view key, double fallback);
  bool BoolOr(std::string_view key, bool fallback);
  apf::Nanos DurationOr(std::string_view key, apf::Nanos fallback);

  // The keys in document order.
  std::vector<std::string> Keys() const;

  // Fails on the first key (in document order) that the reader has not named.
  void Finish() const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
    bool known = false;
  };
  Entry* Find(std::string_view key);

  YamlValue value_;
  std::vector<Entry> entries_;
  std::vector<std::string> known_keys_;
};

// The closest of `candidates` to `word` when it is close enough to be a likely typo
// (case-insensitive equal, or an edit distance of at most 2), else "".
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean \"NAME\"?)" for the ClosestMatch of `word`, or "" when there is none:
// the tail of every "no such name" message.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace sim

#endif  // SIM_IO_YAML_INPUT_H_
