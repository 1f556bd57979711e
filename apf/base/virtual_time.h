// Virtual time for every model and the engine: a signed 64-bit count of nanoseconds,
// the same representation as Go's time.Duration, so that times computed here match
// kube-apiserver's to the nanosecond. Instants are nanoseconds since the start of a run.
#ifndef APF_BASE_VIRTUAL_TIME_H_
#define APF_BASE_VIRTUAL_TIME_H_

#include <cstdint>
#include <limits>

namespace apf {

using Nanos = std::int64_t;

inline constexpr Nanos kNanosecond = 1;
inline constexpr Nanos kMicrosecond = 1000;
inline constexpr Nanos kMillisecond = 1000 * kMicrosecond;
inline constexpr Nanos kSecond = 1000 * kMillisecond;
inline constexpr Nanos kMinute = 60 * kSecond;
inline constexpr Nanos kHour = 60 * kMinute;
inline constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

inline constexpr double ToSeconds(Nanos t) { return static_cast<double>(t) / 1e9; }

// The wall-clock instant a run's virtual time 0 stands for, for the models that key state
// by Unix seconds (the Retry-After tracker) and for times printed as dates (debug dumps):
// 2026-01-01T00:00:00Z, a whole second, so Unix seconds and virtual seconds align.
inline constexpr Nanos kVirtualEpochUnixNanos = 1767225600LL * kSecond;

}  // namespace apf

#endif  // APF_BASE_VIRTUAL_TIME_H_
