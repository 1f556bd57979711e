// The default flow-control objects of each Kubernetes version, checked against the tables
// of doc/model.md#default-objects (read from k8s.io/apiserver
// pkg/apis/flowcontrol/bootstrap/default.go) and, for 1.29-1.33, against default.go at tags v0.29.0
// to v0.33.13, which carry the endpoint-controller and workload-leader-election FlowSchemas removed
// in 1.34.
#include "apf/config/bootstrap.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "apf/config/defaults.h"
#include "apf/config/validation.h"

using apf::Bootstrap;
using apf::BootstrapObjects;
using apf::FlowSchema;
using apf::KubernetesVersion;
using apf::PriorityLevelConfiguration;

namespace {

const PriorityLevelConfiguration* FindLevel(const BootstrapObjects& b, const std::string& name) {
  for (const auto* v : {&b.mandatory_priority_levels, &b.suggested_priority_levels}) {
    for (const auto& pl : *v) {
      if (pl.metadata.name == name) return &pl;
    }
  }
  return nullptr;
}

const FlowSchema* FindSchema(const BootstrapObjects& b, const std::string& name) {
  for (const auto* v : {&b.mandatory_flow_schemas, &b.suggested_flow_schemas}) {
    for (const auto& fs : *v) {
      if (fs.metadata.name == name) return &fs;
    }
  }
  return nullptr;
}

std::vector<std::string> SchemaNames(const BootstrapObjects& b) {
  std::vector<std::string> out;
  for (const auto& fs : b.mandatory_flow_schemas) out.push_back(fs.metadata.name);
  for (const auto& fs : b.suggested_flow_schemas) out.push_back(fs.metadata.name);
  return out;
}

// One row of doc/model.md#default-objects's priority-level table.
struct LevelRow {
  const char* name;
  bool exempt;
  int shares;
  int lendable;
  int queues;  // 0: no queuing (Reject or Exempt)
  int hand;
  int length;
};

const LevelRow kLevelTable[] = {
    {"exempt", true, 0, 0, 0, 0, 0},
    {"catch-all", false, 5, 0, 0, 0, 0},
    {"system", false, 30, 33, 64, 6, 50},
    {"node-high", false, 40, 25, 64, 6, 50},
    {"leader-election", false, 10, 0, 16, 4, 50},
    {"workload-high", false, 40, 50, 128, 6, 50},
    {"workload-low", false, 100, 90, 128, 6, 50},
    {"global-default", false, 20, 50, 128, 6, 50},
};

// One row of doc/model.md#default-objects's FlowSchema table (and, for the two removed in 1.34, of
// default.go before v0.34.0).
struct SchemaRow {
  const char* name;
  int precedence;
  const char* level;
  const char* distinguisher;  // "" for none
};

const SchemaRow kSchemaTable[] = {
    {"exempt", 1, "exempt", ""},
    {"probes", 2, "exempt", ""},
    {"system-leader-election", 100, "leader-election", "ByUser"},
    {"system-node-high", 400, "node-high", "ByUser"},
    {"system-nodes", 500, "system", "ByUser"},
    {"kube-controller-manager", 800, "workload-high", "ByNamespace"},
    {"kube-scheduler", 800, "workload-high", "ByNamespace"},
    {"kube-system-service-accounts", 900, "workload-high", "ByNamespace"},
    {"service-accounts", 9000, "workload-low", "ByUser"},
    {"global-default", 9900, "global-default", "ByUser"},
    {"catch-all", 10000, "catch-all", "ByUser"},
};
const SchemaRow kRemovedIn134[] = {
    {"endpoint-controller", 150, "workload-high", "ByUser"},
    {"workload-leader-election", 200, "leader-election", "ByUser"},
};

void CheckSchemaRow(const BootstrapObjects& b, const SchemaRow& row) {
  INFO(row.name);
  const FlowSchema* fs = FindSchema(b, row.name);
  REQUIRE(fs);
  CHECK(fs->spec.matching_precedence == row.precedence);
  CHECK(fs->spec.priority_level_name == row.level);
  CHECK(fs->spec.distinguisher_method.has_value() == (std::string(row.distinguisher) != ""));
  if (fs->spec.distinguisher_method)
    CHECK(fs->spec.distinguisher_method->type == row.distinguisher);
  CHECK(fs->metadata.annotations.at(apf::kAutoUpdateAnnotation) == "true");
}

}  // namespace

