// Two classifications of one request, by different paths, must agree in every field (the
// distinguisher by value: the two may view different copies of the same strings).
#ifndef TESTS_SUPPORT_CLASSIFICATION_SUPPORT_H_
#define TESTS_SUPPORT_CLASSIFICATION_SUPPORT_H_

#include <catch2/catch.hpp>

#include "apf/classification/classifier.h"

namespace test_support {

inline void RequireSameClassification(const apf::Classification& got,
                                      const apf::Classification& want) {
  REQUIRE(got.flow_schema == want.flow_schema);
  REQUIRE(got.priority_level == want.priority_level);
  REQUIRE(got.distinguisher == want.distinguisher);
  REQUIRE(got.uses_flow_hash == want.uses_flow_hash);
  REQUIRE(got.distinguished_by_user == want.distinguished_by_user);
  REQUIRE(got.fell_back_to_catch_all == want.fell_back_to_catch_all);
}

}  // namespace test_support

#endif  // TESTS_SUPPORT_CLASSIFICATION_SUPPORT_H_
