// Every validation rule of k/k pkg/apis/flowcontrol/validation/validation.go, each fed an
// object that breaks it; the expected texts are the apiserver's (field path, the
// field.Error type text, the bad value as field.Error prints it, and the detail), as its
// validation_test.go spells them.
#include "apf/config/validation.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "apf/config/bootstrap.h"
#include "apf/config/defaults.h"

using apf::FlowSchema;
using apf::PriorityLevelConfiguration;

namespace {

FlowSchema ValidSchema() {
  FlowSchema fs;
  fs.metadata.name = "system-foo";
  fs.spec.priority_level_name = "system-bar";
  fs.spec.matching_precedence = 50;
  apf::PolicyRulesWithSubjects rule;
  rule.subjects.push_back({"User", apf::UserSubject{"noxu"}, {}, {}});
  rule.resource_rules.push_back({{"*"}, {"*"}, {"*"}, false, {"*"}});
  rule.non_resource_rules.push_back({{"*"}, {"/apis/*"}});
  fs.spec.rules.push_back(rule);
  return fs;
}

PriorityLevelConfiguration ValidLevel() {
  PriorityLevelConfiguration pl;
  pl.metadata.name = "system-foo";
  pl.spec.type = "Limited";
  apf::LimitedPriorityLevelConfiguration limited;
  limited.nominal_concurrency_shares = 100;
  limited.limit_response.type = "Queue";
  limited.limit_response.queuing = apf::QueuingConfiguration{512, 4, 100};
  pl.spec.limited = limited;
  return pl;
}

std::vector<std::string> Errors(const FlowSchema& fs) {
  std::vector<std::string> out;
  for (const apf::FieldError& e : apf::ValidateFlowSchema(fs)) out.push_back(e.ToString());
  return out;
}

std::vector<std::string> Errors(const PriorityLevelConfiguration& pl) {
  std::vector<std::string> out;
  for (const apf::FieldError& e : apf::ValidatePriorityLevelConfiguration(pl)) {
    out.push_back(e.ToString());
  }
  return out;
}

using Strings = std::vector<std::string>;

const char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

}  // namespace

TEST_CASE("a well-formed FlowSchema and priority level are valid", "[validation]") {
  CHECK(Errors(ValidSchema()).empty());
  CHECK(Errors(ValidLevel()).empty());
}

TEST_CASE("FlowSchema names must be DNS subdomains", "[validation]") {
  FlowSchema fs = ValidSchema();
  fs.metadata.name = "";
  CHECK(Errors(fs) == Strings{"metadata.name: Required value: name or generateName is required"});
  fs.metadata.name = "Bad_Name";
  CHECK(Errors(fs) ==
        Strings{std::string("metadata.name: Invalid value: \"Bad_Name\": ") + kSubdomainMsg});
  fs.metadata.name = std::string(254, 'a');
  CHECK(Errors(fs).at(0) == "metadata.name: Invalid value: \"" + std::string(254, 'a') +
                                "\": must be no more than 253 characters");
}

TEST_CASE("matchingPrecedence must be from 1 to 10000 and 1 is for exempt only", "[validation]") {
  FlowSchema fs = ValidSchema();
  fs.spec.matching_precedence = -5;
  CHECK(Errors(fs) ==
        Strings{"spec.matchingPrecedence: Invalid value: -5: must be a positive value"});
  fs.spec.matching_precedence = 10001;
  CHECK(Errors(fs) ==
        Strings{"spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"});
  fs.spec.matching_precedence = 1;
  CHECK(Errors(fs) == Strings{"spec.matchingPrecedence: Invalid value: 1: only the schema named "
                              "'exempt' may have matchingPrecedence 1"});
  // A 0 is defaulted to 1000 before validation sees it.
  fs.spec.matching_precedence = 0;
  apf::SetFlowSchemaDefaults(fs);
  CHECK(fs.spec.matching_precedence == 1000);
  CHECK(Errors(fs).empty());
}

