#include "sim/flowcontrol/manifest.h"

#include <cctype>

#include "sim/flowcontrol/loader.h"

namespace sim {
namespace {

using nlohmann::json;

json MetaToJson(const apf::ObjectMeta& meta) {
  json m = json::object();
  m["name"] = meta.name;
  if (!meta.annotations.empty()) m["annotations"] = meta.annotations;
  if (!meta.labels.empty()) m["labels"] = meta.labels;
  return m;
}

json SubjectToJson(const apf::Subject& s) {
  json j = {{"kind", s.kind}};
  if (s.user) j["user"] = {{"name", s.user->name}};
  if (s.group) j["group"] = {{"name", s.group->name}};
  if (s.service_account) {
    j["serviceAccount"] = {{"namespace", s.service_account->namespace_},
                           {"name", s.service_account->name}};
  }
  return j;
}

// A scalar that YAML would read as something other than this string needs quotes.
bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* kSpecialStarts = "-?:,[]{}#&*!|>'\"%@` ";
  if (std::string(kSpecialStarts).find(s[0]) != std::string::npos) return true;
  if (s.back() == ' ' || s.back() == ':') return true;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
          c == '/' || c == ':')) {
      return true;
    }
  }
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  // Reads as null, a boolean or a number (go-yaml's YAML 1.1 rules).
  static const char* kReserved[] = {"~",    "null", "Null", "NULL",  "y",     "Y",     "yes",
                                    "Yes",  "YES",  "n",    "N",     "no",    "No",    "NO",
                                    "true", "True", "TRUE", "false", "False", "FALSE", "on",
                                    "On",   "ON",   "off",  "Off",   "OFF"};
  for (const char* r : kReserved) {
    if (s == r) return true;
  }
  bool numeric = true;
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == 'e' ||
          c == 'E' || c == 'x' || c == 'X' || c == 'o' || c == 'b' || (c >= 'a' && c <= 'f') ||
          (c >= 'A' && c <= 'F'))) {
      numeric = false;
      break;
    }
  }
  return numeric && std::isdigit(static_cast<unsigned char>(s[0]));
}

std::string Scalar(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return NeedsQuotes(s) ? json(s).dump() : s;
  }
  return v.dump();  // numbers, booleans, null
}

bool IsInline(const json& v) {
  return v.is_primitive() || (v.is_object() && v.empty()) || (v.is_array() && v.empty());
}

std::string Inline(const json& v) {
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  return Scalar(v);
}

void Emit(const json& v, int indent, std::string& out);

void EmitMap(const json& v, int indent, std::string& out, bool first_line_done) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && first_line_done)) out.append(indent, ' ');
    first = false;
    out += Scalar(json(it.key()));
    out += ':';
    if (IsInline(*it)) {
      out += ' ' + Inline(*it) + '\n';
    } else if (it->is_array()) {
      out += '\n';
      Emit(*it, indent, out);  // kubectl puts list items at the key's indentation
    } else {
      out += '\n';
      Emit(*it, indent + 2, out);
    }
  }
}

void Emit(const json& v, int indent, std::string& out) {
  if (v.is_object()) {
    EmitMap(v, indent, out, false);
  } else if (v.is_array()) {
    for (const json& item : v) {
      out.append(indent, ' ');
      out += "- ";
      if (IsInline(item)) {
        out += Inline(item) + '\n';
      } else if (item.is_object()) {
        EmitMap(item, indent + 2, out, true);
      } else {
        out += '\n';
        Emit(item, indent + 2, out);
      }
    }
  } else {
    out.append(indent, ' ');
    out += Scalar(v) + '\n';
  }
}

}  // namespace

json FlowSchemaToJson(const apf::FlowSchema& fs) {
  json spec = json::object();
  spec["priorityLevelConfiguration"] = {{"name", fs.spec.priority_level_name}};
  spec["matchingPrecedence"] = fs.spec.matching_precedence;
  if (fs.spec.distinguisher_method) {
    spec["distinguisherMethod"] = {{"type", fs.spec.distinguisher_method->type}};
  }
  if (!fs.spec.rules.empty()) {
    json rules = json::array();
    for (const apf::PolicyRulesWithSubjects& rule : fs.spec.rules) {
      json r = json::object();
      json subjects = json::array();
      for (const apf::Subject& s : rule.subjects) subjects.push_back(SubjectToJson(s));
      r["subjects"] = subjects;
      if (!rule.resource_rules.empty()) {
        json list = json::array();
        for (const apf::ResourcePolicyRule& rr : rule.resource_rules) {
          json j = {{"verbs", rr.verbs},
                    {"apiGroups", rr.api_groups},
                    {"resources", rr.resources},
                    {"namespaces", rr.namespaces}};
          if (rr.cluster_scope) j["clusterScope"] = true;
          list.push_back(j);
        }
        r["resourceRules"] = list;
      }
      if (!rule.non_resource_rules.empty()) {
        json list = json::array();
        for (const apf::NonResourcePolicyRule& nr : rule.non_resource_rules) {
          list.push_back({{"verbs", nr.verbs}, {"nonResourceURLs", nr.non_resource_urls}});
        }
        r["nonResourceRules"] = list;
      }
      rules.push_back(r);
    }
    spec["rules"] = rules;
  }
  return {{"apiVersion", kFlowControlV1},
          {"kind", "FlowSchema"},
          {"metadata", MetaToJson(fs.metadata)},
          {"spec", spec}};
}

json PriorityLevelToJson(const apf::PriorityLevelConfiguration& pl) {
  json spec = {{"type", pl.spec.type}};
  if (const auto& l = pl.spec.limited) {
    json limited = json::object();
    limited["nominalConcurrencyShares"] =
        l->nominal_concurrency_shares ? json(*l->nominal_concurrency_shares) : json(nullptr);
    if (l->lendable_percent) limited["lendablePercent"] = *l->lendable_percent;
    if (l->borrowing_limit_percent) limited["borrowingLimitPercent"] = *l->borrowing_limit_percent;
    json lr = {{"type", l->limit_response.type}};
    if (const auto& q = l->limit_response.queuing) {
      lr["queuing"] = {{"queues", q->queues},
                       {"handSize", q->hand_size},
                       {"queueLengthLimit", q->queue_length_limit}};
    }
    limited["limitResponse"] = lr;
    spec["limited"] = limited;
  }
  if (const auto& e = pl.spec.exempt) {
    json exempt = json::object();
    if (e->nominal_concurrency_shares)
      exempt["nominalConcurrencyShares"] = *e->nominal_concurrency_shares;
    if (e->lendable_percent) exempt["lendablePercent"] = *e->lendable_percent;
    spec["exempt"] = exempt;
  }
  return {{"apiVersion", kFlowControlV1},
          {"kind", "PriorityLevelConfiguration"},
          {"metadata", MetaToJson(pl.metadata)},
          {"spec", spec}};
}

json ObjectsToList(const apf::FlowControlObjects& objects) {
  json items = json::array();
  for (const auto& pl : objects.priority_levels) items.push_back(PriorityLevelToJson(pl));
  for (const auto& fs : objects.flow_schemas) items.push_back(FlowSchemaToJson(fs));
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

std::string JsonToYaml(const json& value) {
  std::string out;
  Emit(value, 0, out);
  return out;
}

}  // namespace sim
