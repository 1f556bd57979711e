// What the APF filter knows about a request when it classifies it
// (k8s.io/apiserver pkg/util/flowcontrol.RequestDigest: the RequestInfo and the user).
//
// RequestInfo owns its strings; RequestDigest is a view of a RequestInfo and a UserInfo
// that the classifier reads on the hot path without copying or allocating. A digest is
// valid only while the strings it views are alive and unchanged.
#ifndef APF_REQUEST_DIGEST_H_
#define APF_REQUEST_DIGEST_H_

#include <span>
#include <string>
#include <string_view>

#include "apf/user_info.h"

namespace apf {

// The fields of k8s.io/apiserver pkg/endpoints/request.RequestInfo that APF reads
// (APF-SPEC 2.1). For a non-resource request only `verb` (the lowercased HTTP method)
// and `path` matter; for a resource request `path` is not consulted.
struct RequestInfo {
  bool is_resource_request = true;
  std::string verb;         // get, list, watch, create, update, patch, delete, ...
  std::string api_group;    // "" for the core group
  std::string resource;     // "pods"
  std::string subresource;  // "log" for pods/log, else ""
  std::string namespace_;   // "" for cluster-scoped requests and all-namespace lists
  std::string name;
  std::string path;  // the URL path, for non-resource requests ("/healthz")
};

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
  d.namespace_ = info.namespace_;
  d.name = info.name;
  d.path = info.path;
  return d;
}

}  // namespace apf

#endif  // APF_REQUEST_DIGEST_H_
