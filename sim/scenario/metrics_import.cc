#include "sim/scenario/metrics_import.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/io/input_file.h"

namespace sim {
namespace {

// The value of label `name` in a `{a="x",b="y"}` block; false when the block is malformed.
bool ParseLabels(std::string_view block, std::map<std::string, std::string>* labels,
                 std::string* duplicate) {
  size_t i = 0;
  while (i < block.size()) {
    while (i < block.size() && (block[i] == ' ' || block[i] == ',')) ++i;
    if (i >= block.size()) break;
    const size_t eq = block.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= block.size() || block[eq + 1] != '"')
      return false;
    std::string name(block.substr(i, eq - i));
    std::string value;
    size_t j = eq + 2;
    for (; j < block.size() && block[j] != '"'; ++j) {
      if (block[j] == '\\' && j + 1 < block.size()) {
        ++j;
        value += block[j] == 'n' ? '\n' : block[j];
      } else {
        value += block[j];
      }
    }
    if (j >= block.size()) return false;
    // The text format allows a label once per sample; taking the last would hide the
    // first value without a word.
    if (!labels->emplace(name, value).second) {
      *duplicate = name;
      return false;
    }
    i = j + 1;
  }
  return true;
}

bool IsMetricNameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

}  // namespace

std::vector<MetricSample> ParseMetricsText(std::string_view text, const std::string& source) {
  std::vector<MetricSample> samples;
  std::istringstream in{std::string(WithoutByteOrderMark(text))};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& why) -> void {
      throw InputError(
          {source, number, 1}, "",
          "not Prometheus text format (as `kubectl get --raw /metrics` prints it): " + why);
    };
    MetricSample s;
    s.line = number;
    size_t i = 0;
    while (i < line.size() && IsMetricNameChar(line[i], i == 0)) ++i;
    if (i == 0) fail("a sample line starts with a metric name");
    s.name = line.substr(0, i);
    if (i < line.size() && line[i] == '{') {
      const size_t close = line.find('}', i);
      std::string duplicate;
      if (close == std::string::npos ||
          !ParseLabels(std::string_view(line).substr(i + 1, close - i - 1), &s.labels,
                       &duplicate)) {
        fail(duplicate.empty() ? "malformed labels of " + s.name
                               : "the label " + duplicate + " is given twice in one sample");
      }
      i = close + 1;
    }
    if (i >= line.size() || line[i] != ' ') fail("expected a space and a value after " + s.name);
    std::istringstream value_in(line.substr(i));
    std::string value_text;
    value_in >> value_text;
    char* end = nullptr;
    s.value = std::strtod(value_text.c_str(), &end);
    if (value_text.empty() || *end != '\0') {
      fail("expected a number as the value of " + s.name + ", found \"" + value_text + "\"");
    }
    samples.push_back(std::move(s));
  }
  return samples;
}

// The most objects and bytes of one resource accepted: far beyond any etcd's, and small
// enough that the rounding to int64 below cannot overflow (llround of 1e300 is undefined).
constexpr double kMaxObjects = 1e15;
constexpr double kMaxBytes = 1e18;

