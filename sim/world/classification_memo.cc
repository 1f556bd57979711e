#include "sim/world/classification_memo.h"

#include <algorithm>

namespace sim {

int ClassificationMemo::SubjectClassOf(const apf::SubjectMask& subjects) {
  const auto it = std::find(masks_.begin(), masks_.end(), subjects.words);
  if (it != masks_.end()) return static_cast<int>(it - masks_.begin());
  masks_.push_back(subjects.words);
  chosen_.emplace_back();
  return static_cast<int>(masks_.size() - 1);
}

apf::Classification ClassificationMemo::Remember(std::size_t at, int subject_class,
                                                 const apf::UserInfo& user,
                                                 const apf::RequestInfo& request,
                                                 const apf::SubjectMask& subjects) {
  const apf::Classification c =
      classifier_->Classify(apf::MakeRequestDigest(user, request), subjects);
  if (reads_namespace_names_) return c;
  std::vector<std::int32_t>& chosen = chosen_[static_cast<std::size_t>(subject_class)];
  if (at >= chosen.size()) chosen.resize(at + 2, -1);
  chosen[at] = c.flow_schema << 1 | (c.fell_back_to_catch_all ? 1 : 0);
  return c;
}

}  // namespace sim
