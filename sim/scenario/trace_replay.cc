#include "sim/scenario/trace_replay.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "sim/io/csv.h"
#include "sim/io/input_file.h"

namespace sim {
namespace {

constexpr std::array<std::string_view, 9> kColumns = {
    "time", "client", "verb", "apiGroup", "resource", "namespace", "name", "query", "serviceTime"};

constexpr std::array<std::string_view, 8> kTraceVerbs = {
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};

bool IsTraceVerb(std::string_view verb) {
  return std::find(kTraceVerbs.begin(), kTraceVerbs.end(), verb) != kTraceVerbs.end();
}

}  // namespace

std::optional<apf::Nanos> ParseDecimalSeconds(std::string_view text) {
  // Every row's time goes through here: the fraction's first nine digits are read as one
  // integer and scaled once, not digit by digit.
  static constexpr apf::Nanos kScale[10] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                            10000,      1000,      100,      10,      1};
  const char* p = text.data();
  const char* const end = p + text.size();
  apf::Nanos whole = 0;
  bool digits = false;
  for (; p != end && *p >= '0' && *p <= '9'; ++p) {
    if (whole > (INT64_MAX / apf::kSecond) / 10) return std::nullopt;  // past ~292 years
    whole = whole * 10 + (*p - '0');
    digits = true;
  }
  apf::Nanos fraction = 0;
  if (p != end && *p == '.') {
    ++p;
    int places = 0;
    for (; p != end && *p >= '0' && *p <= '9'; ++p) {
      if (places < 9) {  // digits past nanoseconds are dropped
        fraction = fraction * 10 + (*p - '0');
        ++places;
      }
      digits = true;
    }
    fraction *= kScale[places];
  }
  if (!digits || p != end) return std::nullopt;
  if (whole > (INT64_MAX - fraction) / apf::kSecond) return std::nullopt;
  return whole * apf::kSecond + fraction;
}

CsvTraceReader::CsvTraceReader(std::string path, std::string client_name, apf::Nanos start,
                               LineReader::Digest digest)
    : lines_(std::move(path), digest, "trace file"),
      client_name_(std::move(client_name)),
      start_(start) {
  if (ReadRecord() && fields_.size() == kColumns.size() &&
      std::equal(fields_.begin(), fields_.end(), kColumns.begin())) {
    return;
  }
  Fail(1, "",
       "expected the header time,client,verb,apiGroup,resource,namespace,name,query,"
       "serviceTime");
}

void CsvTraceReader::Fail(int column, std::string_view field, const std::string& message) const {
  throw InputError({lines_.path(), line_, column}, std::string(field), message);
}

bool CsvTraceReader::ReadRecord() {
  std::string_view text;
  for (;;) {
    line_ = lines_.lines() + 1;
    if (!lines_.Next(&text)) return false;
    if (line_ == 1) text = WithoutByteOrderMark(text);
    if (text.empty() || text == "\r" || text[0] == '#') continue;
    break;
  }
  quoted_ = !SplitUnquotedCsvRecord(text, &fields_);
  if (!quoted_) return true;
  // Quotes: the record may go on past line breaks (a quoted line break), up to the bound
  // of a line (a quote never closed would take the rest of the file).
  quoted_text_.assign(text);
  while (EndsInsideQuotes(quoted_text_) && lines_.Next(&text)) {
    quoted_text_ += '\n';
    quoted_text_ += text;
    if (quoted_text_.size() > kMaxInputLineBytes) {
      throw InputError({lines_.path(), line_, 1}, "",
                       "the record starting on line " + std::to_string(line_) + " is longer than " +
                           FormatByteSize(kMaxInputLineBytes) + " (a quote never closed?)");
    }
  }
  const bool closed = SplitCsvRecord(quoted_text_, &quoted_fields_);
  fields_.assign(quoted_fields_.begin(), quoted_fields_.end());
  if (!closed) {
    // The quote left open is in the last field split so far.
    const size_t open = std::min(fields_.size(), kColumns.size()) - 1;
    Fail(0, kColumns[open], "unterminated quote");
  }
  return true;
}

bool CsvTraceReader::Next(ReplayRow* row) {
  if (!ReadRecord()) return false;
  if (fields_.size() != kColumns.size()) {
    Fail(0, "",
         "expected " + std::to_string(kColumns.size()) + " fields, found " +
             std::to_string(fields_.size()));
  }
  const std::optional<apf::Nanos> time = ParseDecimalSeconds(fields_[0]);
  if (!time) {
    Fail(1, "time",
         "expected seconds as a non-negative decimal number, found \"" + std::string(fields_[0]) +
             "\"");
  }
  if (*time < last_time_) {
    Fail(1, "time",
         "rows must be in time order: " + std::string(fields_[0]) + " comes after a later row");
  }
  last_time_ = *time;
  if (!fields_[1].empty() && fields_[1] != client_name_) {
    Fail(0, "client",
         "the row names client \"" + std::string(fields_[1]) + "\" but this trace belongs to \"" +
             client_name_ + "\"");
  }
  if (!IsTraceVerb(fields_[2])) {
    Fail(0, "verb",
         "unknown verb \"" + std::string(fields_[2]) +
             "\" (get, list, watch, create, update, patch, delete, deletecollection)");
  }
  if (fields_[4].empty()) Fail(0, "resource", "must not be empty");
  if (!fields_[8].empty() && !ParseDecimalSeconds(fields_[8])) {
    Fail(0, "serviceTime",
         "expected seconds as a non-negative decimal number, found \"" + std::string(fields_[8]) +
             "\"");
  }
  row->at = start_ + *time;
  row->client = -1;
  row->recorded_code = 0;
  row->request_deferred = true;
  // The shape: every column but the time, the client, the namespace and the name, and
  // whether there is a name (a nameless GET is a LIST: apf::ResolveCollectionVerb). A
  // quoted record's fields and a "{process}" key (written per process) go unshaped.
  row->namespace_name = fields_[5];
  row->name = fields_[6];
  shape_.clear();
  if (!quoted_ && fields_[5].find('{') == std::string_view::npos &&
      fields_[6].find('{') == std::string_view::npos) {
    const char* request_end = fields_[4].data() + fields_[4].size();
    shape_.append(fields_[2].data(), static_cast<size_t>(request_end - fields_[2].data()))
        .append(fields_[6].empty() ? "," : ",+")
        .append(fields_[7].data(),
                static_cast<size_t>(fields_[8].data() + fields_[8].size() - fields_[7].data()));
  }
  row->shape = shape_;
  ++rows_read_;
  return true;
}

void CsvTraceReader::FillRequest(ReplayRow* row) {
  RequestTemplate& r = row->request;
  r = RequestTemplate{};
  r.verb = fields_[2];
  r.api_group = fields_[3];
  const size_t slash = fields_[4].find('/');
  r.resource = fields_[4].substr(0, slash);
  if (slash != std::string_view::npos) r.subresource = fields_[4].substr(slash + 1);
  r.namespace_ = fields_[5];
  r.name = fields_[6];
  r.query = fields_[7];
  if (!fields_[8].empty()) {
    r.service_time = DurationDistribution{DurationDistribution::Kind::kConstant,
                                          *ParseDecimalSeconds(fields_[8]), 0};
  }
  r.where = {lines_.path(), line_, 1};
  row->request_deferred = false;
}

}  // namespace sim
