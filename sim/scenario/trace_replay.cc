#include "sim/scenario/trace_replay.h"

#include <algorithm>
#include <array>
#include <set>

#include "sim/io/csv.h"
#include "sim/io/input_file.h"

namespace sim {
namespace {

constexpr std::array<std::string_view, 9> kColumns = {
    "time", "client", "verb", "apiGroup", "resource", "namespace", "name", "query", "serviceTime"};

}  // namespace

std::optional<apf::Nanos> ParseDecimalSeconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  apf::Nanos whole = 0;
  size_t i = 0;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (whole > (INT64_MAX / apf::kSecond) / 10) return std::nullopt;  // past ~292 years
    whole = whole * 10 + (text[i] - '0');
    digits = true;
  }
  apf::Nanos fraction = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    apf::Nanos scale = apf::kSecond / 10;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      fraction += (text[i] - '0') * scale;  // digits past nanoseconds are dropped
      scale /= 10;
      digits = true;
    }
  }
  if (!digits || i != text.size()) return std::nullopt;
  return whole * apf::kSecond + fraction;
}

CsvTraceReader::CsvTraceReader(std::string path, std::string client_name, apf::Nanos start)
    : path_(std::move(path)), client_name_(std::move(client_name)), start_(start), in_(path_) {
  if (std::string why = WhyUnreadable(path_); !why.empty()) {
    throw InputError({path_, 0, 0}, "", "cannot read the trace file: " + why);
  }
  if (!in_) throw InputError({path_, 0, 0}, "", "cannot read the trace file");
  while (ReadInputLine(in_, text_, {path_, line_ + 1, 1})) {
    ++line_;
    if (line_ == 1) text_.erase(0, text_.size() - WithoutByteOrderMark(text_).size());
    if (text_.empty() || text_[0] == '#') continue;
    if (!SplitCsvRecord(text_, &fields_) || fields_.size() != kColumns.size()) break;
    for (size_t i = 0; i < kColumns.size(); ++i) {
      if (fields_[i] != kColumns[i]) break;
      if (i + 1 == kColumns.size()) {
        lines_read_ = line_;
        return;
      }
    }
    break;
  }
  Fail(1, "",
       "expected the header time,client,verb,apiGroup,resource,namespace,name,query,"
       "serviceTime");
}

void CsvTraceReader::Fail(int column, const std::string& field, const std::string& message) const {
  throw InputError({path_, line_, column}, field, message);
}

bool CsvTraceReader::Next(ReplayRow* row) {
  for (;;) {
    // A record may span lines (a quoted line break); errors name the line it starts on.
    line_ = lines_read_ + 1;
    if (!ReadCsvRecord(in_, &text_, &lines_read_, path_)) break;
    if (text_.empty() || text_ == "\r" || text_[0] == '#') continue;
    if (!SplitCsvRecord(text_, &fields_)) {
      // The quote left open is in the last field split so far.
      const size_t open = std::min(fields_.size(), kColumns.size()) - 1;
      Fail(0, std::string(kColumns[open]), "unterminated quote");
    }
    if (fields_.size() != kColumns.size()) {
      Fail(0, "",
           "expected " + std::to_string(kColumns.size()) + " fields, found " +
               std::to_string(fields_.size()));
    }
    const std::optional<apf::Nanos> time = ParseDecimalSeconds(fields_[0]);
    if (!time)
      Fail(1, "time",
           "expected seconds as a non-negative decimal number, found \"" + fields_[0] + "\"");
    if (*time < last_time_) {
      Fail(1, "time", "rows must be in time order: " + fields_[0] + " comes after a later row");
    }
    last_time_ = *time;
    if (!fields_[1].empty() && fields_[1] != client_name_) {
      Fail(0, "client",
           "the row names client \"" + fields_[1] + "\" but this trace belongs to \"" +
               client_name_ + "\"");
    }
    static const std::set<std::string, std::less<>> kVerbs = {
        "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};
    if (!kVerbs.count(fields_[2])) {
      Fail(0, "verb",
           "unknown verb \"" + fields_[2] +
               "\" (get, list, watch, create, update, patch, delete, deletecollection)");
    }
    if (fields_[4].empty()) Fail(0, "resource", "must not be empty");
    RequestTemplate& r = row->request;
    r = RequestTemplate{};
    r.verb = fields_[2];
    r.api_group = fields_[3];
    const size_t slash = fields_[4].find('/');
    r.resource = fields_[4].substr(0, slash);
    if (slash != std::string::npos) r.subresource = fields_[4].substr(slash + 1);
    r.namespace_ = fields_[5];
    r.name = fields_[6];
    r.query = fields_[7];
    if (!fields_[8].empty()) {
      const std::optional<apf::Nanos> service = ParseDecimalSeconds(fields_[8]);
      if (!service) {
        Fail(0, "serviceTime",
             "expected seconds as a non-negative decimal number, found \"" + fields_[8] + "\"");
      }
      r.service_time = DurationDistribution{DurationDistribution::Kind::kConstant, *service, 0};
    }
    r.where = {path_, line_, 1};
    row->at = start_ + *time;
    row->client = -1;
    row->recorded_code = 0;
    ++rows_read_;
    return true;
  }
  return false;
}

}  // namespace sim
