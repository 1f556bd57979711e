#include "sim/report/openmetrics.h"

#include <fmt/format.h>

#include <cassert>
#include <chrono>
#include <cstdint>
#include <set>

#include "sim/io/input_error.h"

namespace sim {
namespace {

// Labels that apfsim's series carry themselves (`side`: compare's two runs); a --label may
// not take their place.
const std::set<std::string, std::less<>> kOwnLabels = {"instance", "priority_level", "flow_schema",
                                                       "reason",   "execute",        "le",
                                                       "client",   "request_kind",   "side"};

// Days from 1970-01-01 to a civil date (Howard Hinnant's days_from_civil), so that parsing
// a date does not depend on the machine's time zone.
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Reads `count` digits at `*at` into `*value`.
bool Digits(std::string_view s, size_t* at, int count, int* value) {
  if (*at + count > s.size()) return false;
  int v = 0;
  for (int i = 0; i < count; ++i) {
    const char c = s[*at + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *at += count;
  *value = v;
  return true;
}

bool Expect(std::string_view s, size_t* at, char c) {
  if (*at >= s.size() || s[*at] != c) return false;
  ++*at;
  return true;
}

bool ParseRfc3339(std::string_view s, apf::Nanos* unix_ns) {
  size_t at = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(s, &at, 4, &year) || !Expect(s, &at, '-') || !Digits(s, &at, 2, &month) ||
      !Expect(s, &at, '-') || !Digits(s, &at, 2, &day)) {
    return false;
  }
  if (at >= s.size() || (s[at] != 'T' && s[at] != 't' && s[at] != ' ')) return false;
  ++at;
  if (!Digits(s, &at, 2, &hour) || !Expect(s, &at, ':') || !Digits(s, &at, 2, &minute) ||
      !Expect(s, &at, ':') || !Digits(s, &at, 2, &second)) {
    return false;
  }
  static constexpr int kMonthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 ||
      day > kMonthDays[month - 1] + (month == 2 && IsLeap(year)) || hour > 23 || minute > 59 ||
      second > 59) {
    return false;
  }
  apf::Nanos fraction = 0;
  if (at < s.size() && s[at] == '.') {
    ++at;
    int digits = 0;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
      if (digits < 9) fraction = fraction * 10 + (s[at] - '0');
      ++digits, ++at;
    }
    if (digits == 0) return false;
    for (int i = digits; i < 9; ++i) fraction *= 10;
  }
  std::int64_t offset_seconds = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    const int sign = s[at] == '-' ? -1 : 1;
    ++at;
    int oh = 0, om = 0;
    if (!Digits(s, &at, 2, &oh) || !Expect(s, &at, ':') || !Digits(s, &at, 2, &om) || oh > 23 ||
        om > 59) {
      return false;
    }
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return false;
  }
  if (at != s.size()) return false;
  const std::int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  *unix_ns = seconds * apf::kSecond + fraction;
  return true;
}

bool IsLabelName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && (i == 0 || c < '0' || c > '9')) return false;
  }
  return true;
}

// A --label value as OpenMetrics quotes it: backslash, double quote and newline escaped.
std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// An instant in nanoseconds since the Unix epoch as an OpenMetrics timestamp: seconds, with
// as many decimals as it needs.
std::string Timestamp(apf::Nanos unix_ns) {
  std::string out = fmt::format("{}", unix_ns / apf::kSecond);
  const apf::Nanos fraction = unix_ns % apf::kSecond;
  if (fraction != 0) {
    std::string digits = fmt::format("{:09d}", fraction);
    digits.erase(digits.find_last_not_of('0') + 1);
    out += "." + digits;
  }
  return out;
}

