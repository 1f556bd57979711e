// `apfsim model NAME`: replays one apf/ model on JSON cases read from stdin and writes the
// model's decisions as JSON on stdout. These are how cases recorded from the real
// kube-apiserver code are checked against ours. Every model is one row of the table
// below: its adapter in sim/model/ (JSON cases in, JSON answers out) and how its answer
// is laid out; this file is the one stdin/stdout path they share.
//
// Tested by tests/sim/model/ and tests/cli/ (which run the binary).
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>
#include <utility>

#include "sim/cli/command.h"
#include "sim/flowcontrol/loader.h"
#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
#include "sim/io/json_reader.h"
#include "sim/io/yaml_input.h"
#include "sim/model/allocation.h"
#include "sim/model/classify.h"
#include "sim/model/dealer.h"
#include "sim/model/estimate.h"
#include "sim/model/queue_set_replay.h"
#include "sim/model/retry_after.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

constexpr const char* kSource = "<stdin>";  // how InputErrors name the cases

// Replays parsed cases; `source` names them in InputErrors.
using Replay =
    std::function<nlohmann::json(const nlohmann::json& cases, const std::string& source)>;

// How an answer is printed. Recorded answers are diffed line by line, so the models with
// many cases print one per line.
enum class Layout {
  kIndented,       // dump(2)
  kOneLine,        // dump()
  kCasePerLine,    // [ then one case per line ]
  kResultPerLine,  // one case per line, and one of its "results" per line within it (the
                   // model's own stream writes it)
};

struct ModelCommand {
  std::string_view name;
  std::string_view summary;  // for `apfsim model --help`
  std::string_view usage;    // for `apfsim model NAME --help`
  Layout layout;
  // Declares the model's options beyond --help (nullptr: none).
  void (*declare_options)(po::options_description& options);
  // Makes the replay from the parsed options; runs before stdin is read, so a bad option
  // fails first.
  Replay (*prepare)(const po::variables_map& values);
  // Reads the cases and writes the answers as they come, in the layout, for a model whose
  // cases hold long request lists (nullptr: StreamCases reads and replays one case at a
  // time).
  void (*stream)(std::istream& in, std::ostream& out, const std::string& source);
};

template <nlohmann::json (*kAdapter)(const nlohmann::json&, const std::string&)>
Replay Adapter(const po::variables_map&) {
  return kAdapter;
}

// classify's --config and --kubernetes-version: the configuration it classifies against.
void DeclareClassifyOptions(po::options_description& options) {
  options.add_options()("config", po::value<std::vector<std::string>>()->composing()->multitoken(),
                        "a file of FlowSchemas and PriorityLevelConfigurations (repeatable); an "
                        "object replaces the default of the same name")(
      "kubernetes-version", po::value<std::string>()->default_value("1.36"),
      "whose default objects to start from (1.29 to 1.37)");
}

Replay PrepareClassify(const po::variables_map& values) {
  const std::vector<std::string> files = values.count("config")
                                             ? values["config"].as<std::vector<std::string>>()
                                             : std::vector<std::string>();
  const apf::KubernetesVersion version = ParseKubernetesVersionOrThrow(
      values["kubernetes-version"].as<std::string>(), "--kubernetes-version");
  const FlowControlManifests manifests = LoadFlowControlFiles(files);
  ThrowIfInvalid(manifests);
  // The classifier reads the configuration it was built from: both live as long as the replay.
  struct Classification {
    explicit Classification(FlowControlSetup s) : setup(std::move(s)), classifier(setup.config) {}
    FlowControlSetup setup;
    apf::Classifier classifier;
  };
  auto classification =
      std::make_shared<const Classification>(BuildFlowControl(version, manifests));
  for (const apf::ConfigNote& n : classification->setup.notes) {
    std::cerr << "apfsim model classify: note: " << n.object_kind << " " << n.name << ": "
              << n.message << "\n";
  }
  return [classification](const nlohmann::json& cases, const std::string& source) {
    return ClassifyCases(classification->classifier, cases, source);
  };
}

