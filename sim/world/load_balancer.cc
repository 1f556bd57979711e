#include "sim/world/load_balancer.h"

namespace sim {

LoadBalancing LoadBalancingOf(std::string_view mode) {
  if (mode == "round-robin") return LoadBalancing::kRoundRobin;
  if (mode == "random") return LoadBalancing::kRandom;
  if (mode == "least-requests") return LoadBalancing::kLeastRequests;
  return LoadBalancing::kSticky;
}

LoadBalancer::LoadBalancer(LoadBalancing mode, int replicas, std::uint64_t seed)
    : mode_(mode), in_flight_(static_cast<size_t>(replicas), 0), random_(seed, "load-balancer") {}

int LoadBalancer::ConnectionOf(std::uint64_t seed, const std::string& client, int process,
                               int replicas) {
  Random placement(seed, client + "/" + std::to_string(process) + "/connection");
  return static_cast<int>(placement.UniformInt(static_cast<std::uint64_t>(replicas)));
}

void LoadBalancer::SetUp(int r, bool up) {
  if (up_.empty()) up_.assign(in_flight_.size(), true);
  if (up_[r] == up) return;
  up_[r] = up;
  down_ += up ? -1 : 1;
}

int LoadBalancer::Reconnect(Random& rng) const {
  const std::uint64_t k = rng.UniformInt(static_cast<std::uint64_t>(up_count()));
  std::uint64_t seen = 0;
  for (int r = 0; r < static_cast<int>(in_flight_.size()); ++r) {
    if (up(r) && seen++ == k) return r;
  }
  return 0;
}

int LoadBalancer::PickUp() {
  const int n = static_cast<int>(in_flight_.size());
  switch (mode_) {
    case LoadBalancing::kRoundRobin:
      for (;;) {
        const int r = static_cast<int>(round_robin_++ % n);
        if (up_[r]) return r;
      }
    case LoadBalancing::kRandom:
      return Reconnect(random_);
    case LoadBalancing::kLeastRequests: {
      int best = -1;  // ties go to the lowest index
      for (int r = 0; r < n; ++r) {
        if (up_[r] && (best < 0 || in_flight_[r] < in_flight_[best])) best = r;
      }
      return best;
    }
    case LoadBalancing::kSticky:
      break;
  }
  return 0;
}

}  // namespace sim
