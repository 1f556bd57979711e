#include "sim/scenario/set_override.h"

#include <charconv>
#include <optional>
#include <vector>

#include "sim/io/text.h"
#include "sim/io/yaml_input.h"

namespace sim {
namespace {

[[noreturn]] void FailOverride(const std::string& text, const std::string& why) {
  throw InputError({"--set", 0, 0}, text, why);
}

// A copy of `node` without source marks: a --set value parsed on its own has marks of its
// own text (line 1, column 1), which an error would report as a line of the scenario file.
YAML::Node WithoutMarks(const YAML::Node& node) {
  YAML::Node copy;
  if (node.IsScalar()) {
    copy = YAML::Node(node.Scalar());
  } else if (node.IsSequence()) {
    copy = YAML::Node(YAML::NodeType::Sequence);
    for (const YAML::Node& item : node) copy.push_back(WithoutMarks(item));
  } else if (node.IsMap()) {
    copy = YAML::Node(YAML::NodeType::Map);
    for (const auto& pair : node) copy[WithoutMarks(pair.first)] = WithoutMarks(pair.second);
  } else {
    return node;  // null or undefined: no mark to report
  }
  copy.SetTag(node.Tag());  // the typing of a plain or quoted scalar (sim/io/yaml_input.h)
  return copy;
}

// A --set path below flowControl.priorityLevels or flowControl.flowSchemas: the object's
// name, then a field by its short name ("handSize") or by its path in the manifest
// ("spec.limited.limitResponse.queuing.handSize"). Names may hold dots, so the field is
// matched at the end, longest first.
struct ObjectFieldPath {
  std::string object;
  std::string short_name;  // "" when no known field ends the path
};

struct ObjectField {
  const char* short_name;
  const char* manifest_path;  // below spec
};

constexpr ObjectField kPriorityLevelFields[] = {
    {"nominalConcurrencyShares", "limited.nominalConcurrencyShares"},
    {"nominalConcurrencyShares", "exempt.nominalConcurrencyShares"},
    {"lendablePercent", "limited.lendablePercent"},
    {"lendablePercent", "exempt.lendablePercent"},
    {"borrowingLimitPercent", "limited.borrowingLimitPercent"},
    {"queues", "limited.limitResponse.queuing.queues"},
    {"handSize", "limited.limitResponse.queuing.handSize"},
    {"queueLengthLimit", "limited.limitResponse.queuing.queueLengthLimit"},
};

constexpr ObjectField kFlowSchemaFields[] = {
    {"matchingPrecedence", "matchingPrecedence"},
    {"priorityLevelConfiguration", "priorityLevelConfiguration.name"},
    {"priorityLevel", "priorityLevelConfiguration.name"},
    {"distinguisherMethod", "distinguisherMethod.type"},
};

template <size_t N>
ObjectFieldPath MatchObjectField(const ObjectField (&fields)[N], const std::string& rest) {
  ObjectFieldPath best;
  size_t best_length = 0;
  auto consider = [&](const std::string& form, const char* short_name) {
    if (rest.size() > form.size() + 1 &&
        rest.compare(rest.size() - form.size(), form.size(), form) == 0 &&
        rest[rest.size() - form.size() - 1] == '.' && form.size() > best_length) {
      best = {rest.substr(0, rest.size() - form.size() - 1), short_name};
      best_length = form.size();
    }
  };
  for (const ObjectField& f : fields) {
    const std::string manifest = f.manifest_path;
    consider(f.short_name, f.short_name);
    consider(manifest, f.short_name);
    consider("spec." + manifest, f.short_name);
    // Below `limited` too, as a reader of the manifest's limitResponse block writes it.
    if (manifest.rfind("limited.", 0) == 0) consider(manifest.substr(8), f.short_name);
  }
  return best;
}

ObjectFieldPath SplitObjectFieldPath(const std::string& kind, const std::string& rest) {
  return kind == "priorityLevels" ? MatchObjectField(kPriorityLevelFields, rest)
                                  : MatchObjectField(kFlowSchemaFields, rest);
}

std::string ObjectFieldNames(const std::string& kind) {
  return kind == "priorityLevels"
             ? "nominalConcurrencyShares, lendablePercent, borrowingLimitPercent, queues, "
               "handSize, queueLengthLimit"
             : "matchingPrecedence, priorityLevelConfiguration, distinguisherMethod";
}

// The item number a path segment gives ("0", "12"), or none for a name or a number too
// big to be an index (from_chars: std::stoul threw out_of_range there).
std::optional<std::size_t> ItemNumber(const std::string& key) {
  std::size_t index = 0;
  const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (key.empty() || ec != std::errc() || ptr != key.data() + key.size()) return std::nullopt;
  return index;
}

}  // namespace

void ApplySetOverride(YAML::Node spec, const std::string& text, Scenario* scenario) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) FailOverride(text, "expected PATH=VALUE");
  const std::string path = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  std::vector<std::string> parts = Split(path, '.');
  for (const std::string& p : parts) {
    if (p.empty()) FailOverride(text, "empty path segment");
    // "clients[0]" as JSONPath writes it would be taken for a field of that name.
    if (const std::size_t open = p.find('['); open != std::string::npos && p.back() == ']') {
      FailOverride(text, "write a list item as " + p.substr(0, open) + "." +
                             p.substr(open + 1, p.size() - open - 2) +
                             " (its number or name), not " + p);
    }
  }
  if (parts.size() >= 4 && parts[0] == "flowControl" &&
      (parts[1] == "priorityLevels" || parts[1] == "flowSchemas")) {
    const std::string prefix = "flowControl." + parts[1] + ".";
    const ObjectFieldPath field = SplitObjectFieldPath(parts[1], path.substr(prefix.size()));
    // An object name never holds a manifest path: "NAME.spec.limited.queues" is a field
    // path that is not one of the known ones, not a level named "NAME.spec.limited".
    const bool path_in_name =
        field.object.find(".spec.") != std::string::npos || field.object.ends_with(".spec");
    if (field.short_name.empty() || path_in_name) {
      FailOverride(text,
                   "expected " + prefix + "NAME.FIELD where FIELD is one of " +
                       ObjectFieldNames(parts[1]) + " (or its path in the manifest, such as " +
                       (parts[1] == "priorityLevels" ? "spec.limited.limitResponse.queuing.handSize"
                                                     : "spec.distinguisherMethod.type") +
                       ")");
    }
    scenario->flow_control_overrides.push_back({parts[1], field.object, field.short_name, value});
    return;
  }
  YAML::Node node = spec;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& key = parts[i];
    if (node.IsSequence()) {
      YAML::Node found;
      bool ok = false;
      for (size_t k = 0; k < node.size(); ++k) {
        if (node[k].IsMap() && node[k]["name"] && node[k]["name"].as<std::string>() == key) {
          found = node[k];
          ok = true;
        }
      }
      if (const std::optional<std::size_t> index = ItemNumber(key); !ok && index) {
        if (*index < node.size()) {
          found = node[*index];
          ok = true;
        }
      }
      if (!ok) {
        std::vector<std::string> names;
        for (size_t k = 0; k < node.size(); ++k) {
          if (node[k].IsMap() && node[k]["name"] && node[k]["name"].IsScalar()) {
            names.push_back(node[k]["name"].Scalar());
          }
        }
        FailOverride(text, "no item named or numbered \"" + key + "\" in spec." +
                               path.substr(0, path.find(key) - 1) + DidYouMean(key, names));
      }
      node.reset(found);
    } else if (node.IsMap() || node.IsNull()) {
      YAML::Node child = node[key];
      if (!child.IsDefined() || child.IsNull()) {
        node[key] = YAML::Node(YAML::NodeType::Map);
        child = node[key];
      }
      node.reset(child);
    } else {
      FailOverride(text, "\"" + key + "\" is inside a scalar value");
    }
  }
  YAML::Node parsed;
  try {
    parsed = WithoutMarks(YAML::Load(value));
  } catch (const YAML::Exception& e) {
    FailOverride(text, std::string("bad value: ") + e.msg);
  }
  if (node.IsSequence()) {
    const std::string& last = parts.back();
    const std::optional<std::size_t> index = ItemNumber(last);
    if (!index || *index >= node.size()) FailOverride(text, "no item numbered \"" + last + "\"");
    node[*index] = parsed;
  } else {
    node[parts.back()] = parsed;
  }
}

}  // namespace sim