TEST_CASE("every supported version has the priority levels of doc/model.md#default-objects",
          "[bootstrap]") {
  for (int minor = 29; minor <= 37; ++minor) {
    const BootstrapObjects b = Bootstrap({1, minor});
    INFO("1." << minor);
    CHECK(b.mandatory_priority_levels.size() == 2);
    CHECK(b.suggested_priority_levels.size() == 6);
    for (const LevelRow& row : kLevelTable) {
      INFO(row.name);
      const PriorityLevelConfiguration* pl = FindLevel(b, row.name);
      REQUIRE(pl);
      CHECK(pl->metadata.annotations.at(apf::kAutoUpdateAnnotation) == "true");
      if (row.exempt) {
        CHECK(pl->spec.type == "Exempt");
        REQUIRE(pl->spec.exempt);
        CHECK(pl->spec.exempt->nominal_concurrency_shares == row.shares);
        CHECK(pl->spec.exempt->lendable_percent == row.lendable);
        CHECK_FALSE(pl->spec.limited);
        continue;
      }
      CHECK(pl->spec.type == "Limited");
      REQUIRE(pl->spec.limited);
      const auto& l = *pl->spec.limited;
      CHECK(l.nominal_concurrency_shares == row.shares);
      CHECK(l.lendable_percent == row.lendable);
      CHECK_FALSE(l.borrowing_limit_percent);  // unset everywhere: unlimited borrowing
      if (row.queues == 0) {
        CHECK(l.limit_response.type == "Reject");
        CHECK_FALSE(l.limit_response.queuing);
      } else {
        CHECK(l.limit_response.type == "Queue");
        REQUIRE(l.limit_response.queuing);
        CHECK(l.limit_response.queuing->queues == row.queues);
        CHECK(l.limit_response.queuing->hand_size == row.hand);
        CHECK(l.limit_response.queuing->queue_length_limit == row.length);
      }
    }
  }
}

TEST_CASE("1.34 and later have the eleven FlowSchemas of doc/model.md#default-objects",
          "[bootstrap]") {
  for (int minor = 34; minor <= 37; ++minor) {
    const BootstrapObjects b = Bootstrap({1, minor});
    INFO("1." << minor);
    CHECK(SchemaNames(b).size() == 11);
    for (const SchemaRow& row : kSchemaTable) CheckSchemaRow(b, row);
    for (const SchemaRow& row : kRemovedIn134) CHECK_FALSE(FindSchema(b, row.name));
  }
}

TEST_CASE("1.29 to 1.33 also have the two leader-election FlowSchemas removed in 1.34",
          "[bootstrap]") {
  for (int minor = 29; minor <= 33; ++minor) {
    const BootstrapObjects b = Bootstrap({1, minor});
    INFO("1." << minor);
    CHECK(SchemaNames(b).size() == 13);
    for (const SchemaRow& row : kSchemaTable) CheckSchemaRow(b, row);
    for (const SchemaRow& row : kRemovedIn134) CheckSchemaRow(b, row);
    // default.go v0.33.0: endpoint-controller takes get/create/update of core endpoints
    // from kube-controller-manager and two kube-system service accounts.
    const FlowSchema* ec = FindSchema(b, "endpoint-controller");
    REQUIRE(ec->spec.rules.size() == 1);
    const auto& rule = ec->spec.rules[0];
    REQUIRE(rule.subjects.size() == 3);
    CHECK(rule.subjects[0].user->name == "system:kube-controller-manager");
    CHECK(rule.subjects[1].service_account->name == "endpoint-controller");
    CHECK(rule.subjects[2].service_account->name == "endpointslicemirroring-controller");
    REQUIRE(rule.resource_rules.size() == 1);
    CHECK(rule.resource_rules[0].resources == std::vector<std::string>{"endpoints"});
    CHECK(rule.resource_rules[0].verbs == std::vector<std::string>{"get", "create", "update"});
    CHECK_FALSE(rule.resource_rules[0].cluster_scope);
    const FlowSchema* wle = FindSchema(b, "workload-leader-election");
    REQUIRE(wle->spec.rules[0].resource_rules.size() == 2);
    CHECK(wle->spec.rules[0].resource_rules[0].resources ==
          std::vector<std::string>{"endpoints", "configmaps"});
    CHECK(wle->spec.rules[0].resource_rules[1].resources == std::vector<std::string>{"leases"});
  }
}

