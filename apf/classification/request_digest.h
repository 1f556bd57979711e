// What the APF filter knows about a request when it classifies it
// (k8s.io/apiserver pkg/util/flowcontrol.RequestDigest: the RequestInfo and the user).
//
// RequestInfo (apf/classification/request_info.h) owns its strings; RequestDigest is a view of the
// fields of a RequestInfo and a UserInfo that classification reads (doc/model.md#request-info),
// which the classifier reads on the hot path without copying or allocating. A digest is valid only
// while the strings it views are alive and unchanged. For a non-resource request only `verb` (the
// lowercased HTTP method) and `path` matter.
#ifndef APF_CLASSIFICATION_REQUEST_DIGEST_H_
#define APF_CLASSIFICATION_REQUEST_DIGEST_H_

#include <span>
#include <string>
#include <string_view>

#include "apf/classification/request_info.h"
#include "apf/classification/user_info.h"

namespace apf {

struct RequestDigest {
  std::string_view user;
  std::span<const std::string> groups;
  bool is_resource_request = true;
  std::string_view verb;
  std::string_view api_group;
  std::string_view resource;
  std::string_view subresource;
  std::string_view namespace_;
  std::string_view name;
  std::string_view path;
};

inline RequestDigest MakeRequestDigest(const UserInfo& user, const RequestInfo& info) {
  RequestDigest d;
  d.user = user.name;
  d.groups = user.groups;
  d.is_resource_request = info.is_resource_request;
  d.verb = info.verb;
  d.api_group = info.api_group;
  d.resource = info.resource;
  d.subresource = info.subresource;
  d.namespace_ = info.namespace_name;
  d.name = info.name;
  d.path = info.path;
  return d;
}

}  // namespace apf

#endif  // APF_CLASSIFICATION_REQUEST_DIGEST_H_
