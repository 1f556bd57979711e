#include "sim/io/csv.h"

#include "sim/io/input_file.h"

namespace sim {

// Quotes counted as SplitCsvRecord reads them.
bool EndsInsideQuotes(std::string_view text) {
  bool quoted = false, field_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          ++i;
        } else {
          quoted = false;
        }
      }
    } else if (ch == '"' && field_start) {
      quoted = true;
    }
    if (!quoted) field_start = ch == ',';
    if (quoted) field_start = false;
  }
  return quoted;
}

bool SplitUnquotedCsvRecord(std::string_view record, std::vector<std::string_view>* fields) {
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  // A search per field (memchr) costs fewer instructions than a loop over the bytes. Only a
  // quote that opens a field quotes (one inside a field is a character, as SplitCsvRecord
  // reads it), so the field starts are all there is to test.
  fields->clear();
  for (;;) {
    if (!record.empty() && record[0] == '"') return false;
    const size_t comma = record.find(',');
    fields->push_back(record.substr(0, comma));
    if (comma == std::string_view::npos) return true;
    record.remove_prefix(comma + 1);
  }
}

std::string CsvField(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string out = "\"";
  for (char ch : value) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string CsvRecord(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(values[i]);
  }
  return out;
}

bool SplitCsvRecord(std::string_view record, std::vector<std::string>* fields) {
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  size_t used = 0;
  auto next = [&]() -> std::string& {
    if (used == fields->size()) fields->emplace_back();
    std::string& f = (*fields)[used++];
    f.clear();
    return f;
  };
  std::string* field = &next();
  bool quoted = false;
  bool field_start = true;  // nothing of this field read yet
  for (size_t i = 0; i < record.size(); ++i) {
    const char ch = record[i];
    if (quoted) {
      if (ch == '"' && i + 1 < record.size() && record[i + 1] == '"') {
        *field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        *field += ch;
      }
    } else if (ch == '"' && field_start) {
      quoted = true;
    } else if (ch == ',') {
      field = &next();
      field_start = true;
      continue;
    } else {
      *field += ch;  // a quote within an unquoted field is a character
    }
    field_start = false;
  }
  fields->resize(used);
  return !quoted;
}

bool ReadCsvRecord(std::istream& in, std::string* record, int* lines, const std::string& source) {
  record->clear();
  std::string line;
  int read = lines ? *lines : 0;
  const int first = read + 1;
  if (!ReadInputLine(in, line, {source, first, 1})) return false;
  ++read;
  *record = std::move(line);
  // A quote never closed would take the rest of the file into one record: bounded as a
  // line is (sim/io/input_file.h).
  while (EndsInsideQuotes(*record) && ReadInputLine(in, line, {source, read + 1, 1})) {
    ++read;
    *record += '\n';
    *record += line;
    if (record->size() > kMaxInputLineBytes) {
      throw InputError({source, first, 1}, "",
                       "the record starting on line " + std::to_string(first) + " is longer than " +
                           FormatByteSize(kMaxInputLineBytes) + " (a quote never closed?)");
    }
  }
  if (lines) *lines = read;
  return true;
}

}  // namespace sim
