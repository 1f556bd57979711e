// Human durations as scenarios and flags write them ("250ms", "1.5s", "5m0.5s", "2h"),
// with the grammar and output format of Go's time.ParseDuration and Duration.String, so
// that values copied from Kubernetes manifests and logs read the same here.
#ifndef SIM_IO_DURATION_H_
#define SIM_IO_DURATION_H_

#include <optional>
#include <string>
#include <string_view>

#include "apf/base/virtual_time.h"

namespace sim {

// Parses a duration. On failure returns nullopt and, if `error` is given, says why
// ("missing unit in duration \"15\"", ...). A bare "0" is accepted as in Go.
std::optional<apf::Nanos> ParseDuration(std::string_view text, std::string* error = nullptr);

// time.ParseDuration's error for `text`, which ParseDuration rejects, in Go's words:
// `time: invalid duration "5x."`, `time: missing unit in duration "15"` or
// `time: unknown unit "sec" in duration "5sec"` (the apiserver puts it in a 400's message).
std::string GoParseDurationError(std::string_view text);

// Formats like Go's Duration.String: "1h2m3.5s", "250ms", "1.5µs", "0s".
std::string FormatDuration(apf::Nanos d);

// Seconds with up to nine decimals and no trailing zeros ("12.5", "0.000000001", "3").
std::string FormatSeconds(apf::Nanos d);

}  // namespace sim

#endif  // SIM_IO_DURATION_H_
