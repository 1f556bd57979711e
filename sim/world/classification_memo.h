// Which FlowSchema each kind of call chose, remembered so that the world classifies a
// request of a scenario once rather than at every attempt (the walk over the
// schemas was a twentieth of a simulated request's cost).
//
// A compiled request's calls differ only in their namespace (drawn, or written per
// process), their name and their query; their user differs only by process. The
// classifier reads no name or query, reads a user only through the policy rules whose
// subjects name it (its SubjectMask), and reads a namespace only by whether there is one,
// unless some rule names namespaces (Classifier::reads_namespace_names). So the schema a
// call chooses is a function of its request, its user's mask and whether it has a
// namespace: that is the memo's key, with users of equal masks sharing one subject class.
// The distinguisher is then read off the call's own user or namespace, as Classify does.
// With a configuration that names namespaces the memo is off and every call is classified.
#ifndef SIM_WORLD_CLASSIFICATION_MEMO_H_
#define SIM_WORLD_CLASSIFICATION_MEMO_H_

#include <cstdint>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/classification/request_digest.h"
#include "apf/classification/request_info.h"
#include "apf/classification/user_info.h"

namespace sim {

class ClassificationMemo {
 public:
  // `classifier` must outlive the memo; every replica's classifier must share its
  // configuration (the world gives every replica the same one).
  explicit ClassificationMemo(const apf::Classifier* classifier)
      : classifier_(classifier), reads_namespace_names_(classifier->reads_namespace_names()) {}

  // The class of users whose subject mask is `subjects`; equal masks share a class.
  int SubjectClassOf(const apf::SubjectMask& subjects);

  // classifier->Classify(MakeRequestDigest(user, request), subjects) for a call of
  // compiled request `request_id` (its world index, >= 0) by `user`, of `subject_class`,
  // whose mask is `subjects`. A remembered choice reads only the user's name and the
  // request's namespace.
  apf::Classification Classify(int request_id, int subject_class, const apf::UserInfo& user,
                               const apf::RequestInfo& request, const apf::SubjectMask& subjects) {
    const std::size_t at =
        2 * static_cast<std::size_t>(request_id) + !request.namespace_name.empty();
    const std::vector<std::int32_t>& chosen = chosen_[static_cast<std::size_t>(subject_class)];
    if (!reads_namespace_names_ && at < chosen.size() && chosen[at] >= 0) {
      return classifier_->Result(chosen[at] >> 1, user.name, request.namespace_name,
                                 (chosen[at] & 1) != 0);
    }
    return Remember(at, subject_class, user, request, subjects);
  }

 private:
  apf::Classification Remember(std::size_t at, int subject_class, const apf::UserInfo& user,
                               const apf::RequestInfo& request, const apf::SubjectMask& subjects);

  const apf::Classifier* classifier_;
  bool reads_namespace_names_;
  std::vector<std::vector<std::uint64_t>> masks_;  // by subject class
  // By subject class, then 2 * request + has-namespace: the schema chosen, shifted left
  // once, with 1 when it was the catch-all fallback; -1 before the first such call.
  std::vector<std::vector<std::int32_t>> chosen_;
};

}  // namespace sim

#endif  // SIM_WORLD_CLASSIFICATION_MEMO_H_