TEST_CASE("the distinguisher must be ByUser or ByNamespace", "[validation]") {
  FlowSchema fs = ValidSchema();
  fs.spec.distinguisher_method = apf::FlowDistinguisherMethod{"ByFoo"};
  CHECK(Errors(fs) ==
        Strings{"spec.distinguisherMethod.type: Unsupported value: "
                "{\"Type\":\"ByFoo\"}: supported values: \"ByNamespace\", \"ByUser\""});
}

TEST_CASE("a FlowSchema must name a well-formed priority level", "[validation]") {
  FlowSchema fs = ValidSchema();
  fs.spec.priority_level_name = "";
  CHECK(Errors(fs) == Strings{"spec.priorityLevelConfiguration.name: Required value: must "
                              "reference a priority level"});
  fs.spec.priority_level_name = "system+++$$";
  CHECK(Errors(fs) == Strings{std::string("spec.priorityLevelConfiguration.name: Invalid value: "
                                          "\"system+++$$\": ") +
                              kSubdomainMsg});
}

TEST_CASE("a rule needs subjects and some resource or non-resource rule", "[validation]") {
  FlowSchema fs = ValidSchema();
  fs.spec.rules[0].subjects.clear();
  CHECK(
      Errors(fs) ==
      Strings{"spec.rules[0].subjects: Required value: subjects must contain at least one value"});
  fs = ValidSchema();
  fs.spec.rules[0].resource_rules.clear();
  fs.spec.rules[0].non_resource_rules.clear();
  CHECK(Errors(fs) == Strings{"spec.rules[0]: Required value: at least one of resourceRules and "
                              "nonResourceRules has to be non-empty"});
}

TEST_CASE("subject kinds and their unions are checked", "[validation]") {
  FlowSchema fs = ValidSchema();
  auto& s = fs.spec.rules[0].subjects[0];
  s = {"FooKind", {}, {}, {}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].kind: Unsupported value: \"FooKind\": "
                              "supported values: \"Group\", \"ServiceAccount\", \"User\""});
  s = {"", {}, {}, {}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].kind: Unsupported value: \"\": "
                              "supported values: \"Group\", \"ServiceAccount\", \"User\""});
  // validation_test.go "malformed Subject union in ServiceAccount case".
  s = {"ServiceAccount", apf::UserSubject{"fred"}, apf::GroupSubject{"fred"}, {}};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is "
                "required when subject kind is 'ServiceAccount'",
                "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind "
                "is not 'User'",
                "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind "
                "is not 'Group'"});
  s = {"User", {}, apf::GroupSubject{"fred"}, apf::ServiceAccountSubject{"s", "n"}};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].subjects[0].user: Required value: user is required when subject "
                "kind is 'User'",
                "spec.rules[0].subjects[0].serviceAccount: Forbidden: serviceAccount is "
                "forbidden when subject kind is not 'ServiceAccount'",
                "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind "
                "is not 'Group'"});
  s = {"Group", apf::UserSubject{"fred"}, {}, apf::ServiceAccountSubject{"s", "n"}};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].subjects[0].group: Required value: group is required when subject "
                "kind is 'Group'",
                "spec.rules[0].subjects[0].serviceAccount: Forbidden: serviceAccount is "
                "forbidden when subject kind is not 'ServiceAccount'",
                "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind "
                "is not 'User'"});
  s = {"User", apf::UserSubject{""}, {}, {}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].user.name: Required value"});
  s = {"Group", {}, apf::GroupSubject{""}, {}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].group.name: Required value"});
}

TEST_CASE("service-account subjects need a namespace and well-formed names", "[validation]") {
  FlowSchema fs = ValidSchema();
  auto& s = fs.spec.rules[0].subjects[0];
  s = {"ServiceAccount", {}, {}, apf::ServiceAccountSubject{"", "noxu"}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].serviceAccount.namespace: Required "
                              "value: must specify namespace for service account"});
  s = {"ServiceAccount", {}, {}, apf::ServiceAccountSubject{"ns", ""}};
  CHECK(Errors(fs) == Strings{"spec.rules[0].subjects[0].serviceAccount.name: Required value"});
  s = {"ServiceAccount", {}, {}, apf::ServiceAccountSubject{"Bad NS", "a_b"}};
  CHECK(Errors(fs) ==
        Strings{std::string("spec.rules[0].subjects[0].serviceAccount.name: Invalid value: "
                            "\"a_b\": ") +
                    kSubdomainMsg,
                std::string("spec.rules[0].subjects[0].serviceAccount.namespace: Invalid value: "
                            "\"Bad NS\": ") +
                    kLabelMsg});
  // "*" is the one name that is not a DNS subdomain and is allowed.
  s = {"ServiceAccount", {}, {}, apf::ServiceAccountSubject{"kube-system", "*"}};
  CHECK(Errors(fs).empty());
}