// Sorted by name, as `apfsim model --help` lists them.
const ModelCommand kModels[] = {
    {"allocation", "seat allocation: limits per level and currentCL per period",
     "apfsim model allocation < cases.json > results.json\n"
     "input: a JSON array of {\"serverConcurrencyLimit\": int, \"levels\": [{\"name\", \"type\":\n"
     "  \"Limited\"|\"Exempt\", \"nominalConcurrencyShares\", \"lendablePercent\",\n"
     "  \"borrowingLimitPercent\" (int or null), \"queuing\": {\"queues\", \"handSize\",\n"
     "  \"queueLengthLimit\"} or null}], \"periods\": [{\"LEVEL\": {\"average\", \"stdDev\", "
     "\"max\",\n"
     "  \"duration\" (seconds)}}]}; out: each level's nominalCL, minCL, maxCL, maxSeats and\n"
     "  its currentCL per period\n"
     "example:\n"
     "  echo '[{\"serverConcurrencyLimit\": 100, \"levels\": [{\"name\": \"a\", \"type\": "
     "\"Limited\",\n"
     "    \"nominalConcurrencyShares\": 30, \"lendablePercent\": 0, \"borrowingLimitPercent\": "
     "null,\n"
     "    \"queuing\": null}], \"periods\": []}]' | apfsim model allocation",
     Layout::kIndented, nullptr, Adapter<ReplayAllocationCases>, nullptr},
    {"classify", "the FlowSchema, level, distinguisher and flow hash of each request",
     "apfsim model classify [--config FILE]... [--kubernetes-version V] < requests.json\n"
     "input: a JSON array of requests as the apiserver sees them after authentication:\n"
     "  {\"user\", \"groups\" (used as given), \"verb\", \"apiGroup\", \"resource\",\n"
     "  \"subresource\", \"namespace\", \"name\", \"path\", \"isResourceRequest\"}; only user and\n"
     "  verb are required; out: flowSchema, priorityLevel, distinguisher and hash of each\n"
     "example:\n"
     "  echo '[{\"user\": \"alice\", \"groups\": [\"system:authenticated\"], \"verb\": \"list\",\n"
     "    \"resource\": \"pods\", \"namespace\": \"default\"}]' | apfsim model classify",
     Layout::kOneLine, DeclareClassifyOptions, PrepareClassify, nullptr},
    {"dealer", "deal shuffle-sharding hands (deck, hand, hash) like shufflesharding.go",
     "apfsim model dealer < cases.json\n"
     "input: a JSON array of {\"deckSize\": int, \"handSize\": int, \"hashValue\": \"<uint64>\"};\n"
     "  out: {\"valid\": true, \"hand\": [cards in deal order]} or {\"valid\": false, \"error\"}\n"
     "example:\n"
     "  echo '[{\"deckSize\": 64, \"handSize\": 6, \"hashValue\": \"1234567890\"}]' | apfsim model "
     "dealer",
     Layout::kCasePerLine, nullptr, Adapter<ReplayDealerCases>, nullptr},
    {"estimate",
     "estimate seats and additional latency of requests like the apiserver's work estimator",
     "apfsim model estimate < cases.json\n"
     "input: a JSON array of {\"request\": {\"verb\", \"apiGroup\", \"resource\", "
     "\"subresource\",\n"
     "  \"namespace\", \"name\", \"query\": \"limit=500&...\", \"isResourceRequest\", \"path\"} or "
     "null,\n"
     "  \"objectCount\", \"avgObjectSizeBytes\", \"statsError\": \"\"|\"notFound\"|\"stale\",\n"
     "  \"watchCount\", \"maxSeats\" (the level's; 0: unset), \"featureGates\":\n"
     "  {\"SizeBasedListCostEstimate\", \"WatchList\"}, \"consistentReadFromCache\"};\n"
     "  out: initialSeats, finalSeats, additionalLatencyNs of each\n"
     "example:\n"
     "  echo '[{\"request\": {\"verb\": \"list\", \"resource\": \"configmaps\", \"query\": "
     "\"limit=500\"},\n"
     "    \"objectCount\": 450, \"avgObjectSizeBytes\": 100}]' | apfsim model estimate",
     Layout::kCasePerLine, nullptr, Adapter<ReplayEstimateCases>, nullptr},
    {"flowhash", "hashFlowID(flowSchema, distinguisher) for each case",
     "apfsim model flowhash < cases.json\n"
     "input: a JSON array of {\"flowSchema\": str, \"distinguisher\": str}; out: {\"hash\"}\n"
     "example:\n"
     "  echo '[{\"flowSchema\": \"service-accounts\",\n"
     "    \"distinguisher\": \"system:serviceaccount:default:app\"}]' | apfsim model flowhash",
     Layout::kOneLine, nullptr, Adapter<FlowHashCases>, nullptr},
    {"queueset",
     "replay arrivals, completions and time-outs through one queue set like queueset.go",
     "apfsim model queueset < cases.json\n"
     "input: a JSON array of {\"queueset\": {\"concurrencyLimit\", \"queues\" (0: Reject, -1:\n"
     "  Exempt), \"handSize\", \"queueLengthLimit\"}, \"requests\": [{\"id\", \"arrive\" (s),\n"
     "  \"flowSchema\", \"distinguisher\", \"initialSeats\", \"finalSeats\", \"additionalLatency\" "
     "(s),\n"
     "  \"service\" (s), \"waitLimit\" (s, default 15)}]}; out: each request's outcome, queue and\n"
     "  dispatch, finish and release times in ns\n"
     "example:\n"
     "  echo '[{\"queueset\": {\"concurrencyLimit\": 2, \"queues\": 8, \"handSize\": 2,\n"
     "    \"queueLengthLimit\": 5}, \"requests\": [{\"id\": 1, \"arrive\": 0, \"service\": 0.5},\n"
     "    {\"id\": 2, \"arrive\": 0.1, \"service\": 0.5, \"initialSeats\": 2}]}]' | apfsim model "
     "queueset",
     Layout::kResultPerLine, nullptr, Adapter<ReplayQueueSetCases>, StreamQueueSetCases},
    {"retry-after",
     "replay drops through one level's Retry-After tracker (dropped_requests_tracker.go)",
     "apfsim model retry-after < cases.json\n"
     "input: a JSON array of {\"drops\": [unix seconds, ...]} at one level; out: the\n"
     "  Retry-After each drop's 429 carries\n"
     "example:\n"
     "  echo '[{\"drops\": [100, 100, 101, 105]}]' | apfsim model retry-after",
     Layout::kCasePerLine, nullptr, Adapter<ReplayRetryAfterCases>, nullptr},
};

