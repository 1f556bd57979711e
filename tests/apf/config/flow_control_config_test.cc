// What happens to the objects between `kubectl apply` and the APF filter
// (doc/model.md#flowschema-order, 2.6): the config producer creates missing bootstrap objects,
// forces the mandatory specs back (except the exempt level's `exempt` field), updates suggested
// objects only when auto-update is on, deletes retired suggestions; the digest skips broken levels
// and dangling schemas and supplies the mandatory schemas and levels it cannot run without.
#include "apf/config/flow_control_config.h"

#include <catch2/catch.hpp>
#include <string>

#include "apf/config/bootstrap_ensurer.h"

using apf::Bootstrap;
using apf::EnsureBootstrapObjects;
using apf::FlowControlObjects;

namespace {

const apf::PriorityLevelConfiguration* Level(const FlowControlObjects& o, const std::string& n) {
  for (const auto& pl : o.priority_levels) {
    if (pl.metadata.name == n) return &pl;
  }
  return nullptr;
}

const apf::FlowSchema* Schema(const FlowControlObjects& o, const std::string& n) {
  for (const auto& fs : o.flow_schemas) {
    if (fs.metadata.name == n) return &fs;
  }
  return nullptr;
}

apf::PriorityLevelConfiguration Suggested(const std::string& name) {
  for (const auto& pl : Bootstrap({1, 36}).suggested_priority_levels) {
    if (pl.metadata.name == name) return pl;
  }
  FAIL("no suggested level " << name);
  return {};
}

}  // namespace

TEST_CASE("an empty cluster gets every bootstrap object of its version", "[ensurer]") {
  std::vector<apf::ConfigNote> notes;
  const FlowControlObjects o = EnsureBootstrapObjects({1, 36}, {}, &notes);
  CHECK(o.priority_levels.size() == 8);
  CHECK(o.flow_schemas.size() == 11);
  CHECK(notes.empty());
  const FlowControlObjects old = EnsureBootstrapObjects({1, 33}, {}, nullptr);
  CHECK(old.flow_schemas.size() == 13);
}

TEST_CASE("mandatory specs are forced back, except the exempt level's exempt field", "[ensurer]") {
  FlowControlObjects applied;
  apf::PriorityLevelConfiguration catch_all = *apf::MandatoryPriorityLevel("catch-all");
  catch_all.spec.limited->nominal_concurrency_shares = 50;  // invalid, e.g. from an old cluster
  apf::PriorityLevelConfiguration exempt = *apf::MandatoryPriorityLevel("exempt");
  exempt.spec.exempt = apf::ExemptPriorityLevelConfiguration{40, 25};
  exempt.metadata.annotations.clear();
  applied.priority_levels = {catch_all, exempt};
  std::vector<apf::ConfigNote> notes;
  const FlowControlObjects o = EnsureBootstrapObjects({1, 36}, applied, &notes);
  CHECK(Level(o, "catch-all")->spec.limited->nominal_concurrency_shares == 5);
  // plcSpecEqualish ignores spec.exempt of the exempt level: the admin's values stay.
  CHECK(Level(o, "exempt")->spec.exempt->nominal_concurrency_shares == 40);
  CHECK(Level(o, "exempt")->spec.exempt->lendable_percent == 25);
  CHECK(Level(o, "exempt")->metadata.annotations.at(apf::kAutoUpdateAnnotation) == "true");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].name == "catch-all");
}

TEST_CASE("a suggested object from a file keeps its spec unless auto-update is on", "[ensurer]") {
  apf::PriorityLevelConfiguration mine = Suggested("workload-low");
  mine.metadata.annotations.clear();
  mine.spec.limited->nominal_concurrency_shares = 150;

  FlowControlObjects applied;
  applied.priority_levels = {mine};
  FlowControlObjects o = EnsureBootstrapObjects({1, 36}, applied, nullptr);
  CHECK(Level(o, "workload-low")->spec.limited->nominal_concurrency_shares == 150);
  // shouldUpdateAnnotation writes the producer's decision back.
  CHECK(Level(o, "workload-low")->metadata.annotations.at(apf::kAutoUpdateAnnotation) == "false");

  // Annotated true (as every object the producer created is): the suggested spec returns.
  mine.metadata.annotations[apf::kAutoUpdateAnnotation] = "true";
  applied.priority_levels = {mine};
  o = EnsureBootstrapObjects({1, 36}, applied, nullptr);
  CHECK(Level(o, "workload-low")->spec.limited->nominal_concurrency_shares == 100);

  // Go's ParseBool: "False" is false; an unparsable value falls back to the generation,
  // and generation 1 (never edited since created) means auto-update.
  mine.metadata.annotations[apf::kAutoUpdateAnnotation] = "False";
  applied.priority_levels = {mine};
  CHECK(Level(EnsureBootstrapObjects({1, 36}, applied, nullptr), "workload-low")
            ->spec.limited->nominal_concurrency_shares == 150);
  mine.metadata.annotations[apf::kAutoUpdateAnnotation] = "maybe";
  mine.metadata.generation = 1;
  applied.priority_levels = {mine};
  CHECK(Level(EnsureBootstrapObjects({1, 36}, applied, nullptr), "workload-low")
            ->spec.limited->nominal_concurrency_shares == 100);
  mine.metadata.generation = 4;
  applied.priority_levels = {mine};
  CHECK(Level(EnsureBootstrapObjects({1, 36}, applied, nullptr), "workload-low")
            ->spec.limited->nominal_concurrency_shares == 150);
}

