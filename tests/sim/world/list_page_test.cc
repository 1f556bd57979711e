// How the simulated apiserver pages a LIST (sim/world/list_page.h): the watch cache's
// whole answer to resourceVersion "0", `limit` and continue tokens everywhere else, and
// that following the tokens visits every object once. Expected counts are worked out by
// hand in the comments.
#include "sim/world/list_page.h"

#include <catch2/catch.hpp>

#include "apf/classification/request_info.h"

using sim::ListPage;
using sim::ServeListPage;

namespace {

apf::RequestQuery Query(const char* raw, std::string continue_token = "") {
  apf::RequestQuery query = apf::ParseRequestQuery(raw);
  query.continue_token = std::move(continue_token);
  return query;
}

}  // namespace

TEST_CASE("the watch cache answers an RV 0 LIST whole, whatever its limit", "[list_page]") {
  // cacher.go computeListLimit ignores the limit of RV "0": 6000 pods in one response.
  const ListPage page = ServeListPage(Query("resourceVersion=0&limit=500"), 6000, true);
  CHECK(page.objects == 6000);
  CHECK(page.continue_token.empty());
}

TEST_CASE("etcd and the cache's consistent reads honour limit and hand back a continue token",
          "[list_page]") {
  // RV "0" from etcd (the cache off): 500 of 6000, the next page starts at object 500.
  ListPage page = ServeListPage(Query("resourceVersion=0&limit=500"), 6000, false);
  CHECK(page.objects == 500);
  CHECK(page.continue_token == "500");
  // RV "" is a consistent read; the cache serves it and honours the limit.
  page = ServeListPage(Query("limit=500"), 6000, true);
  CHECK(page.objects == 500);
  CHECK(page.continue_token == "500");
}

TEST_CASE("continuation pages: the page size, then the remainder without a token", "[list_page]") {
  // 1234 objects at 500: pages of 500, 500 and 1234 - 1000 = 234.
  ListPage page = ServeListPage(Query("limit=500", "500"), 1234, false);
  CHECK(page.objects == 500);
  CHECK(page.continue_token == "1000");
  page = ServeListPage(Query("limit=500", "1000"), 1234, false);
  CHECK(page.objects == 234);
  CHECK(page.continue_token.empty());
}

TEST_CASE("no limit, or a limit above the count, gives one page", "[list_page]") {
  CHECK(ServeListPage(Query("resourceVersion=1"), 1234, true).objects == 1234);
  const ListPage page = ServeListPage(Query("limit=5000"), 1234, false);
  CHECK(page.objects == 1234);
  CHECK(page.continue_token.empty());
  // Exactly the limit: no object is left, so no token (etcd's hasMore is false).
  CHECK(ServeListPage(Query("limit=1234"), 1234, false).continue_token.empty());
}

TEST_CASE("a token this server did not issue reads from the start", "[list_page]") {
  const ListPage page =
      ServeListPage(Query("limit=500", "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"), 1234, false);
  CHECK(page.objects == 500);
  CHECK(page.continue_token == "500");
}

TEST_CASE("property: following the tokens visits every object once in ceil(N/P) pages",
          "[list_page]") {
  for (std::int64_t matching : {0, 1, 499, 500, 501, 1234, 6000}) {
    for (std::int64_t limit : {1, 7, 500, 5000}) {
      std::string token;
      std::int64_t seen = 0, pages = 0;
      do {
        apf::RequestQuery query;
        query.limit = limit;
        query.continue_token = token;
        const ListPage page = ServeListPage(query, matching, false);
        seen += page.objects;
        ++pages;
        token = page.continue_token;
        REQUIRE(pages <= matching + 1);
      } while (!token.empty());
      CHECK(seen == matching);
      // An empty list is still one response.
      CHECK(pages == std::max<std::int64_t>(1, (matching + limit - 1) / limit));
    }
  }
}