TEST_CASE("the default FlowSchemas' subjects and rules are those of doc/model.md#default-objects",
          "[bootstrap]") {
  const BootstrapObjects b = Bootstrap({1, 36});
  using V = std::vector<std::string>;
  const auto& probes = FindSchema(b, "probes")->spec.rules.at(0);
  CHECK(probes.resource_rules.empty());
  REQUIRE(probes.non_resource_rules.size() == 1);
  CHECK(probes.non_resource_rules[0].verbs == V{"get"});
  CHECK(probes.non_resource_rules[0].non_resource_urls == V{"/healthz", "/readyz", "/livez"});
  CHECK(probes.subjects.size() == 2);
  CHECK(probes.subjects[0].group->name == "system:unauthenticated");
  CHECK(probes.subjects[1].group->name == "system:authenticated");

  const auto& sle = FindSchema(b, "system-leader-election")->spec.rules.at(0);
  REQUIRE(sle.subjects.size() == 3);
  CHECK(sle.subjects[0].user->name == "system:kube-controller-manager");
  CHECK(sle.subjects[1].user->name == "system:kube-scheduler");
  CHECK(sle.subjects[2].service_account->namespace_ == "kube-system");
  CHECK(sle.subjects[2].service_account->name == "*");
  CHECK(sle.resource_rules.at(0).api_groups == V{"coordination.k8s.io"});
  CHECK(sle.resource_rules.at(0).resources == V{"leases"});
  CHECK(sle.resource_rules.at(0).namespaces == V{"*"});
  CHECK_FALSE(sle.resource_rules.at(0).cluster_scope);

  const auto& nh = FindSchema(b, "system-node-high")->spec.rules.at(0);
  REQUIRE(nh.resource_rules.size() == 2);
  CHECK(nh.resource_rules[0].api_groups == V{""});
  CHECK(nh.resource_rules[0].resources == V{"nodes", "nodes/status"});
  CHECK(nh.resource_rules[0].cluster_scope);
  CHECK(nh.resource_rules[1].resources == V{"leases"});
  CHECK_FALSE(nh.resource_rules[1].cluster_scope);

  // "Everything": one resource rule over all, cluster scope included, and all URLs.
  for (const char* name :
       {"exempt", "system-nodes", "kube-controller-manager", "kube-scheduler",
        "kube-system-service-accounts", "service-accounts", "global-default", "catch-all"}) {
    INFO(name);
    const auto& r = FindSchema(b, name)->spec.rules.at(0);
    REQUIRE(r.resource_rules.size() == 1);
    CHECK(r.resource_rules[0].verbs == V{"*"});
    CHECK(r.resource_rules[0].api_groups == V{"*"});
    CHECK(r.resource_rules[0].resources == V{"*"});
    CHECK(r.resource_rules[0].namespaces == V{"*"});
    CHECK(r.resource_rules[0].cluster_scope);
    REQUIRE(r.non_resource_rules.size() == 1);
    CHECK(r.non_resource_rules[0].non_resource_urls == V{"*"});
  }
  CHECK(FindSchema(b, "service-accounts")->spec.rules[0].subjects[0].group->name ==
        "system:serviceaccounts");
  CHECK(FindSchema(b, "exempt")->spec.rules[0].subjects[0].group->name == "system:masters");
}

TEST_CASE("defaulting changes no bootstrap object and all of them are valid", "[bootstrap]") {
  // default.go's comment: "The registered defaulting procedures make no changes to these
  // particular objects", which the apiserver's own unit tests check.
  for (KubernetesVersion v : {KubernetesVersion{1, 29}, KubernetesVersion{1, 36}}) {
    const BootstrapObjects b = Bootstrap(v);
    for (const auto* list : {&b.mandatory_priority_levels, &b.suggested_priority_levels}) {
      for (const PriorityLevelConfiguration& pl : *list) {
        PriorityLevelConfiguration copy = pl;
        apf::SetPriorityLevelConfigurationDefaults(copy);
        CHECK(copy.spec == pl.spec);
        CHECK(apf::ValidatePriorityLevelConfiguration(pl).empty());
      }
    }
    for (const auto* list : {&b.mandatory_flow_schemas, &b.suggested_flow_schemas}) {
      for (const FlowSchema& fs : *list) {
        FlowSchema copy = fs;
        apf::SetFlowSchemaDefaults(copy);
        CHECK(copy.spec == fs.spec);
        INFO(fs.metadata.name);
        CHECK(apf::ValidateFlowSchema(fs).empty());
      }
    }
  }
}

TEST_CASE("Kubernetes versions parse, and versions outside 1.29-1.37 are refused", "[bootstrap]") {
  CHECK(apf::ParseKubernetesVersion("1.36") == KubernetesVersion{1, 36});
  CHECK(apf::ParseKubernetesVersion("v1.29") == KubernetesVersion{1, 29});
  CHECK(apf::ParseKubernetesVersion("1.37.0") == KubernetesVersion{1, 37});
  std::string why;
  CHECK_FALSE(apf::ParseKubernetesVersion("1.28", &why));
  CHECK(why == "Kubernetes 1.28 is not supported (supported: 1.29 to 1.37)");
  CHECK_FALSE(apf::ParseKubernetesVersion("1.38", &why));
  CHECK_FALSE(apf::ParseKubernetesVersion("latest", &why));
  CHECK(why == "\"latest\" is not a Kubernetes version like 1.36");
  CHECK_FALSE(apf::ParseKubernetesVersion("1.36x", &why));
}