TEST_CASE("an upgrade to 1.34 deletes the retired leader-election FlowSchemas", "[ensurer]") {
  // A dump of a 1.33 cluster, applied to 1.36: the two schemas carry autoupdate-spec true
  // and are no longer bootstrap objects, so RemoveUnwantedObjects deletes them.
  FlowControlObjects dump = EnsureBootstrapObjects({1, 33}, {}, nullptr);
  REQUIRE(Schema(dump, "endpoint-controller"));
  std::vector<apf::ConfigNote> notes;
  const FlowControlObjects o = EnsureBootstrapObjects({1, 36}, dump, &notes);
  CHECK_FALSE(Schema(o, "endpoint-controller"));
  CHECK_FALSE(Schema(o, "workload-leader-election"));
  CHECK(notes.size() == 2);
  // A user's own object (no annotation) or one annotated false is never deleted.
  apf::FlowSchema own = *Schema(dump, "endpoint-controller");
  own.metadata.annotations[apf::kAutoUpdateAnnotation] = "false";
  dump.flow_schemas = {own};
  CHECK(Schema(EnsureBootstrapObjects({1, 36}, dump, nullptr), "endpoint-controller"));
  own.metadata.annotations.clear();
  dump.flow_schemas = {own};
  CHECK(Schema(EnsureBootstrapObjects({1, 36}, dump, nullptr), "endpoint-controller"));
}

TEST_CASE("the digest supplies missing mandatory objects in their places", "[config]") {
  FlowControlObjects objects;
  apf::FlowSchema fs;
  fs.metadata.name = "mine";
  fs.spec.priority_level_name = "catch-all";
  fs.spec.matching_precedence = 5000;
  objects.flow_schemas = {fs};
  const apf::FlowControlConfig config = apf::DigestConfig(objects);
  // With no level objects at all, the FlowSchema's reference to catch-all is checked
  // before the mandatory levels are imagined, so it is dangling (digestFlowSchemasLocked
  // runs before imaginePL).
  CHECK(config.dangling_flow_schemas == std::vector<std::string>{"mine"});
  REQUIRE(config.flow_schemas.size() == 2);
  CHECK(config.flow_schemas[0].metadata.name == "exempt");
  CHECK(config.flow_schemas[1].metadata.name == "catch-all");
  REQUIRE(config.priority_levels.size() == 2);
  CHECK(config.priority_levels[0].name == "catch-all");
  CHECK(config.priority_levels[0].imagined);
  CHECK(config.priority_levels[1].name == "exempt");
  CHECK(config.priority_levels[1].exempt());
}

TEST_CASE("a level the queue set cannot use is ignored and its schemas dangle", "[config]") {
  FlowControlObjects objects = EnsureBootstrapObjects({1, 36}, {}, nullptr);
  apf::PriorityLevelConfiguration broken = Suggested("system");
  broken.metadata.name = "broken";
  broken.spec.limited->limit_response.type = "Reject";  // Reject with queuing: broken union
  objects.priority_levels.push_back(broken);
  apf::FlowSchema fs;
  fs.metadata.name = "to-broken";
  fs.spec.priority_level_name = "broken";
  fs.spec.matching_precedence = 5000;
  objects.flow_schemas.push_back(fs);
  const apf::FlowControlConfig config = apf::DigestConfig(objects);
  CHECK(config.FindPriorityLevel("broken") == -1);
  CHECK(config.dangling_flow_schemas == std::vector<std::string>{"to-broken"});
  bool noted = false;
  for (const auto& n : config.notes) {
    noted = noted || n.message ==
                         "ignored: its spec is broken (broken union structure for limit "
                         "response)";
  }
  CHECK(noted);
  CHECK(apf::BrokenPriorityLevelReason(broken) == "broken union structure for limit response");
  apf::PriorityLevelConfiguration named_exempt = Suggested("system");
  named_exempt.metadata.name = "exempt";
  CHECK(apf::BrokenPriorityLevelReason(named_exempt) == "non-alignment between name and type");
}

TEST_CASE("the digested levels expose what allocation and queue sets need", "[config]") {
  FlowControlObjects objects = EnsureBootstrapObjects({1, 36}, {}, nullptr);
  const apf::FlowControlConfig config = apf::DigestConfig(objects);
  const apf::PriorityLevel& low = config.priority_levels[config.FindPriorityLevel("workload-low")];
  CHECK_FALSE(low.exempt());
  CHECK(low.nominal_concurrency_shares == 100);
  CHECK(low.lendable_percent == 90);
  CHECK_FALSE(low.borrowing_limit_percent);
  CHECK(low.limit_response == apf::LimitResponseType::kQueue);
  CHECK(low.queuing == apf::QueuingConfiguration{128, 6, 50});
  CHECK(low.DesiredNumQueues() == 128);
  CHECK(low.uses_flow_hash());
  const apf::PriorityLevel& catch_all =
      config.priority_levels[config.FindPriorityLevel("catch-all")];
  CHECK(catch_all.limit_response == apf::LimitResponseType::kReject);
  CHECK(catch_all.DesiredNumQueues() == 0);
  const apf::PriorityLevel& exempt = config.priority_levels[config.FindPriorityLevel("exempt")];
  CHECK(exempt.DesiredNumQueues() == -1);
  CHECK_FALSE(exempt.uses_flow_hash());
}
