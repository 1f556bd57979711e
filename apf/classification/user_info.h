// Who made a request, as kube-apiserver's authenticators hand it to the APF filter
// (k8s.io/apiserver pkg/authentication/user.Info): a user name and groups. The helpers
// build the identities the authenticators produce for service accounts, humans and
// anonymous requests, so that scenarios can name a client the way an SRE would
// ("platform/tenant-operator") and still be classified exactly as the apiserver would.
#ifndef APF_CLASSIFICATION_USER_INFO_H_
#define APF_CLASSIFICATION_USER_INFO_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apf {

// The authenticator's well-known names (pkg/authentication/user/user.go,
// pkg/authentication/serviceaccount/util.go).
inline constexpr const char* kGroupSystemMasters = "system:masters";
inline constexpr const char* kGroupNodes = "system:nodes";
inline constexpr const char* kGroupAuthenticated = "system:authenticated";
inline constexpr const char* kGroupUnauthenticated = "system:unauthenticated";
inline constexpr const char* kGroupAllServiceAccounts = "system:serviceaccounts";
inline constexpr const char* kServiceAccountGroupPrefix = "system:serviceaccounts:";
inline constexpr const char* kServiceAccountUsernamePrefix = "system:serviceaccount:";
inline constexpr const char* kUserAnonymous = "system:anonymous";
inline constexpr const char* kUserKubeControllerManager = "system:kube-controller-manager";
inline constexpr const char* kUserKubeScheduler = "system:kube-scheduler";

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;

  bool operator==(const UserInfo&) const = default;
};

// The identity the service-account token authenticator produces for NAMESPACE/NAME:
// user "system:serviceaccount:NS:NAME" in groups "system:serviceaccounts",
// "system:serviceaccounts:NS", then "system:authenticated" (added for every authenticated
// user by the authenticator chain's group adder).
UserInfo ServiceAccountUser(std::string_view namespace_, std::string_view name);

// "NS/NAME" to ServiceAccountUser; nullopt (with `error` set) when it is not of that form.
std::optional<UserInfo> ParseServiceAccount(std::string_view ns_slash_name,
                                            std::string* error = nullptr);

// An authenticated user (a human with a client certificate or an OIDC token, a kubelet,
// a controller): the given groups, then "system:authenticated" unless already present.
UserInfo AuthenticatedUser(std::string name, std::vector<std::string> groups = {});

// An anonymous request: user "system:anonymous" in group "system:unauthenticated".
UserInfo AnonymousUser();

}  // namespace apf

#endif  // APF_CLASSIFICATION_USER_INFO_H_
