#include "sim/cli/openmetrics_options.h"

#include <string>
#include <vector>

#include "sim/io/input_error.h"

namespace po = boost::program_options;

namespace sim::cli {

std::optional<OpenMetricsOptions> OpenMetricsFrom(const po::variables_map& values) {
  if (!values["openmetrics"].as<bool>()) {
    for (const char* flag : {"start-time", "label"}) {
      if (values.count(flag)) {
        throw InputError({std::string("--") + flag, 0, 0}, "", "needs --openmetrics");
      }
    }
    return std::nullopt;
  }
  OpenMetricsOptions options;
  if (values.count("start-time")) {
    options.start_unix_ns = ParseStartTime(values["start-time"].as<std::string>());
  }
  if (values.count("label")) {
    for (const std::string& label : values["label"].as<std::vector<std::string>>()) {
      options.labels.push_back(ParseExtraLabel(label));
      for (size_t i = 0; i + 1 < options.labels.size(); ++i) {
        if (options.labels[i].first == options.labels.back().first) {
          throw InputError({"--label", 0, 0}, "",
                           "\"" + options.labels.back().first + "\" is given twice");
        }
      }
    }
  }
  return options;
}

}  // namespace sim::cli
