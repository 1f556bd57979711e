// The load balancer's modes (sim/world/load_balancer.h), each pinned on its own: which
// replica an attempt goes to, and what a client that names its replica does to the others.
#include "sim/world/load_balancer.h"

#include <catch2/catch.hpp>

#include "sim/engine/random.h"

using sim::LoadBalancer;
using sim::LoadBalancing;

TEST_CASE("the scenario's mode names", "[load-balancer]") {
  CHECK(sim::LoadBalancingOf("sticky") == LoadBalancing::kSticky);
  CHECK(sim::LoadBalancingOf("round-robin") == LoadBalancing::kRoundRobin);
  CHECK(sim::LoadBalancingOf("random") == LoadBalancing::kRandom);
  CHECK(sim::LoadBalancingOf("least-requests") == LoadBalancing::kLeastRequests);
  CHECK(sim::LoadBalancingOf("") == LoadBalancing::kSticky);  // the default
}

TEST_CASE("sticky keeps each process on its connection", "[load-balancer]") {
  LoadBalancer lb(LoadBalancing::kSticky, 3, 1);
  for (int i = 0; i < 5; ++i) CHECK(lb.Pick(2, false) == 2);
  CHECK(lb.Pick(1, false) == 1);
}

TEST_CASE("a process's connection is drawn from its own stream", "[load-balancer]") {
  // The stream "<client>/<process>/connection" of the scenario's seed, one UniformInt draw.
  sim::Random expected(42, "web/3/connection");
  CHECK(LoadBalancer::ConnectionOf(42, "web", 3, 5) == static_cast<int>(expected.UniformInt(5)));
  for (int p = 0; p < 20; ++p) {
    const int r = LoadBalancer::ConnectionOf(7, "web", p, 3);
    CHECK(r >= 0);
    CHECK(r < 3);
  }
}

TEST_CASE("round-robin cycles through the replicas whatever the connection", "[load-balancer]") {
  LoadBalancer lb(LoadBalancing::kRoundRobin, 3, 1);
  // One counter for all processes: 0, 1, 2, 0, 1 whichever process asks.
  CHECK(lb.Pick(2, false) == 0);
  CHECK(lb.Pick(2, false) == 1);
  CHECK(lb.Pick(0, false) == 2);
  CHECK(lb.Pick(1, false) == 0);
  // A pinned client's attempt goes to its replica and does not take a turn.
  CHECK(lb.Pick(2, true) == 2);
  CHECK(lb.Pick(0, false) == 1);
}

TEST_CASE("random draws from the scenario's load-balancer stream", "[load-balancer]") {
  LoadBalancer lb(LoadBalancing::kRandom, 4, 99);
  sim::Random expected(99, "load-balancer");
  int seen[4] = {0, 0, 0, 0};
  for (int i = 0; i < 400; ++i) {
    const int r = lb.Pick(0, false);
    CHECK(r == static_cast<int>(expected.UniformInt(4)));
    ++seen[r];
  }
  // 400 uniform draws over 4 replicas: 100 expected each; below 50 has probability far
  // under 1e-9 (binomial, sd ~8.7), so each replica is seen.
  for (int n : seen) CHECK(n > 50);
}

TEST_CASE("least-requests goes to the replica holding fewest, ties to the lowest index",
          "[load-balancer]") {
  LoadBalancer lb(LoadBalancing::kLeastRequests, 3, 1);
  CHECK(lb.Pick(2, false) == 0);  // all idle: the lowest index
  lb.Arrived(0);
  CHECK(lb.Pick(0, false) == 1);  // 1, 0, 0
  lb.Arrived(1);
  lb.Arrived(1);
  CHECK(lb.Pick(0, false) == 2);  // 1, 2, 0
  lb.Arrived(2);
  CHECK(lb.Pick(1, false) == 0);  // 1, 2, 1: replica 0 wins the tie with 2
  lb.Left(1);
  lb.Left(1);
  CHECK(lb.in_flight(1) == 0);
  CHECK(lb.Pick(0, false) == 1);  // 1, 0, 1
}

TEST_CASE("one replica takes everything, and a pinned client keeps its own", "[load-balancer]") {
  LoadBalancer one(LoadBalancing::kRoundRobin, 1, 1);
  CHECK(one.Pick(0, false) == 0);
  LoadBalancer lb(LoadBalancing::kLeastRequests, 2, 1);
  lb.Arrived(1);
  CHECK(lb.Pick(1, true) == 1);  // pinned: not the least loaded
}

TEST_CASE("a stopped replica is never picked by the per-request modes", "[load-balancer]") {
  // Three replicas, apiserver-1 down: round-robin skips it and keeps its counter (0, 2,
  // 0, 2), least-requests takes the least loaded among those up, random draws among the
  // two up.
  LoadBalancer rr(LoadBalancing::kRoundRobin, 3, 1);
  rr.SetUp(1, false);
  CHECK(rr.up_count() == 2);
  CHECK_FALSE(rr.up(1));
  CHECK(rr.Pick(0, false) == 0);
  CHECK(rr.Pick(0, false) == 2);
  CHECK(rr.Pick(0, false) == 0);
  CHECK(rr.Pick(0, false) == 2);
  // Up again: the counter goes on from 6 (each skip of apiserver-1 counted): 0, 1, 2.
  rr.SetUp(1, true);
  CHECK(rr.Pick(0, false) == 0);
  CHECK(rr.Pick(0, false) == 1);
  LoadBalancer lr(LoadBalancing::kLeastRequests, 3, 1);
  lr.Arrived(0);
  lr.SetUp(1, false);  // the idle one is down: apiserver-2 (0 requests) beats apiserver-0 (1)
  CHECK(lr.Pick(0, false) == 2);
  LoadBalancer random(LoadBalancing::kRandom, 3, 1);
  random.SetUp(1, false);
  for (int i = 0; i < 50; ++i) CHECK(random.Pick(0, false) != 1);
}

TEST_CASE("a broken sticky connection dials again among the replicas up", "[load-balancer]") {
  // Reconnect draws UniformInt(up replicas) and takes that one among those up, in order.
  LoadBalancer lb(LoadBalancing::kSticky, 3, 1);
  lb.SetUp(0, false);
  sim::Random rng(5, "reconnect");
  sim::Random expected(5, "reconnect");
  for (int i = 0; i < 20; ++i) {
    const int want = expected.UniformInt(2) == 0 ? 1 : 2;
    CHECK(lb.Reconnect(rng) == want);
  }
}