TEST_CASE("resource rules: verbs, groups, resources and namespaces", "[validation]") {
  FlowSchema fs = ValidSchema();
  auto& rr = fs.spec.rules[0].resource_rules[0];
  rr.verbs = {"*", "create"};
  rr.api_groups = {"*", "tak"};
  rr.resources = {"*", "tok"};
  CHECK(Errors(fs) == Strings{"spec.rules[0].resourceRules[0].verbs: Invalid value: "
                              "[\"*\",\"create\"]: if '*' is present, must not specify other verbs",
                              "spec.rules[0].resourceRules[0].apiGroups: Invalid value: "
                              "[\"*\",\"tak\"]: if '*' is present, must not specify other api "
                              "groups",
                              "spec.rules[0].resourceRules[0].resources: Invalid value: "
                              "[\"*\",\"tok\"]: if '*' is present, must not specify other "
                              "resources"});
  fs = ValidSchema();
  fs.spec.rules[0].resource_rules[0].verbs = {"feed"};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].resourceRules[0].verbs: Unsupported value: [\"feed\"]: supported "
                "values: \"create\", \"delete\", \"deletecollection\", \"get\", \"list\", "
                "\"patch\", \"proxy\", \"update\", \"watch\""});
  fs.spec.rules[0].resource_rules[0] = {{}, {}, {}, false, {}};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].resourceRules[0].verbs: Required value: verbs must contain at "
                "least one value",
                "spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must "
                "supply at least one api group",
                "spec.rules[0].resourceRules[0].resources: Required value: resource rules must "
                "supply at least one resource",
                "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that "
                "are not cluster scoped must supply at least one namespace"});
  fs = ValidSchema();
  fs.spec.rules[0].resource_rules[0].namespaces = {"foo", "*"};
  CHECK(Errors(fs) == Strings{"spec.rules[0].resourceRules[0].namespaces: Invalid value: "
                              "[\"foo\",\"*\"]: if '*' is present, must not specify other "
                              "namespaces"});
  fs.spec.rules[0].resource_rules[0].namespaces = {"-foo"};
  CHECK(Errors(fs) ==
        Strings{std::string("spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "
                            "\"-foo\": each member of this list must be '*' or a DNS-1123 "
                            "label; ") +
                kLabelMsg});
  // No namespaces is fine for a cluster-scoped rule.
  fs.spec.rules[0].resource_rules[0].namespaces = {};
  fs.spec.rules[0].resource_rules[0].cluster_scope = true;
  CHECK(Errors(fs).empty());
}

TEST_CASE("non-resource rules: verbs and URL patterns", "[validation]") {
  FlowSchema fs = ValidSchema();
  auto& nr = fs.spec.rules[0].non_resource_rules[0];
  nr.non_resource_urls = {"*", "tik"};
  CHECK(Errors(fs) == Strings{"spec.rules[0].nonResourceRules[0].nonResourceURLs: Invalid value: "
                              "[\"*\",\"tik\"]: if '*' is present, must not specify other "
                              "non-resource URLs"});
  nr.non_resource_urls = {};
  nr.verbs = {};
  CHECK(Errors(fs) ==
        Strings{"spec.rules[0].nonResourceRules[0].verbs: Required value: verbs must contain at "
                "least one value",
                "spec.rules[0].nonResourceRules[0].nonResourceURLs: Required value: "
                "nonResourceURLs must contain at least one value"});
  nr.verbs = {"get"};
  // ValidateNonResourceURLPath, case by case (validation_test.go TestValidateNonResourceURLPath).
  const std::pair<const char*, const char*> cases[] = {
      {"", "must not be empty"},
      {"foo", "must start with slash"},
      {"//", "must not contain double slash"},
      {"/////", "must not contain double slash"},
      {"/healthz/foo bar", "must not contain white-space"},
      {"/healthz/*/foo", "wildcard can only do suffix matching"},
      {"/health*", "wildcard can only do suffix matching"},
      {"/health*/foo", "wildcard can only do suffix matching"},
      {"/*/*", "wildcard can only do suffix matching"},
  };
  for (const auto& [url, why] : cases) {
    nr.non_resource_urls = {url};
    CHECK(Errors(fs) == Strings{std::string("spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: "
                                            "Invalid value: \"") +
                                url + "\": " + why});
  }
  for (const char* ok : {"/", "/foo", "/apis/", "/healthz/*"}) {
    nr.non_resource_urls = {ok};
    CHECK(Errors(fs).empty());
  }
}

