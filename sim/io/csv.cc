#include "sim/io/csv.h"

#include <bit>
#include <cstdint>
#include <cstring>

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

namespace {

// The bytes of `word` equal to `ch`, each as its top bit. The exact form of the "has a zero
// byte" test (Hacker's Delight, 6-1): no carry crosses a byte, so no byte is reported that
// is not equal.
inline std::uint64_t BytesEqual(std::uint64_t word, char ch) {
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  const std::uint64_t x = word ^ (0x0101010101010101ull * static_cast<unsigned char>(ch));
  return ~(((x & kLow7) + kLow7) | x | kLow7);
}

}  // namespace

bool SplitUnquotedCsvRecord(std::string_view record, std::vector<std::string_view>* fields) {
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  // Every trace row comes here. Commas are found eight bytes at a time (BytesEqual), which
  // costs half the instructions of a memchr per field: the fields are short. Only a quote
  // that opens a field quotes (one inside a field is a character, as SplitCsvRecord reads
  // it), so the field starts are all there is to test.
  fields->clear();
  const char* field = record.data();
  const char* const end = field + record.size();
  const auto end_field = [&](const char* comma) {
    fields->emplace_back(field, comma - field);
    field = comma + 1;
    return field == end || *field != '"';
  };
  if (field != end && *field == '"') return false;
  const char* p = field;
  if constexpr (std::endian::native == std::endian::little) {  // byte i is bits 8i..8i+7
    for (; end - p >= 8; p += 8) {
      std::uint64_t word;
      std::memcpy(&word, p, sizeof word);
      for (std::uint64_t commas = BytesEqual(word, ','); commas != 0; commas &= commas - 1) {
        if (!end_field(p + std::countr_zero(commas) / 8)) return false;
      }
    }
  }
  for (; p != end; ++p) {
    if (*p == ',' && !end_field(p)) return false;
  }
  fields->emplace_back(field, end - field);
  return true;
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
