// The load balancer in front of the apiserver replicas (spec.apiservers.loadBalancing):
// which replica an attempt goes to. `sticky` is what client-go does, one HTTP/2
// connection per process kept to one replica; `round-robin`, `random` and
// `least-requests` are what a layer-7 balancer in front of the replicas does per request.
// Clock-free: the balancer keeps its own count of the requests each replica holds
// (Arrived/Left) and answers Pick; the world does the rest. A stopped replica
// (SetUp, spec.events) is never picked by the per-request modes; a sticky connection to it
// is moved by the world (Reconnect), once, and stays where it moved.
// Tested by tests/sim/world/load_balancer_test.cc.
#ifndef SIM_WORLD_LOAD_BALANCER_H_
#define SIM_WORLD_LOAD_BALANCER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/random.h"

namespace sim {

enum class LoadBalancing { kSticky, kRoundRobin, kRandom, kLeastRequests };

// The mode a scenario names; the loader accepts only these names, and sticky is the default.
LoadBalancing LoadBalancingOf(std::string_view mode);

class LoadBalancer {
 public:
  // `seed` is the scenario's: random picks draw from its "load-balancer" stream.
  LoadBalancer(LoadBalancing mode, int replicas, std::uint64_t seed);

  // The replica a process's connection goes to, drawn once per process from the stream
  // "<client>/<process>/connection" (sticky balancing keeps it for every request).
  static int ConnectionOf(std::uint64_t seed, const std::string& client, int process, int replicas);

  // The replica for one attempt of a process whose connection is `connection`; `pinned`
  // when the client names its replica (then the connection is always used, and no other
  // mode's state moves).
  int Pick(int connection, bool pinned) {
    const int n = static_cast<int>(in_flight_.size());
    if (pinned) return connection;
    if (n == 1) return 0;
    switch (mode_) {
      case LoadBalancing::kSticky:
        return connection;
      case LoadBalancing::kRoundRobin:
        if (down_ > 0) return PickUp();
        return static_cast<int>(round_robin_++ % n);
      case LoadBalancing::kRandom:
        if (down_ > 0) return PickUp();
        return static_cast<int>(random_.UniformInt(n));
      case LoadBalancing::kLeastRequests: {
        if (down_ > 0) return PickUp();
        int best = 0;  // ties go to the lowest index
        for (int r = 1; r < n; ++r) {
          if (in_flight_[r] < in_flight_[best]) best = r;
        }
        return best;
      }
    }
    return connection;
  }

  // Replica `r` stops (false) or starts (true) taking requests. At least one stays up.
  void SetUp(int r, bool up);
  bool up(int r) const { return up_.empty() || up_[r]; }
  int up_count() const { return static_cast<int>(in_flight_.size()) - down_; }
  // Where a sticky connection to a stopped replica goes: client-go dials again through the
  // balancer in front of the replicas (a Service or a layer-4 balancer), which picks one
  // of the replicas up, uniformly, from `rng`.
  int Reconnect(Random& rng) const;

  // A request reached replica `r` (it counts for least-requests until it Left).
  void Arrived(int r) { ++in_flight_[r]; }
  void Left(int r) { --in_flight_[r]; }
  std::int64_t in_flight(int r) const { return in_flight_[r]; }

 private:
  // Pick while some replica is down: the same rule over the replicas up (round-robin
  // skips the stopped ones, random draws among those up).
  int PickUp();

  LoadBalancing mode_;
  std::vector<std::int64_t> in_flight_;
  std::vector<bool> up_;  // empty until a replica first stops
  int down_ = 0;
  std::uint64_t round_robin_ = 0;
  Random random_;
};

}  // namespace sim

#endif  // SIM_WORLD_LOAD_BALANCER_H_