// The label pairs of `{...}`'s inside, split where a quoted value ends.
std::vector<std::pair<std::string_view, std::string_view>> SplitLabels(std::string_view inside) {
  std::vector<std::pair<std::string_view, std::string_view>> labels;
  size_t at = 0;
  while (at < inside.size()) {
    const size_t eq = inside.find('=', at);
    assert(eq != std::string_view::npos && eq + 1 < inside.size() && inside[eq + 1] == '"');
    size_t end = eq + 2;
    while (inside[end] != '"') end += inside[end] == '\\' ? 2 : 1;
    labels.emplace_back(inside.substr(at, eq - at), inside.substr(eq, end + 1 - eq));
    at = end + 1;
    if (at < inside.size() && inside[at] == ',') ++at;
  }
  return labels;
}

constexpr std::size_t kSeriesChunkBytes = 8 << 10;
constexpr std::size_t kPendingBytes = 4 << 20;

}  // namespace

apf::Nanos ParseStartTime(const std::string& text) {
  if (text == "now") {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  apf::Nanos unix_ns = 0;
  if (!ParseRfc3339(text, &unix_ns)) {
    throw InputError({"--start-time", 0, 0}, "",
                     fmt::format("\"{}\" is not an RFC 3339 time such as 2026-01-01T00:00:00Z, "
                                 "nor \"now\"",
                                 text));
  }
  if (unix_ns < 0) {
    throw InputError({"--start-time", 0, 0}, "",
                     fmt::format("{} is before 1970-01-01T00:00:00Z", text));
  }
  return unix_ns;
}

std::pair<std::string, std::string> ParseExtraLabel(const std::string& text) {
  const size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  if (eq == std::string::npos || !IsLabelName(name)) {
    throw InputError({"--label", 0, 0}, "",
                     fmt::format("\"{}\" is not NAME=VALUE with NAME a label name "
                                 "([a-zA-Z_][a-zA-Z0-9_]*), e.g. job=kube-apiserver",
                                 text));
  }
  if (name.rfind("__", 0) == 0) {
    throw InputError({"--label", 0, 0}, "",
                     fmt::format("label names starting with __ are reserved for Prometheus (got "
                                 "\"{}\")",
                                 name));
  }
  if (kOwnLabels.count(name)) {
    throw InputError({"--label", 0, 0}, "",
                     fmt::format("\"{}\" is a label the series already carry", name));
  }
  return {name, text.substr(eq + 1)};
}

OpenMetricsWriter::OpenMetricsWriter(const std::string& path, OpenMetricsOptions options)
    : file_(path), options_(std::move(options)) {
  for (const auto& [name, value] : options_.labels) {
    if (!extra_labels_.empty()) extra_labels_ += ',';
    extra_labels_ += fmt::format("{}=\"{}\"", name, Escape(value));
  }
}

OpenMetricsWriter::~OpenMetricsWriter() {
  if (spool_) std::fclose(spool_);
}

OpenMetricsWriter::Family& OpenMetricsWriter::FamilyNamed(const std::string& prometheus_name) {
  auto it = family_index_.find(prometheus_name);
  if (it == family_index_.end()) {
    it = family_index_.emplace(prometheus_name, static_cast<int>(families_.size())).first;
    families_.push_back(Family{prometheus_name, "unknown", "", {}});
  }
  return families_[it->second];
}

void OpenMetricsWriter::AddSnapshot(apf::Nanos at, std::string_view text) {
  const std::string timestamp = Timestamp(options_.start_unix_ns + at);
  Family* family = nullptr;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      const std::string_view rest = line.substr(7);
      const size_t space = rest.find(' ');
      family = &FamilyNamed(std::string(rest.substr(0, space)));
      const std::string_view value =
          space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      if (line[2] == 'H') {
        family->help = std::string(value);
      } else {
        family->type = std::string(value);
        // OpenMetrics names a counter family without the `_total` its samples end in.
        if (family->type == "counter" && family->name.size() > 6 &&
            family->name.compare(family->name.size() - 6, 6, "_total") == 0) {
          family->name.resize(family->name.size() - 6);
        }
      }
      continue;
    }
    if (line[0] == '#') continue;
    assert(family != nullptr);
    AddSample(*family, line, timestamp);
  }
  if (pending_bytes_ > kPendingBytes) FlushAll();
}

