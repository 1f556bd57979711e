#include "apf/config/defaults.h"

namespace apf {

void SetFlowSchemaDefaults(FlowSchema& fs) {
  if (fs.spec.matching_precedence == 0) fs.spec.matching_precedence = kDefaultMatchingPrecedence;
}

void SetPriorityLevelConfigurationDefaults(PriorityLevelConfiguration& pl) {
  if (auto& exempt = pl.spec.exempt) {
    if (!exempt->nominal_concurrency_shares) exempt->nominal_concurrency_shares = 0;
    if (!exempt->lendable_percent) exempt->lendable_percent = 0;
  }
  if (auto& limited = pl.spec.limited) {
    if (!limited->nominal_concurrency_shares) {
      limited->nominal_concurrency_shares = kDefaultNominalConcurrencyShares;
    }
    if (!limited->lendable_percent) limited->lendable_percent = 0;
    if (auto& q = limited->limit_response.queuing) {
      if (q->hand_size == 0) q->hand_size = kDefaultHandSize;
      if (q->queues == 0) q->queues = kDefaultQueues;
      if (q->queue_length_limit == 0) q->queue_length_limit = kDefaultQueueLengthLimit;
    }
  }
}

void ConvertV1beta3PriorityLevelConfiguration(PriorityLevelConfiguration& pl) {
  auto& annotations = pl.metadata.annotations;
  const bool preserve_zero = annotations.count(kPreserveZeroConcurrencySharesAnnotation) > 0;
  if (auto& limited = pl.spec.limited) {
    // v1beta3's field is not a pointer: absent and 0 are the same value there.
    std::int32_t shares = limited->nominal_concurrency_shares.value_or(0);
    if (shares == 0 && !preserve_zero) shares = kDefaultNominalConcurrencyShares;
    limited->nominal_concurrency_shares = shares;
  }
  annotations.erase(kPreserveZeroConcurrencySharesAnnotation);
}

}  // namespace apf
