#include "apf/filter/max_in_flight.h"

#include <algorithm>
#include <cassert>

namespace apf {

InFlightKind InFlightKindOf(const RequestInfo& request) {
  const std::string& v = request.verb;
  return (v == "get" || v == "list" || v == "watch") ? InFlightKind::kReadOnly
                                                     : InFlightKind::kMutating;
}

MaxInFlightFilter::Outcome MaxInFlightFilter::Admit(const RequestInfo& request, bool long_running,
                                                    std::span<const std::string> user_groups) {
  const InFlightKind kind = InFlightKindOf(request);
  if (long_running) return {Decision::kServedUntracked, kind};
  const int i = Index(kind);
  if (limit_[i] == 0) {  // no filter, or a nil channel: unlimited
    ++in_use_[i];
    return {Decision::kServedUnlimited, kind};
  }
  if (in_use_[i] < limit_[i]) {
    ++in_use_[i];
    watermark_[i] = std::max(watermark_[i], in_use_[i]);
    return {Decision::kServed, kind};
  }
  // A system:masters member is a super-admin or the loopback client: always answered.
  for (const std::string& group : user_groups) {
    if (group == "system:masters") return {Decision::kServedPrivileged, kind};
  }
  return {Decision::kRejected, kind};
}

void MaxInFlightFilter::Release(InFlightKind kind) {
  const int i = Index(kind);
  assert(in_use_[i] > 0);
  --in_use_[i];
  if (limit_[i] != 0) watermark_[i] = std::max(watermark_[i], in_use_[i]);
}

std::int64_t MaxInFlightFilter::TakeWatermark(InFlightKind kind) {
  const int i = Index(kind);
  std::int64_t w = watermark_[i];
  watermark_[i] = 0;
  return w;
}

}  // namespace apf
