#include "apf/classification/request_info.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace apf {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's url.QueryUnescape: "%XX" must be two hex digits, '+' is a space.
bool QueryUnescape(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+') {
      out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
  return true;
}

// strconv.ParseInt(s, 10, 64): an optional sign and at least one decimal digit, nothing
// else; values outside int64 are errors.
bool ParseGoInt64(std::string_view s, std::int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return false;
  std::uint64_t magnitude = 0;
  const std::uint64_t limit = negative ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    std::uint64_t digit = static_cast<std::uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  *out = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

// runtime.Convert_Slice_string_To_bool: only "0" and (case-insensitively) "false" are
// false; any other value, the empty string included, is true.
bool GoQueryBool(std::string_view v) {
  if (v == "0") return false;
  if (v.size() != 5) return true;
  static constexpr std::string_view kFalse = "false";
  for (size_t i = 0; i < 5; ++i) {
    if (std::tolower(static_cast<unsigned char>(v[i])) != kFalse[i]) return true;
  }
  return false;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

RequestQuery ParseRequestQuery(std::string_view raw_query) {
  RequestQuery q;
  // Which keys have been seen: the first value of a repeated key wins (values[0]).
  enum Key {
    kLabelSelector,
    kFieldSelector,
    kWatch,
    kAllowWatchBookmarks,
    kResourceVersion,
    kResourceVersionMatch,
    kTimeoutSeconds,
    kLimit,
    kContinue,
    kSendInitialEvents,
    kTimeout,
    kDryRun,
    kKeyCount
  };
  static constexpr std::array<std::string_view, kKeyCount> kNames = {
      "labelSelector",   "fieldSelector",        "watch",          "allowWatchBookmarks",
      "resourceVersion", "resourceVersionMatch", "timeoutSeconds", "limit",
      "continue",        "sendInitialEvents",    "timeout",        "dryRun"};
  std::array<bool, kKeyCount> seen{};
  std::string key, value;
  while (!raw_query.empty()) {
    size_t amp = raw_query.find('&');
    std::string_view pair = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view() : raw_query.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos || pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string_view raw_key = pair.substr(0, eq);
    std::string_view raw_value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
    if (!QueryUnescape(raw_key, &key) || !QueryUnescape(raw_value, &value)) continue;
    int which = -1;
    for (int k = 0; k < kKeyCount; ++k) {
      if (key == kNames[k]) which = k;
    }
    if (which < 0 || seen[which]) continue;
    seen[which] = true;
    switch (which) {
      case kLabelSelector:
        q.label_selector = value;
        break;
      case kFieldSelector:
        q.field_selector = value;
        break;
      case kWatch:
        q.watch = GoQueryBool(value);
        break;
      case kAllowWatchBookmarks:
        q.allow_watch_bookmarks = GoQueryBool(value);
        break;
      case kResourceVersion:
        q.resource_version = value;
        break;
      case kResourceVersionMatch:
        q.resource_version_match = value;
        break;
      case kTimeoutSeconds: {
        std::int64_t v = 0;
        if (ParseGoInt64(value, &v)) {
          q.timeout_seconds = v;
        } else {
          q.list_options_error = true;
        }
        break;
      }
      case kLimit:
        if (!ParseGoInt64(value, &q.limit)) {
          q.limit = 0;
          q.list_options_error = true;
        }
        break;
      case kContinue:
        q.continue_token = value;
        break;
      case kSendInitialEvents:
        q.send_initial_events = GoQueryBool(value);
        break;
      case kTimeout:
        q.timeout = value;
        break;
      case kDryRun:
        q.dry_run = true;
        break;
    }
  }
  return q;
}

FieldSelectorMatch FieldSelectorExactMatch(std::string_view selector, std::string_view field) {
  FieldSelectorMatch result;
  // fields.splitTerms: split on commas not escaped by a backslash.
  std::vector<std::string_view> terms;
  if (!selector.empty()) {
    size_t start = 0;
    bool in_slash = false;
    for (size_t i = 0; i < selector.size(); ++i) {
      char c = selector[i];
      if (in_slash) {
        in_slash = false;
      } else if (c == '\\') {
        in_slash = true;
      } else if (c == ',') {
        terms.push_back(selector.substr(start, i - start));
        start = i + 1;
      }
    }
    terms.push_back(selector.substr(start));
  }
  // parseSelector sorts the terms first, so the first matching term in byte order wins.
  std::sort(terms.begin(), terms.end());
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    // fields.splitTerm: the first index where "!=", "==" or "=" begins.
    size_t op_at = std::string_view::npos;
    size_t op_len = 0;
    bool negated = false;
    for (size_t i = 0; i < term.size() && op_at == std::string_view::npos; ++i) {
      std::string_view rest = term.substr(i);
      if (rest.substr(0, 2) == "!=") {
        op_at = i, op_len = 2, negated = true;
      } else if (rest.substr(0, 2) == "==") {
        op_at = i, op_len = 2;
      } else if (rest.substr(0, 1) == "=") {
        op_at = i, op_len = 1;
      }
    }
    if (op_at == std::string_view::npos) return FieldSelectorMatch{true, false, ""};
    std::string_view lhs = term.substr(0, op_at);
    std::string_view rhs = term.substr(op_at + op_len);
    // fields.UnescapeValue: only \\, \, and \= are escapes; a bare ',' or '=' is an error.
    std::string value;
    bool in_slash = false;
    for (char c : rhs) {
      if (in_slash) {
        if (c != '\\' && c != ',' && c != '=') return FieldSelectorMatch{true, false, ""};
        value.push_back(c);
        in_slash = false;
      } else if (c == '\\') {
        in_slash = true;
      } else if (c == ',' || c == '=') {
        return FieldSelectorMatch{true, false, ""};
      } else {
        value.push_back(c);
      }
    }
    if (in_slash) return FieldSelectorMatch{true, false, ""};
    if (!negated && !result.found && lhs == field) {
      result.found = true;
      result.value = std::move(value);
    }
  }
  return result;
}

std::string HttpMethodOfVerb(std::string_view verb) {
  if (verb == "get" || verb == "list" || verb == "watch") return "GET";
  if (verb == "create") return "POST";
  if (verb == "update") return "PUT";
  if (verb == "delete" || verb == "deletecollection") return "DELETE";
  std::string method(verb);
  for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return method;  // patch is PATCH
}

std::string CollectionRequestName(const RequestQuery& query) {
  // DecodeParameters into metainternalversion.ListOptions parses the field selector; when
  // anything fails to decode, the options are reset and no name is taken.
  if (query.list_options_error) return "";
  FieldSelectorMatch by_name = FieldSelectorExactMatch(query.field_selector, "metadata.name");
  if (by_name.parse_error || !by_name.found) return "";
  // path.IsValidPathSegmentName: not "." or "..", and no '/' or '%'.
  const std::string& name = by_name.value;
  if (name == "." || name == ".." || name.find_first_of("/%") != std::string::npos) return "";
  return name;
}

void ResolveCollectionVerb(RequestInfo* info) {
  if (info->name.empty() && info->verb == "get") {
    // The `watch` value is read with the same true/false rule whether or not the other
    // options decode.
    info->verb = info->query.watch ? "watch" : "list";
    info->name = CollectionRequestName(info->query);
  }
  if (info->name.empty() && info->verb == "delete") info->verb = "deletecollection";
}

RequestInfo NewRequestInfo(std::string_view method, std::string_view path,
                           std::string_view raw_query) {
  RequestInfo info;
  info.path = std::string(path);
  info.verb = AsciiLower(method);
  info.query = ParseRequestQuery(raw_query);

  // splitPath: trim every leading and trailing '/', then split on '/'.
  std::string_view trimmed = path;
  while (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::vector<std::string_view> parts;
  if (!trimmed.empty()) {
    size_t start = 0;
    for (size_t i = 0; i <= trimmed.size(); ++i) {
      if (i == trimmed.size() || trimmed[i] == '/') {
        parts.push_back(trimmed.substr(start, i - start));
        start = i + 1;
      }
    }
  }
  size_t at = 0;  // parts[at..] are the parts not yet consumed
  auto remaining = [&] { return parts.size() - at; };
  if (remaining() < 3) return info;
  if (parts[at] != "api" && parts[at] != "apis") return info;
  info.api_prefix = std::string(parts[at++]);
  if (info.api_prefix != "api") {  // only "api" is groupless
    if (remaining() < 3) return info;
    info.api_group = std::string(parts[at++]);
  }
  info.is_resource_request = true;
  info.api_version = std::string(parts[at++]);

  // (The factory also notes whether the verb came from the path; that only decides
  // RequestInfo.FieldSelector/LabelSelector, which the query already holds.)
  if (parts[at] == "proxy" || parts[at] == "watch") {
    if (remaining() < 2) return info;  // "unable to determine kind and namespace"
    info.verb = std::string(parts[at++]);
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "GET" || method == "HEAD") {
    info.verb = "get";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = "delete";
  } else {
    info.verb = "";
  }

  if (parts[at] == "namespaces") {
    if (remaining() > 1) {
      info.namespace_name = std::string(parts[at + 1]);
      // /namespaces/foo/status and /finalize stay on the namespace object itself.
      if (remaining() > 2 && parts[at + 2] != "status" && parts[at + 2] != "finalize") at += 2;
    }
  }
  // Parts: resource [, name [, subresource]]; proxy never has a subresource.
  if (remaining() >= 3 && info.verb != "proxy") info.subresource = std::string(parts[at + 2]);
  if (remaining() >= 2) info.name = std::string(parts[at + 1]);
  if (remaining() >= 1) info.resource = std::string(parts[at]);

  ResolveCollectionVerb(&info);
  return info;
}

}  // namespace apf