// Writes answer `index` of the list being printed, as the list's dump in `layout` would
// show it, so that answers can be written one at a time with the same bytes.
void WriteAnswer(std::ostream& out, Layout layout, std::size_t index,
                 const nlohmann::json& answer) {
  switch (layout) {
    case Layout::kIndented: {
      // dump(2) of a list puts each element's lines two spaces further in.
      out << (index == 0 ? "[\n" : ",\n");
      std::istringstream lines(answer.dump(2));
      bool first = true;
      for (std::string line; std::getline(lines, line); first = false) {
        out << (first ? "" : "\n") << "  " << line;
      }
      return;
    }
    case Layout::kOneLine:
      out << (index == 0 ? "[" : ",") << answer.dump();
      return;
    case Layout::kCasePerLine:
    case Layout::kResultPerLine:
      out << (index == 0 ? "[\n" : ",\n") << answer.dump();
      return;
  }
}

// Ends a list of `count` answers written by WriteAnswer.
void WriteEnd(std::ostream& out, Layout layout, std::size_t count) {
  switch (layout) {
    case Layout::kIndented:
    case Layout::kOneLine:
      out << (count == 0 ? "[]\n" : layout == Layout::kIndented ? "\n]\n" : "]\n");
      return;
    case Layout::kCasePerLine:
    case Layout::kResultPerLine:
      out << (count == 0 ? "[" : "") << "\n]\n";
      return;
  }
}

