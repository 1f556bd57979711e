#include "apf/classification/user_info.h"

#include <algorithm>

namespace apf {

UserInfo ServiceAccountUser(std::string_view namespace_, std::string_view name) {
  UserInfo u;
  u.name = std::string(kServiceAccountUsernamePrefix) + std::string(namespace_) + ":" +
           std::string(name);
  u.groups = {kGroupAllServiceAccounts,
              std::string(kServiceAccountGroupPrefix) + std::string(namespace_),
              kGroupAuthenticated};
  return u;
}

std::optional<UserInfo> ParseServiceAccount(std::string_view ns_slash_name, std::string* error) {
  const size_t slash = ns_slash_name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == ns_slash_name.size() ||
      ns_slash_name.find('/', slash + 1) != std::string_view::npos) {
    if (error) {
      std::string why(1, '"');
      why.append(ns_slash_name);
      why += "\" is not a service account; write it as NAMESPACE/NAME";
      *error = std::move(why);
    }
    return std::nullopt;
  }
  return ServiceAccountUser(ns_slash_name.substr(0, slash), ns_slash_name.substr(slash + 1));
}

UserInfo AuthenticatedUser(std::string name, std::vector<std::string> groups) {
  if (std::find(groups.begin(), groups.end(), kGroupAuthenticated) == groups.end()) {
    groups.push_back(kGroupAuthenticated);
  }
  return UserInfo{std::move(name), std::move(groups)};
}

UserInfo AnonymousUser() { return UserInfo{kUserAnonymous, {kGroupUnauthenticated}}; }

}  // namespace apf
