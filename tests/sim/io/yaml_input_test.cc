// The strict YAML reader: typed getters refuse what Kubernetes' decoder refuses, unknown
// and duplicate fields fail with file, line, column and field path, and misspellings get
// a suggestion. Expected lines and columns are counted by hand in the inline documents.
#include "sim/io/yaml_input.h"

#include <catch2/catch.hpp>
#include <string>

using sim::InputError;
using sim::ParseYamlDocuments;
using sim::YamlMap;
using sim::YamlValue;

namespace {

YamlValue Doc(const std::string& text, size_t index = 0) {
  return YamlValue(ParseYamlDocuments(text, "t.yaml").at(index), "t.yaml", "");
}

// Runs `f`, which must throw an InputError; returns its text.
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("documents split on ---, empty ones dropped, syntax errors located", "[yaml_input]") {
  CHECK(ParseYamlDocuments("a: 1\n---\n---\nb: 2\n", "t.yaml").size() == 2);
  CHECK(ParseYamlDocuments("", "t.yaml").empty());
  const std::string e = ErrorOf([] { ParseYamlDocuments("a: 1\nb: [1, 2\n", "t.yaml"); });
  CHECK(e.rfind("t.yaml:", 0) == 0);
  CHECK(e.find("invalid YAML") != std::string::npos);
  CHECK(ErrorOf([] { sim::LoadYamlFile("/nonexistent/x.yaml"); }) ==
        "/nonexistent/x.yaml: cannot read the file: no such file");
}

TEST_CASE("scalars are typed as kubectl's decoder types them", "[yaml_input]") {
  YamlMap m = Doc("s: hello\n"
                  "quoted_number: \"123\"\n"
                  "number: 123\n"
                  "negative: -7\n"
                  "hex: 0x10\n"
                  "big: 4294967296\n"
                  "yes_word: yes\n"
                  "t: true\n"
                  "f: 1.5\n"
                  "d: 250ms\n"
                  "nothing: ~\n")
                  .Map();
  CHECK(m.Required("s").String() == "hello");
  CHECK(m.Required("quoted_number").String() == "123");
  CHECK(m.Required("number").Int32() == 123);
  CHECK(m.Required("negative").Int64() == -7);
  CHECK(m.Required("hex").Int64() == 16);
  CHECK(m.Required("big").Int64() == 4294967296LL);
  CHECK(m.Required("yes_word").Bool());  // YAML 1.1, as go-yaml reads it
  CHECK(m.Required("t").Bool());
  CHECK(m.Required("f").Number() == 1.5);
  CHECK(m.Required("d").Duration() == 250 * apf::kMillisecond);
  CHECK_FALSE(m.Optional("nothing"));
  CHECK(m.Required("number").Text() == "123");

  CHECK(ErrorOf([&] { m.Required("number").String(); }) ==
        "t.yaml:3:9: number: expected a string, got an integer (123); quote it if a string is "
        "meant");
  CHECK(ErrorOf([&] { m.Required("quoted_number").Int64(); }) ==
        "t.yaml:2:16: quoted_number: expected an integer, got the string \"123\"");
  CHECK(ErrorOf([&] { m.Required("big").Int32(); }) ==
        "t.yaml:6:6: big: integer 4294967296 does not fit in 32 bits");
  CHECK(ErrorOf([&] { m.Required("s").Bool(); }) ==
        "t.yaml:1:4: s: expected true or false, got the string \"hello\"");
  CHECK(ErrorOf([&] { m.Required("s").Duration(); }) ==
        "t.yaml:1:4: s: expected a number in duration \"hello\"");
  CHECK(ErrorOf([&] { m.Required("missing"); }) ==
        "t.yaml:1:1: missing: required field is missing");
  CHECK(ErrorOf([&] { m.Required("nothing"); }) == "t.yaml:11:1: nothing: required field is null");
}

TEST_CASE("unknown fields fail at their key, with a suggestion", "[yaml_input]") {
  const YamlValue doc =
      Doc("spec:\n"
          "  limited:\n"
          "    lendablePercnt: 50\n"
          "    borrowingLimitPercent: 0\n");
  YamlMap spec = doc.Map().Required("spec").Map();
  YamlMap limited = spec.Required("limited").Map();
  limited.Optional("lendablePercent");
  limited.Optional("borrowingLimitPercent");
  CHECK(ErrorOf([&] { limited.Finish(); }) ==
        "t.yaml:3:5: spec.limited.lendablePercnt: unknown field (did you mean "
        "\"lendablePercent\"?)");
  // Far from every known key: the known ones are listed instead.
  YamlMap top = Doc("zzz: 1\n").Map();
  top.Optional("alpha");
  top.Optional("beta");
  CHECK(ErrorOf([&] { top.Finish(); }) ==
        "t.yaml:1:1: zzz: unknown field (known fields: alpha, beta)");
  // Ignored keys are known.
  YamlMap ignored = Doc("uid: abc\nname: x\n").Map();
  ignored.Ignore("uid");
  ignored.Required("name");
  CHECK_NOTHROW(ignored.Finish());
}

TEST_CASE("duplicate fields and non-mappings are refused", "[yaml_input]") {
  CHECK(ErrorOf([] { Doc("a: 1\nb: 2\na: 3\n").Map(); }) ==
        "t.yaml:3:1: a: duplicate field (also at line 1)");
  CHECK(ErrorOf([] { Doc("- 1\n- 2\n").Map(); }) ==
        "t.yaml:1:1: (top level): expected a mapping, got a list");
  YamlMap m = Doc("items: 3\n").Map();
  CHECK(ErrorOf([&] { m.Required("items").Items(); }) ==
        "t.yaml:1:8: items: expected a list, got an integer (3)");
}

TEST_CASE("lists, string lists and string maps carry element paths", "[yaml_input]") {
  YamlMap m = Doc("verbs: [get, list]\n"
                  "bad: [get, 7]\n"
                  "labels: {app: web, tier: \"1\"}\n")
                  .Map();
  CHECK(m.Required("verbs").StringList() == std::vector<std::string>{"get", "list"});
  CHECK(ErrorOf([&] { m.Required("bad").StringList(); }) ==
        "t.yaml:2:12: bad[1]: expected a string, got an integer (7); quote it if a string is "
        "meant");
  const auto labels = m.Required("labels").StringMap();
  CHECK(labels.at("app") == "web");
  CHECK(labels.at("tier") == "1");
  YamlValue list = m.Required("verbs");
  CHECK(list.size() == 2);
  CHECK(list[1].path() == "verbs[1]");
  CHECK(list[1].where().line == 1);
  CHECK(list[1].where().column == 14);
}

TEST_CASE("optional conveniences fall back when a key is absent", "[yaml_input]") {
  YamlMap m = Doc("a: 5\nd: 1s\n").Map();
  CHECK(m.Int64Or("a", 9) == 5);
  CHECK(m.Int64Or("b", 9) == 9);
  CHECK(m.StringOr("c", "x") == "x");
  CHECK(m.BoolOr("e", true));
  CHECK(m.DurationOr("d", 0) == apf::kSecond);
  CHECK(m.NumberOr("f", 2.5) == 2.5);
  CHECK(m.Keys() == std::vector<std::string>{"a", "d"});
}

TEST_CASE("ClosestMatch suggests likely typos only", "[yaml_input]") {
  CHECK(sim::ClosestMatch("queus", {"queues", "handSize"}) == "queues");
  CHECK(sim::ClosestMatch("HANDSIZE", {"queues", "handSize"}) == "handSize");
  CHECK(sim::ClosestMatch("priority", {"queues", "handSize"}) == "");
}
