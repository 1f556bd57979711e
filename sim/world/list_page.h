// How the simulated apiserver pages a LIST: how many objects one response carries and
// the continue token (metav1.ListMeta.Continue) it hands back when more remain. Where the
// LIST is served decides whether `limit` is honoured (apf::ListDelegatedToStorage,
// doc/model.md#list-estimate step 4):
// - the watch cache ignores `limit` when resourceVersion is "0" and returns every
//   matching object in one response (k8s.io/apiserver pkg/storage/cacher/cacher.go
//   computeListLimit: "the limit is ignored for requests that set RV == 0"), which is
//   why an informer's first LIST comes back whole; for any other resourceVersion
//   (a consistent read at "") it honours `limit`;
// - etcd (pkg/storage/etcd3/store.go GetList) honours `limit`; a continuation carries
//   the previous page's token and is always delegated to etcd (ShouldDelegateContinue).
// The token this server issues is the decimal offset of the next object; a token it did
// not issue reads from the start. Continue tokens never expire here (etcd compaction,
// which gives a real one its 410, is not modelled).
//
// What this does not decide is the LIST's price under APF: the work estimator
// (apf/estimation/work_estimator.h, doc/model.md#list-estimate step 6) sees only the object-count
// tracker's count and `limit`, so it charges every page min(limit, count) objects, the last page
// too, and the first page of an RV "0" LIST as `limit` objects though the cache returns them all.
// The objects a page really carries set its service time (sim/world/service_time.h ListResult).
//
// Tested by tests/sim/world/list_page_test.cc.
#ifndef SIM_WORLD_LIST_PAGE_H_
#define SIM_WORLD_LIST_PAGE_H_

#include <cstdint>
#include <string>

#include "apf/classification/request_info.h"

namespace sim {

struct ListPage {
  std::int64_t objects = 0;    // in this response
  std::string continue_token;  // "" on the last (or only) page
};

// The page answering `query` when the LIST selects `matching` objects in all, served from
// the watch cache (`from_cache`) or from etcd.
ListPage ServeListPage(const apf::RequestQuery& query, std::int64_t matching, bool from_cache);

}  // namespace sim

#endif  // SIM_WORLD_LIST_PAGE_H_
