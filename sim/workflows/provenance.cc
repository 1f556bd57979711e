#include "sim/workflows/provenance.h"

#include <algorithm>
#include <vector>

#include "sim/io/file_digest.h"

namespace sim {

// Defined in the build's generated/apfsim_build_version.cc (cmake/git_version.cmake).
extern const char kApfsimBuildVersion[];

std::string ApfsimBuildVersion() { return kApfsimBuildVersion; }

nlohmann::json RunProvenance(const RunInputs& inputs, const ResolvedRun& run,
                             const std::vector<std::pair<std::string, std::string>>& known) {
  const Scenario& s = run.scenario;
  std::vector<std::string> files = s.flow_control_files;
  for (const ClientSpec& c : s.clients) {
    for (const TrafficSpec& t : c.traffic) {
      if (!t.trace_file.empty()) files.push_back(t.trace_file);
    }
  }
  if (s.audit_log.enabled) files.push_back(s.audit_log.file);
  if (!s.resources_from_metrics.empty()) files.push_back(s.resources_from_metrics);
  files.insert(files.end(), inputs.overlay_files.begin(), inputs.overlay_files.end());
  const std::string& staging = inputs.provenance_folder.first;
  const std::string& final_folder = inputs.provenance_folder.second;
  const auto named = [&](const std::string& path) {
    if (staging.empty() || path.rfind(staging + "/", 0) != 0) return path;
    return final_folder.empty() ? path.substr(staging.size() + 1)
                                : final_folder + path.substr(staging.size());
  };
  nlohmann::json file_list = nlohmann::json::array();
  for (const std::string& f : files) {
    bool seen = false;  // a file named twice is listed once
    for (const auto& listed : file_list) seen = seen || listed["path"] == named(f);
    if (seen) continue;
    const auto digest =
        std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == f; });
    file_list.push_back(
        {{"path", named(f)}, {"sha256", digest != known.end() ? digest->second : FileSha256(f)}});
  }
  nlohmann::json overlays = nlohmann::json::array();
  for (const std::string& f : inputs.overlay_files) overlays.push_back(named(f));
  nlohmann::json out = {{"apfsimVersion", ApfsimBuildVersion()},
                        {"scenarioSha256", FileSha256(inputs.scenario_file)},
                        {"seed", s.seed},
                        {"sets", run.sets},
                        {"overlays", overlays},
                        {"files", file_list}};
  // Edits the config producer put back (doc/config-loading.md#specs-put-back); only when
  // there are some, so that other runs' outputs stay as they were.
  if (!run.flow_control.reset_warnings.empty()) {
    out["configWarnings"] = run.flow_control.reset_warnings;
  }
  return out;
}

std::string DescribeSets(const nlohmann::json& provenance) {
  std::string out;
  if (!provenance.is_object() || !provenance.contains("sets")) return out;
  for (const auto& set : provenance["sets"]) {
    out += out.empty() ? "" : " ";
    out += "--set " + set.get<std::string>();
  }
  return out;
}

}  // namespace sim