void OpenMetricsWriter::AddSample(Family& family, std::string_view line,
                                  const std::string& timestamp) {
  const size_t brace = line.find('{');
  const size_t name_end = brace == std::string_view::npos ? line.find(' ') : brace;
  const size_t labels_end = brace == std::string_view::npos ? name_end : line.rfind('}') + 1;
  const std::string_view sample_name = line.substr(0, name_end);
  const std::string_view inside = brace == std::string_view::npos
                                      ? std::string_view()
                                      : line.substr(brace + 1, labels_end - brace - 2);
  const std::string_view value = line.substr(labels_end + 1);
  // A histogram's buckets, _sum and _count at one instant are one point of one series:
  // the series is the label set without `le`.
  std::string key = family.name + '{';
  for (const auto& [name, quoted_value] : SplitLabels(inside)) {
    for (const auto& extra : options_.labels) {
      if (extra.first == name) {
        throw InputError(
            {"--label", 0, 0}, "",
            fmt::format("\"{}\" is a label {} already carries", extra.first, family.name));
      }
    }
    if (name == "le") continue;
    key.append(name).append(quoted_value).push_back(',');
  }
  auto [it, added] = series_index_.emplace(std::move(key), static_cast<int>(series_.size()));
  if (added) {
    series_.emplace_back();
    family.series.push_back(it->second);
  }
  Series& series = series_[it->second];
  const size_t before = series.pending.size();
  series.pending.append(sample_name);
  if (!extra_labels_.empty() || !inside.empty()) {
    series.pending.append("{").append(extra_labels_);
    if (!extra_labels_.empty() && !inside.empty()) series.pending.push_back(',');
    series.pending.append(inside).push_back('}');
  }
  series.pending.push_back(' ');
  series.pending.append(value).push_back(' ');
  series.pending.append(timestamp).push_back('\n');
  pending_bytes_ += series.pending.size() - before;
  if (series.pending.size() >= kSeriesChunkBytes) Flush(series);
}

void OpenMetricsWriter::Flush(Series& series) {
  if (series.pending.empty()) return;
  if (!spool_) {
    spool_ = std::tmpfile();
    if (!spool_) throw InputError({file_.path(), 0, 0}, "", "cannot open a temporary spool file");
  }
  if (std::fwrite(series.pending.data(), 1, series.pending.size(), spool_) !=
      series.pending.size()) {
    throw InputError({file_.path(), 0, 0}, "", "cannot write the temporary spool file");
  }
  series.chunks.push_back(Chunk{spool_bytes_, series.pending.size()});
  spool_bytes_ += static_cast<long>(series.pending.size());
  pending_bytes_ -= series.pending.size();
  series.pending.clear();
  series.pending.shrink_to_fit();
}

void OpenMetricsWriter::FlushAll() {
  for (Series& s : series_) Flush(s);
}

void OpenMetricsWriter::Commit() {
  if (spool_ && std::fflush(spool_) != 0) {
    throw InputError({file_.path(), 0, 0}, "", "cannot write the temporary spool file");
  }
  std::string buffer;
  for (const Family& family : families_) {
    file_.Write(fmt::format("# TYPE {} {}\n", family.name, family.type));
    if (!family.help.empty()) {
      // Prometheus' text escapes backslash and newline in HELP; OpenMetrics also the quote.
      std::string help;
      for (char c : family.help) {
        if (c == '"') help += '\\';
        help += c;
      }
      file_.Write(fmt::format("# HELP {} {}\n", family.name, help));
    }
    for (int index : family.series) {
      const Series& series = series_[index];
      for (const Chunk& chunk : series.chunks) {
        buffer.resize(chunk.bytes);
        if (std::fseek(spool_, chunk.offset, SEEK_SET) != 0 ||
            std::fread(buffer.data(), 1, chunk.bytes, spool_) != chunk.bytes) {
          throw InputError({file_.path(), 0, 0}, "", "cannot read back the temporary spool file");
        }
        file_.Write(buffer);
      }
      file_.Write(series.pending);
    }
  }
  file_.Write("# EOF\n");
  file_.Commit();
}

}  // namespace sim