// Reads the cases one at a time and writes each answer as soon as it is made, so that
// memory holds one case, not the document, and an input of any size can be replayed.
// Each case is replayed as a list of one; the field path of its error is then renamed
// from that list's "[0]" to the case's own index, so messages read as for the whole list.
void StreamCases(const Replay& replay, Layout layout, std::istream& in, std::ostream& out) {
  using Token = JsonReader::Token;
  JsonReader reader(in, kSource);
  Token t = reader.Next();
  if (t != Token::kBeginArray) {
    const nlohmann::json top = ReadJsonValue(reader, t, "");
    reader.Next();  // the end, or an error for what follows
    JsonField(top, kSource, "").ExpectArray();
  }
  std::size_t count = 0;
  for (; (t = reader.Next()) != Token::kEndArray; ++count) {
    std::string index = "[";  // (built in steps: GCC 12 warns falsely on "[" + ... + "]")
    index += std::to_string(count);
    index += ']';
    nlohmann::json one = nlohmann::json::array();
    one.push_back(ReadJsonValue(reader, t, index));
    nlohmann::json answer;
    try {
      answer = replay(one, kSource);
    } catch (const InputError& e) {
      std::string path = e.field_path();
      if (path.rfind("[0]", 0) == 0) path.replace(0, 3, index);
      throw InputError(e.where(), path, e.message());
    }
    WriteAnswer(out, layout, count, answer.at(0));
    out.flush();
  }
  reader.Next();  // the end, or an error for what follows
  WriteEnd(out, layout, count);
}

int RunModelCommand(const ModelCommand& model, const Args& args) {
  po::options_description options("options");
  po::variables_map values;
  if (model.declare_options) model.declare_options(options);
  // A model's usage ends with its example, which goes to the help's Examples block.
  const std::string usage(model.usage);
  const std::size_t example = usage.find("\nexample:\n");
  std::string examples;
  if (example != std::string::npos) {
    std::istringstream lines(usage.substr(example + 10));
    for (std::string line; std::getline(lines, line);) {
      examples += (line.rfind("  ", 0) == 0 ? line.substr(2) : line) + "\n";
    }
  }
  if (!ParseCommandLine(args, usage.substr(0, example), options, nullptr, values, examples)) {
    return kExitOk;
  }
  const Replay replay = model.prepare(values);
  if (model.stream) {
    model.stream(std::cin, std::cout, kSource);
  } else {
    StreamCases(replay, model.layout, std::cin, std::cout);
  }
  return kExitOk;
}

int RunModel(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: apfsim model NAME < cases.json > results.json\n\nmodels:\n";
    for (const ModelCommand& m : kModels) std::cout << "  " << m.name << "  " << m.summary << "\n";
    std::cout << "\n"
              << ExamplesBlock(
                     "apfsim model dealer --help\n"
                     "echo '[{\"deckSize\": 64, \"handSize\": 6, \"hashValue\": \"1\"}]' | "
                     "apfsim model dealer");
    return args.empty() ? kExitBadInput : kExitOk;
  }
  for (const ModelCommand& m : kModels) {
    if (m.name == args[0]) return RunModelCommand(m, Args(args.begin() + 1, args.end()));
  }
  std::vector<std::string> names;
  for (const ModelCommand& m : kModels) names.emplace_back(m.name);
  std::cerr << "apfsim model: unknown model \"" << args[0] << "\"" << DidYouMean(args[0], names)
            << " (see apfsim model --help)\n";
  return kExitBadInput;
}

const Registration kModel({"", "model", "replay one APF model on JSON cases from stdin", RunModel});

}  // namespace
}  // namespace sim::cli
