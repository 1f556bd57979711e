#include "sim/scenario/audit_log.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "apf/classification/request_info.h"
#include "sim/io/input_file.h"

namespace sim {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool Digits(std::string_view text, size_t at, size_t n, int* out) {
  if (at + n > text.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

bool Later(const auto& a, const auto& b) {
  return a.received != b.received ? a.received > b.received : a.sequence > b.sequence;
}

std::string StringAt(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<apf::Nanos> ParseRfc3339(std::string_view t) {
  int year, month, day, hour, minute, second;
  if (!Digits(t, 0, 4, &year) || t.size() < 20 || t[4] != '-' || !Digits(t, 5, 2, &month) ||
      t[7] != '-' || !Digits(t, 8, 2, &day) || (t[10] != 'T' && t[10] != 't') ||
      !Digits(t, 11, 2, &hour) || t[13] != ':' || !Digits(t, 14, 2, &minute) || t[16] != ':' ||
      !Digits(t, 17, 2, &second)) {
    return std::nullopt;
  }
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return std::nullopt;
  }
  size_t i = 19;
  apf::Nanos fraction = 0;
  if (i < t.size() && t[i] == '.') {
    ++i;
    apf::Nanos scale = apf::kSecond / 10;
    const size_t first = i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      fraction += (t[i] - '0') * scale;
      scale /= 10;
    }
    if (i == first) return std::nullopt;
  }
  apf::Nanos offset = 0;
  if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
    ++i;
  } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    int oh, om;
    if (!Digits(t, i + 1, 2, &oh) || i + 3 >= t.size() || t[i + 3] != ':' ||
        !Digits(t, i + 4, 2, &om) || oh > 23 || om > 59) {
      // RFC 3339's time-numoffset: hours 00-23, minutes 00-59 (Go's time.Parse agrees).
      return std::nullopt;
    }
    offset = (t[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60) * apf::kSecond;
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  const std::int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60 * apf::kSecond + second * apf::kSecond + fraction -
         offset;
}

std::string AuditIdentityKey(const AuditIdentity& identity) {
  std::string key = identity.user;
  for (const std::string& g : identity.groups) {
    key += '\n';
    key += g;
  }
  return key;
}

AuditLogReader::AuditLogReader(const AuditLogSpec& spec, apf::Nanos origin,
                               const std::map<std::string, int>* clients)
    : spec_(spec), origin_(origin), clients_(clients), in_(spec.file) {
  if (std::string why = WhyUnreadable(spec.file); !why.empty()) {
    throw InputError(spec.where, "auditLog.file", "cannot read " + spec.file + ": " + why);
  }
  if (!in_) throw InputError(spec.where, "auditLog.file", "cannot read " + spec.file);
}

bool AuditLogReader::ReadEvent() {
  while (!eof_) {
    if (!ReadInputLine(in_, line_, {spec_.file, static_cast<int>(stats_.lines) + 1, 1})) {
      eof_ = true;
      return false;
    }
    // The backend ends every event with a newline: a last line without one was cut off.
    const bool last_without_newline = in_.eof();
    ++stats_.lines;
    if (stats_.lines == 1) line_.erase(0, line_.size() - WithoutByteOrderMark(line_).size());
    if (line_.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json event = nlohmann::json::parse(line_, nullptr, false);
    if (event.is_discarded()) {
      Skip(last_without_newline ? "truncated-last-line" : "not-json");
      continue;
    }
    if (!event.is_object() || StringAt(event, "kind") != "Event" ||
        StringAt(event, "apiVersion").rfind("audit.k8s.io/", 0) != 0) {
      Skip("not-an-audit-event");
      continue;
    }
    const std::string verb = StringAt(event, "verb");
    const std::string stage = StringAt(event, "stage");
    if (stage != (verb == "watch" ? "ResponseStarted" : "ResponseComplete")) {
      Skip("other-stage");  // RequestReceived, Panic, a watch's end: not a call of its own
      continue;
    }
    const std::optional<apf::Nanos> received =
        ParseRfc3339(StringAt(event, "requestReceivedTimestamp"));
    const std::optional<apf::Nanos> staged = ParseRfc3339(StringAt(event, "stageTimestamp"));
    const auto user_it = event.find("user");
    if (verb.empty() || !received || !staged || user_it == event.end() || !user_it->is_object()) {
      Skip("missing-field");
      continue;
    }
    newest_stage_ = std::max(newest_stage_, *staged);
    // The apiserver classifies an impersonated request as the impersonated user.
    const auto imp = event.find("impersonatedUser");
    const nlohmann::json& who = imp != event.end() && imp->is_object() ? *imp : *user_it;
    Pending p;
    p.identity.user = StringAt(who, "username");
    p.identity.user_agent = StringAt(event, "userAgent");
    if (auto g = who.find("groups"); g != who.end() && g->is_array()) {
      for (const auto& group : *g) {
        if (group.is_string()) p.identity.groups.push_back(group.get<std::string>());
      }
    }
    if (p.identity.user.empty()) {
      Skip("missing-field");
      continue;
    }
    if ((spec_.from && *received < *spec_.from) || (spec_.to && *received >= *spec_.to)) {
      Skip("outside-window");
      continue;
    }
    const auto listed = [&](const std::vector<std::string>& users) {
      return std::find(users.begin(), users.end(), p.identity.user) != users.end();
    };
    if ((!spec_.include_users.empty() && !listed(spec_.include_users)) ||
        listed(spec_.exclude_users)) {
      Skip("user-filtered");
      continue;
    }
    RequestTemplate& r = p.row.request;
    r.verb = verb;
    const std::string uri = StringAt(event, "requestURI");
    const size_t question = uri.find('?');
    if (question != std::string::npos) r.query = uri.substr(question + 1);
    if (auto ref = event.find("objectRef"); ref != event.end() && ref->is_object()) {
      r.api_group = StringAt(*ref, "apiGroup");
      r.api_version = StringAt(*ref, "apiVersion");
      r.resource = StringAt(*ref, "resource");
      r.subresource = StringAt(*ref, "subresource");
      r.namespace_ = StringAt(*ref, "namespace");
      r.name = StringAt(*ref, "name");
    }
    if (r.resource.empty()) r.path = uri.substr(0, question);  // a non-resource request
    // The name is the RequestInfo's (requestinfo.go NewRequestInfo on the requestURI): the
    // path's, or a LIST's or WATCH's `fieldSelector=metadata.name=X`. objectRef.name is
    // that name too, except that audit.LogRequestObject fills it from the request's object
    // when RequestInfo has none (a create's new object), which APF never sees.
    if (!r.resource.empty()) {
      r.name = apf::NewRequestInfo(apf::HttpMethodOfVerb(verb), uri.substr(0, question),
                                   question == std::string::npos ? "" : r.query)
                   .name;
    }
    if (r.resource.empty() && r.path.empty()) {
      Skip("missing-field");
      continue;
    }
    r.service_time = DurationDistribution{DurationDistribution::Kind::kConstant,
                                          std::max<apf::Nanos>(0, *staged - *received), 0};
    r.where = {spec_.file, static_cast<int>(stats_.lines), 1};
    if (auto status = event.find("responseStatus"); status != event.end() && status->is_object()) {
      if (auto code = status->find("code"); code != status->end() && code->is_number_integer()) {
        p.row.recorded_code = code->get<int>();
      }
    }
    p.received = *received;
    p.sequence = sequence_++;
    heap_.push_back(std::move(p));
    std::push_heap(heap_.begin(), heap_.end(),
                   [](const Pending& a, const Pending& b) { return Later(a, b); });
    return true;
  }
  return false;
}

bool AuditLogReader::NextEvent(ReplayRow* row, AuditIdentity* identity, apf::Nanos* received) {
  // Read on until the log has moved past the earliest held arrival by the reorder window:
  // no event still to come can then arrive before it.
  while (!eof_ &&
         (heap_.empty() || newest_stage_ - heap_.front().received < spec_.reorder_window)) {
    ReadEvent();
  }
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(),
                [](const Pending& a, const Pending& b) { return Later(a, b); });
  Pending p = std::move(heap_.back());
  heap_.pop_back();
  if (p.received < last_released_) Skip("late-beyond-reorder-window");  // replayed, but late
  last_released_ = std::max(last_released_, p.received);
  *row = std::move(p.row);
  row->at = static_cast<apf::Nanos>(
      std::llround(static_cast<double>(p.received - origin_) / spec_.speed));
  if (row->at < 0) row->at = 0;
  *received = p.received;
  *identity = std::move(p.identity);
  ++stats_.events;
  if (row->recorded_code != 0) ++stats_.recorded_codes[row->recorded_code];
  return true;
}

bool AuditLogReader::Next(ReplayRow* row) {
  AuditIdentity identity;
  apf::Nanos received = 0;
  if (!NextEvent(row, &identity, &received)) return false;
  row->client = -1;
  if (clients_) {
    auto it = clients_->find(AuditIdentityKey(identity));
    if (it != clients_->end()) row->client = it->second;
  }
  return true;
}

AuditLogScan ScanAuditLog(const AuditLogSpec& spec) {
  AuditLogScan scan;
  AuditLogReader reader(spec, 0, nullptr);
  std::map<std::string, int> seen;
  ReplayRow row;
  AuditIdentity identity;
  apf::Nanos received = 0;
  while (reader.NextEvent(&row, &identity, &received)) {
    if (!scan.first_received || received < *scan.first_received) scan.first_received = received;
    if (seen.emplace(AuditIdentityKey(identity), static_cast<int>(seen.size())).second) {
      scan.identities.push_back(identity);
    }
  }
  scan.stats = reader.stats();
  scan.stats.identities = static_cast<std::int64_t>(scan.identities.size());
  return scan;
}

}  // namespace sim
