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

}  // namespace sim
