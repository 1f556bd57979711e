// Request builders shared by the classification tests: a resource request and a
// non-resource request as kube-apiserver's RequestInfoFactory would describe them.
#ifndef TESTS_REQUEST_SUPPORT_H_
#define TESTS_REQUEST_SUPPORT_H_

#include <string>
#include <utility>

#include "apf/classification/request_info.h"

namespace test_support {

inline apf::RequestInfo ResourceRequest(std::string verb, std::string group, std::string resource,
                                        std::string ns, std::string subresource = "") {
  apf::RequestInfo r;
  r.is_resource_request = true;
  r.verb = std::move(verb);
  r.api_group = std::move(group);
  r.resource = std::move(resource);
  r.namespace_name = std::move(ns);
  r.subresource = std::move(subresource);
  return r;
}

inline apf::RequestInfo NonResourceRequest(std::string verb, std::string path) {
  apf::RequestInfo r;
  r.is_resource_request = false;
  r.verb = std::move(verb);
  r.path = std::move(path);
  return r;
}

}  // namespace test_support

#endif  // TESTS_REQUEST_SUPPORT_H_
