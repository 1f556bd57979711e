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

}  // namespace

// The most objects and bytes of one resource accepted: far beyond any etcd's, and small
// enough that the rounding to int64 below cannot overflow (llround of 1e300 is undefined).
constexpr double kMaxObjects = 1e15;
constexpr double kMaxBytes = 1e18;

std::vector<ResourceSpec> ResourcesFromMetricsText(std::string_view text,
                                                   const std::string& source) {
  struct Totals {
    double objects = 0, bytes = 0;
    bool has_bytes = false;
  };
  std::map<std::pair<std::string, std::string>, Totals> found;  // (group, resource)
  std::istringstream in{std::string(WithoutByteOrderMark(text))};
  std::string line;
  int number = 0;
  std::map<std::string, int> series_lines;  // name and labels -> the line it is on
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const bool objects = line.rfind("apiserver_storage_objects", 0) == 0;
    const bool bytes = line.rfind("apiserver_storage_size_bytes", 0) == 0;
    if (!objects && !bytes) continue;
    const size_t name_end = line.find_first_of("{ ");
    const std::string name = line.substr(0, name_end);
    if (name != "apiserver_storage_objects" && name != "apiserver_storage_size_bytes") continue;
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
    if (value_text.empty() || *end != '\0' || !std::isfinite(value) || value < 0) {
      fail("expected a non-negative sample value, found \"" + value_text + "\"");
    }
    auto it = labels.find("resource");
    if (it == labels.end() || it->second.empty()) fail("has no resource label");
    // GroupResource.String(): "pods" for the core group, "deployments.apps" otherwise.
    const std::string& gr = it->second;
    const size_t dot = gr.find('.');
    const std::string resource = gr.substr(0, dot);
    const std::string group = dot == std::string::npos ? "" : gr.substr(dot + 1);
    Totals& t = found[{group, resource}];
    if (objects) {
      t.objects += value;
      if (t.objects > kMaxObjects) {
        fail("more than 1e15 objects of " + gr + " (" + value_text +
             " here): no etcd holds so many");
      }
    } else {
      t.bytes += value;
      t.has_bytes = true;
      if (t.bytes > kMaxBytes) {
        fail("more than 1e18 bytes of " + gr + " (" + value_text + " here): no etcd holds so much");
      }
    }
  }
  std::vector<ResourceSpec> resources;
  for (const auto& [key, t] : found) {
    ResourceSpec r;
    r.api_group = key.first;
    r.resource = key.second;
    r.objects = static_cast<std::int64_t>(std::llround(t.objects));
    if (t.has_bytes && r.objects > 0) {
      r.average_bytes =
          static_cast<std::int64_t>(std::llround(t.bytes / static_cast<double>(r.objects)));
    }
    resources.push_back(std::move(r));
  }
  return resources;
}

std::vector<ResourceSpec> ResourcesFromMetricsFile(const std::string& path) {
  return ResourcesFromMetricsText(ReadInputFile(path), path);
}

}  // namespace sim