std::vector<ResourceSpec> ResourcesFromMetricsText(std::string_view text, const std::string& source,
                                                   std::vector<std::string>* skipped) {
  // Per resource, the counts of the two gauges kept apart (a 1.34+ scrape carries both
  // with the same value: they are not added) and the size estimate.
  struct Totals {
    double storage_objects = 0, resource_objects = 0, bytes = 0;
    bool has_storage = false, has_resource = false, has_bytes = false;
    bool unknown_storage = false, unknown_resource = false;  // a -1: the count failed
  };
  std::map<std::pair<std::string, std::string>, Totals> found;  // (group, resource)
  std::istringstream in{std::string(WithoutByteOrderMark(text))};
  std::string line;
  int number = 0;
  std::map<std::string, int> series_lines;  // name and labels -> the line it is on
  constexpr std::string_view kStorageObjects = "apiserver_storage_objects";
  constexpr std::string_view kResourceObjects = "apiserver_resource_objects";
  constexpr std::string_view kSizeEstimate = "apiserver_resource_size_estimate_bytes";
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t name_end = line.find_first_of("{ ");
    const std::string name = line.substr(0, name_end);
    // apiserver_storage_size_bytes is the database file of a storage cluster
    // (storage_cluster_id), not of a resource: it says nothing of an object's size.
    if (name != kStorageObjects && name != kResourceObjects && name != kSizeEstimate) continue;
    auto fail = [&](const std::string& why) -> void {
      throw InputError({source, number, 1}, name, why);
    };
    std::map<std::string, std::string> labels;
    size_t rest = name_end;
    if (rest != std::string::npos && line[rest] == '{') {
      const size_t close = line.find('}', rest);
      std::string duplicate;
      if (close == std::string::npos ||
          !ParseLabels(std::string_view(line).substr(rest + 1, close - rest - 1), &labels,
                       &duplicate)) {
        fail(duplicate.empty() ? "malformed labels"
                               : "the label " + duplicate + " is given twice in one sample");
      }
      rest = close + 1;
    }
    // One sample per series: a second would be added to the first as if it were another
    // apiserver's.
    std::string series = name;
    for (const auto& [label, value] : labels) series += "\n" + label + "=" + value;
    if (auto [at, fresh] = series_lines.emplace(series, number); !fresh) {
      fail("this series appears twice (first at line " + std::to_string(at->second) +
           "): a scrape has one sample per series");
    }
    std::istringstream value_in(rest == std::string::npos ? std::string() : line.substr(rest));
    std::string value_text;
    value_in >> value_text;
    char* end = nullptr;
    const double value = std::strtod(value_text.c_str(), &end);
    // -1 is the apiserver's "the count could not be fetched" (storage metrics.go).
    const bool unknown = !value_text.empty() && *end == '\0' && value == -1;
    if (!unknown && (value_text.empty() || *end != '\0' || !std::isfinite(value) || value < 0)) {
      fail("expected a non-negative sample value, found \"" + value_text + "\"");
    }
    auto it = labels.find("resource");
    if (it == labels.end() || it->second.empty()) fail("has no resource label");
    std::string resource, group;
    if (name == kStorageObjects) {
      // GroupResource.String(): "pods" for the core group, "deployments.apps" otherwise.
      const std::string& gr = it->second;
      const size_t dot = gr.find('.');
      resource = gr.substr(0, dot);
      group = dot == std::string::npos ? "" : gr.substr(dot + 1);
    } else {
      // The 1.34+ gauges name the group in a label of its own ("" for the core group).
      resource = it->second;
      auto g = labels.find("group");
      group = g == labels.end() ? "" : g->second;
    }
    const std::string gr = group.empty() ? resource : resource + "." + group;
    Totals& t = found[{group, resource}];
    if (name == kSizeEstimate) {
      if (unknown) continue;  // no estimate: the documented default size stays
      t.bytes += value;
      t.has_bytes = true;
      if (t.bytes > kMaxBytes) {
        fail("more than 1e18 bytes of " + gr + " (" + value_text + " here): no etcd holds so much");
      }
      continue;
    }
    const bool storage = name == kStorageObjects;
    (storage ? t.has_storage : t.has_resource) = true;
    if (unknown) {
      (storage ? t.unknown_storage : t.unknown_resource) = true;
      continue;
    }
    double& objects = storage ? t.storage_objects : t.resource_objects;
    objects += value;
    if (objects > kMaxObjects) {
      fail("more than 1e15 objects of " + gr + " (" + value_text + " here): no etcd holds so many");
    }
  }
  std::vector<ResourceSpec> resources;
  for (const auto& [key, t] : found) {
    if (!t.has_storage && !t.has_resource) continue;  // a size without a count
    // apiserver_resource_objects when the scrape has it, else apiserver_storage_objects.
    const bool use_resource = t.has_resource;
    if (use_resource ? t.unknown_resource : t.unknown_storage) {
      if (skipped)
        skipped->push_back(key.first.empty() ? key.second : key.second + "." + key.first);
      continue;
    }
    ResourceSpec r;
    r.api_group = key.first;
    r.resource = key.second;
    r.objects = static_cast<std::int64_t>(
        std::llround(use_resource ? t.resource_objects : t.storage_objects));
    if (t.has_bytes && r.objects > 0) {
      r.average_bytes =
          static_cast<std::int64_t>(std::llround(t.bytes / static_cast<double>(r.objects)));
    }
    resources.push_back(std::move(r));
  }
  return resources;
}

std::vector<ResourceSpec> ResourcesFromMetricsFile(const std::string& path,
                                                   std::vector<std::string>* skipped) {
  return ResourcesFromMetricsText(ReadInputFile(path), path, skipped);
}

}  // namespace sim
