// RFC 4180 CSV (sim/io/csv.h): the quoting every CSV apfsim writes follows, the reading of
// trace files and sweep parts, and a client named with a comma and quotes going through
// clients.csv whole. The expected texts are RFC 4180's rules applied by hand:
// a field with a comma, a quote or a line break is quoted, a quote doubled.
#include "sim/io/csv.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

TEST_CASE("CsvField quotes only what needs it and doubles quotes", "[csv]") {
  CHECK(sim::CsvField("argocd") == "argocd");
  CHECK(sim::CsvField("") == "");
  CHECK(sim::CsvField("ops,east \"blue\"") == "\"ops,east \"\"blue\"\"\"");
  CHECK(sim::CsvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(sim::CsvField("two\nlines") == "\"two\nlines\"");
  CHECK(sim::CsvField("cr\r") == "\"cr\r\"");
  CHECK(sim::CsvRecord({"1", "a,b", ""}) == "1,\"a,b\",");
}

TEST_CASE("SplitCsvRecord reads RFC 4180 quoting and keeps a quote inside a field", "[csv]") {
  std::vector<std::string> f;
  REQUIRE(sim::SplitCsvRecord("1,\"a,b\",\"say \"\"hi\"\"\",,x", &f));
  CHECK(f == std::vector<std::string>{"1", "a,b", "say \"hi\"", "", "x"});
  CHECK_FALSE(sim::SplitCsvRecord("1,\"open", &f));
  // A quote that does not open a field is part of it (it used to be dropped, and the
  // field read as quoted from there on).
  REQUIRE(sim::SplitCsvRecord("0.1,argocd,get,,configmaps,apps,it\"s,,", &f));
  CHECK(f[6] == "it\"s");
  // A line's CR (a file written on Windows) is not part of the last field.
  REQUIRE(sim::SplitCsvRecord("a,b\r", &f));
  CHECK(f == std::vector<std::string>{"a", "b"});
  // What CsvRecord writes reads back the same.
  const std::vector<std::string> values = {"ops,east \"blue\"", "", "two\nlines", "x\"y"};
  REQUIRE(sim::SplitCsvRecord(sim::CsvRecord(values), &f));
  CHECK(f == values);
}

TEST_CASE("SplitUnquotedCsvRecord splits as SplitCsvRecord does, eight bytes at a time", "[csv]") {
  std::vector<std::string_view> views;
  std::vector<std::string> strings;
  // Fields of every length from 0 to 19 put commas at every offset of an eight-byte word,
  // and records from 0 to 40 bytes end in every part of one: the word loop and the byte
  // loop after it must both find each comma once, in order.
  for (size_t width = 0; width < 20; ++width) {
    for (size_t count = 1; count <= 5; ++count) {
      std::string record;
      for (size_t i = 0; i < count; ++i) {
        if (i > 0) record += ',';
        record += std::string(width, static_cast<char>('a' + i));
      }
      INFO(record);
      REQUIRE(sim::SplitUnquotedCsvRecord(record, &views));
      REQUIRE(sim::SplitCsvRecord(record, &strings));
      CHECK(std::vector<std::string>(views.begin(), views.end()) == strings);
      CHECK(views.size() == count);
    }
  }
  REQUIRE(sim::SplitUnquotedCsvRecord("0.5,,get,,pods,ns-1,,limit=500,\r", &views));
  CHECK(views ==
        std::vector<std::string_view>{"0.5", "", "get", "", "pods", "ns-1", "", "limit=500", ""});
  REQUIRE(sim::SplitUnquotedCsvRecord("", &views));
  CHECK(views == std::vector<std::string_view>{""});
  // A quote inside a field is a character; one that opens a field, in the first word, at
  // a word's end or in the tail, hands the record to SplitCsvRecord.
  REQUIRE(sim::SplitUnquotedCsvRecord("say \"hi\",x", &views));
  CHECK(views == std::vector<std::string_view>{"say \"hi\"", "x"});
  CHECK_FALSE(sim::SplitUnquotedCsvRecord("\"a,b\",c", &views));
  CHECK_FALSE(sim::SplitUnquotedCsvRecord("1234567,\"a\"", &views));
  CHECK_FALSE(sim::SplitUnquotedCsvRecord("123456789012345678,\"a\"", &views));
}

TEST_CASE("ReadCsvRecord joins the lines of a quoted line break", "[csv]") {
  std::istringstream in("a,\"two\nlines\",c\nnext,row\n\"open\n");
  std::string record;
  int lines = 0;
  REQUIRE(sim::ReadCsvRecord(in, &record, &lines));
  CHECK(record == "a,\"two\nlines\",c");
  CHECK(lines == 2);
  REQUIRE(sim::ReadCsvRecord(in, &record, &lines));
  CHECK(record == "next,row");
  CHECK(lines == 3);
  REQUIRE(sim::ReadCsvRecord(in, &record, &lines));  // left open to the end of input
  std::vector<std::string> f;
  CHECK_FALSE(sim::SplitCsvRecord(record, &f));
  CHECK_FALSE(sim::ReadCsvRecord(in, &record, &lines));
}

TEST_CASE("a client named with a comma and quotes is one cell of clients.csv", "[csv]") {
  const test_support::ScratchDir scratch("apfsim-csv");
  const std::filesystem::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: csv-names}
spec:
  duration: 2s
  clients:
  - name: 'ops,east "blue"'
    user: ops
    traffic:
    - constant: {rate: 1, request: {verb: get, resource: pods, namespace: a, name: p}}
)";
  sim::RunRequest request;
  request.scenario_file = file.string();
  request.out_dir = (scratch.path() / "out").string();
  request.quiet = true;
  sim::RunScenario(request);
  std::istringstream in(test_support::ReadFile(scratch.path() / "out" / "clients.csv"));
  std::string record;
  std::vector<std::string> header, row;
  REQUIRE(sim::ReadCsvRecord(in, &record));
  REQUIRE(sim::SplitCsvRecord(record, &header));
  REQUIRE(sim::ReadCsvRecord(in, &record));
  CHECK(record.rfind("0,\"ops,east \"\"blue\"\"\",", 0) == 0);
  REQUIRE(sim::SplitCsvRecord(record, &row));
  CHECK(row.size() == header.size());
  CHECK(row[1] == "ops,east \"blue\"");
}
