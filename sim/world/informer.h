// The `informer` traffic pattern (scenarios/README.md): one client-go reflector
// (sim/clients/reflector.h, which mirrors tools/cache/reflector.go and
// tools/pager/pager.go) per process, turned into requests as the apiserver sees them.
// The driver is clock-free, like the models in apf/: it says what the world should do
// next (send this request now, come back at a time, or wait for the open watch to end)
// and takes the outcomes back (a call that finished, with the continue token a LIST
// page's response carried; a watch stream that ended). Each request runs as the world's
// normal ClientCall, with its own 429 retries and client-side tokens; the reflector's
// backoff, relists and watch timeouts come on top (doc/model.md#reflector-constants).
//
// What this file adds to the reflector is the wire form of each request: the URL query
// (resourceVersion, limit, continue, allowWatchBookmarks, sendInitialEvents,
// timeoutSeconds). The simulation has no real resourceVersions; "0", "" and "any other
// value" are what decide how the apiserver serves a request (doc/model.md#list-estimate step 4), so
// the reflector's lastSyncResourceVersion is sent as "1".
//
// Tested by tests/sim/world/informer_test.cc.
#ifndef SIM_WORLD_INFORMER_H_
#define SIM_WORLD_INFORMER_H_

#include <cstdint>
#include <string>

#include "apf/base/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/clients/reflector.h"
#include "sim/engine/random.h"

namespace sim {

// One request the reflector decided. The world compiles one request per distinct
// `query`, and writes the continue token and the watch timeout into each call.
struct InformerRequest {
  bool watch = false;
  bool from_last_synced = false;  // a watch from lastSyncResourceVersion
  // The URL query without the parts that change from call to call, e.g.
  // "resourceVersion=0&limit=500" or "allowWatchBookmarks=true&resourceVersion=1".
  std::string query;
  std::string continue_token;        // a continuation page: the previous page's token
  std::int64_t timeout_seconds = 0;  // a watch: its timeoutSeconds, U[300, 600)
};

enum class InformerAction {
  kSend,      // issue `request` now; report OnCallDone when its call finishes
  kWakeAt,    // call OnTimer at wake_at_ns (a backoff delay)
  kWatching,  // a watch stream is open: report OnWatchEnded when it ends
};

struct InformerStep {
  InformerAction action = InformerAction::kWatching;
  apf::Nanos wake_at_ns = 0;  // kWakeAt
  InformerRequest request;    // kSend
};

// How the call of a kSend ended, as the reflector needs it.
struct InformerCallResult {
  // kSucceeded (a LIST page came back, or a watch is open), kEmptyWatch, or a failure.
  CallOutcome outcome = CallOutcome::kSucceeded;
  ReflectorError error = ReflectorError::kOther;  // a failure's kind
  std::string continue_token;                     // a LIST page's; "" on the last page
};

// The result of a finished ClientCall; `continue_token` is what the server's answer to a
// LIST page carried.
InformerCallResult InformerCallResultOf(const ClientCallState& call, std::string continue_token);

class Informer {
 public:
  // `created_at` is when the reflector is built (the pattern's start): its backoff's
  // reset clock starts there. The informer draws watch timeouts and backoff jitter from
  // `rng`, in client-go's order.
  Informer(const ReflectorOptions& options, apf::Nanos created_at, Random rng);
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // At the pattern's start (the first ListAndWatch), then at each kWakeAt's wake_at_ns.
  InformerStep OnTimer(apf::Nanos now);
  // The call of the last kSend finished.
  InformerStep OnCallDone(apf::Nanos now, const InformerCallResult& result);
  // The watch stream that a successful watch call opened ended.
  InformerStep OnWatchEnded(apf::Nanos now, const WatchEnd& end);

  const Reflector& reflector() const { return reflector_; }

  // The instant whose resourceVersion the reflector's lastSyncResourceVersion is, -1 before
  // it first synced: a full list's end (the last page, or WatchList's initial-events-end
  // bookmark), or the last bookmark an open watch received. The watch cache sends a
  // watcher with allowWatchBookmarks a bookmark every bookmarkFrequency (1 min) it is open
  // (cacher.go nextBookmarkTime; the one 2 s before the watch's timeout is not modelled).
  // The world compares it with a replica's start (World::OnExecDone).
  apf::Nanos synced_at_ns() const { return synced_at_ns_; }

 private:
  enum class Pending { kNothing, kList, kWatch, kWatchList };

  InformerStep Follow(const ReflectorStep& step);

  Random rng_;
  Reflector reflector_;
  bool started_ = false;
  Pending pending_ = Pending::kNothing;
  std::string continue_token_;  // the last LIST page's
  apf::Nanos synced_at_ns_ = -1;
  apf::Nanos watch_opened_at_ns_ = -1;  // the open watch's 200, -1: none open
};

// The watch cache's bookmark period for each watcher (cacher.go bookmarkFrequency).
inline constexpr apf::Nanos kBookmarkFrequency = apf::kMinute;

}  // namespace sim

#endif  // SIM_WORLD_INFORMER_H_