TEST_CASE("the mandatory FlowSchemas must equal their fixed specs", "[validation]") {
  FlowSchema fs = *apf::MandatoryFlowSchema("exempt");
  CHECK(Errors(fs).empty());
  fs.spec.rules[0].non_resource_rules[0].non_resource_urls = {"/"};
  CHECK(Errors(fs) ==
        Strings{"spec: Invalid value: {...}: spec of 'exempt' must equal the fixed value"});
  fs = *apf::MandatoryFlowSchema("catch-all");
  fs.spec.matching_precedence = 9999;
  CHECK(Errors(fs) ==
        Strings{"spec: Invalid value: {...}: spec of 'catch-all' must equal the fixed value"});
}

TEST_CASE("priority level type and name must agree, and the unions must be well formed",
          "[validation]") {
  PriorityLevelConfiguration pl = ValidLevel();
  pl.spec.type = "Foo";
  CHECK(Errors(pl) == Strings{"spec.type: Unsupported value: \"Foo\": supported values: "
                              "\"Exempt\", \"Limited\""});
  pl = ValidLevel();
  pl.spec.type = "Exempt";
  CHECK(Errors(pl) == Strings{"spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and "
                              "only if name is 'exempt'",
                              "spec.limited: Forbidden: must be nil if the type is not Limited"});
  pl = ValidLevel();
  pl.spec.limited.reset();
  pl.spec.exempt = apf::ExemptPriorityLevelConfiguration{};
  CHECK(Errors(pl) ==
        Strings{"spec.exempt: Forbidden: must be nil if the type is Limited",
                "spec.limited: Required value: must not be empty when type is Limited"});
}

TEST_CASE("Limited levels: shares, lendable and borrowing percents", "[validation]") {
  PriorityLevelConfiguration pl = ValidLevel();
  // The registry strategies validate with AllowZeroLimitedNominalConcurrencyShares off.
  pl.spec.limited->nominal_concurrency_shares = 0;
  CHECK(Errors(pl) ==
        Strings{"spec.limited.nominalConcurrencyShares: Invalid value: 0: must be positive"});
  pl.spec.limited->nominal_concurrency_shares = -1;
  CHECK(Errors(pl) ==
        Strings{"spec.limited.nominalConcurrencyShares: Invalid value: -1: must be positive"});
  pl = ValidLevel();
  pl.spec.limited->lendable_percent = 101;
  CHECK(Errors(pl) == Strings{"spec.limited.lendablePercent: Invalid value: 101: must be between 0 "
                              "and 100, inclusive"});
  pl.spec.limited->lendable_percent = -1;
  CHECK(Errors(pl) == Strings{"spec.limited.lendablePercent: Invalid value: -1: must be between 0 "
                              "and 100, inclusive"});
  pl = ValidLevel();
  pl.spec.limited->borrowing_limit_percent = -1;
  CHECK(Errors(pl) == Strings{"spec.limited.borrowingLimitPercent: Invalid value: -1: if "
                              "specified, must be a non-negative integer"});
  for (int ok : {0, 1, 100, 250}) {  // more than 100 is allowed
    pl.spec.limited->borrowing_limit_percent = ok;
    CHECK(Errors(pl).empty());
  }
}

