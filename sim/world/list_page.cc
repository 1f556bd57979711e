#include "sim/world/list_page.h"

#include <algorithm>
#include <charconv>

namespace sim {

ListPage ServeListPage(const apf::RequestQuery& query, std::int64_t matching, bool from_cache) {
  std::int64_t offset = 0;
  const std::string& token = query.continue_token;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), offset);
  if (error != std::errc() || end != token.data() + token.size() || offset < 0) offset = 0;
  const std::int64_t remaining = std::max<std::int64_t>(0, matching - offset);
  // cacher.go computeListLimit: the cache drops the limit of an RV "0" LIST.
  const bool limited = query.limit > 0 && !(from_cache && query.resource_version == "0");
  ListPage page;
  page.objects = limited ? std::min(remaining, query.limit) : remaining;
  if (limited && offset + page.objects < matching) {
    page.continue_token = std::to_string(offset + page.objects);
  }
  return page;
}

}  // namespace sim