TEST_CASE("limit responses: Reject has no queuing, Queue needs it", "[validation]") {
  PriorityLevelConfiguration pl = ValidLevel();
  pl.spec.limited->limit_response.type = "Reject";
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.queuing: Forbidden: must be nil if "
                              "limited.limitResponse.type is not Limited"});
  pl.spec.limited->limit_response.queuing.reset();
  CHECK(Errors(pl).empty());
  pl.spec.limited->limit_response.type = "Queue";
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.queuing: Required value: must not be "
                              "empty if limited.limitResponse.type is Limited"});
  pl.spec.limited->limit_response.type = "Drop";
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.type: Unsupported value: \"Drop\": "
                              "supported values: \"Queue\", \"Reject\""});
}

TEST_CASE("queuing: positive sizes, at most 10^7 queues, hand within queues and 60 bits",
          "[validation]") {
  PriorityLevelConfiguration pl = ValidLevel();
  auto& q = *pl.spec.limited->limit_response.queuing;
  q = {-1, -1, -1};
  CHECK(Errors(pl) ==
        Strings{"spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be "
                "positive",
                "spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive",
                "spec.limited.limitResponse.queuing.handSize: Invalid value: -1: must be "
                "positive"});
  q = {7, 8, 100};
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.queuing.handSize: Invalid value: 8: "
                              "should not be greater than queues (7)"});
  q = {512, 8, 100};  // ceil(9 * 8) = 72 bits
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.queuing.handSize: Invalid value: 8: "
                              "required entropy bits of deckSize 512 and handSize 8 should not "
                              "be greater than 60"});
  q = {128, 10, 100};  // 70 bits
  CHECK(Errors(pl) == Strings{"spec.limited.limitResponse.queuing.handSize: Invalid value: 10: "
                              "required entropy bits of deckSize 128 and handSize 10 should not "
                              "be greater than 60"});
  q = {2147483647, 3, 100};
  CHECK(Errors(pl) ==
        Strings{"spec.limited.limitResponse.queuing.queues: Invalid value: 2147483647: must not "
                "be greater than 10000000",
                "spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy "
                "bits of deckSize 2147483647 and handSize 3 should not be greater than 60"});
  q = {10000000, 2, 100};  // validation_test.go: handSize=2 and queues=10^7 should work
  CHECK(Errors(pl).empty());
  q = {1024, 6, 50};  // exactly 60 bits
  CHECK(Errors(pl).empty());
}

TEST_CASE("the exempt level: only spec.exempt may change, within range", "[validation]") {
  PriorityLevelConfiguration pl = *apf::MandatoryPriorityLevel("exempt");
  CHECK(Errors(pl).empty());
  pl.spec.exempt = apf::ExemptPriorityLevelConfiguration{10, 10};  // admins may tune these
  CHECK(Errors(pl).empty());
  pl.spec.exempt = apf::ExemptPriorityLevelConfiguration{-1, 101};
  CHECK(Errors(pl) == Strings{"spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a "
                              "non-negative integer",
                              "spec.exempt.lendablePercent: Invalid value: 101: must be between 0 "
                              "and 100, inclusive"});
  pl = *apf::MandatoryPriorityLevel("exempt");
  pl.spec.type = "Limited";
  pl.spec.limited = ValidLevel().spec.limited;
  CHECK(Errors(pl) == Strings{"spec.type: Invalid value: \"Limited\": type must be 'Exempt' if "
                              "and only if name is 'exempt'",
                              "spec.exempt: Forbidden: must be nil if the type is Limited",
                              "spec: Invalid value: {...}: spec of 'exempt' except the "
                              "'spec.exempt' field must equal the fixed value"});
}

TEST_CASE("the catch-all level must equal its fixed spec", "[validation]") {
  PriorityLevelConfiguration pl = *apf::MandatoryPriorityLevel("catch-all");
  CHECK(Errors(pl).empty());
  pl.spec.limited->nominal_concurrency_shares = 42;
  CHECK(Errors(pl) ==
        Strings{"spec: Invalid value: {...}: spec of 'catch-all' must equal the fixed value"});
}
