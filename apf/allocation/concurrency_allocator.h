// How one apiserver divides its seats among priority levels, and re-divides them as
// demand moves ("borrowing"): doc/model.md#nominal-seats, mirroring the allocation half of
// k8s.io/apiserver pkg/util/flowcontrol/apf_controller.go (finishQueueSetReconfigsLocked,
// processOldPLsLocked, imaginePL, updateBorrowingLocked, seatDemandStats).
//
// ConcurrencyAllocator owns every level's allocation state: the static limits of
// priority_level_limits.h, the seat-demand statistics of seat_demand_stats.h and the
// current concurrency limit (currentCL), which is what the level's queue set enforces.
// It has no clock and does not own the queue sets or their seat-demand integrators;
// the caller (the simulated apiserver) drives it:
//
//   - Digest(levels, ...) on every configuration change, like the controller's
//     digestion of all PriorityLevelConfigurations. It ends with one re-division, as the
//     real digestion does; the caller must NOT restart its 10-second ticker for it.
//   - Adjust(...) every 10 s (borrowingAdjustmentPeriod; wait.Until runs it at once when
//     the informers have synced, then 10 s after each run).
//   - After either, the caller sets each level's queue set to the level's current_cl
//     (and concurrency_denominator). That is the only way a queue set learns its limit.
//
// Both take a SeatDemandReset: for a level name it must read and reset that level's
// SeatDemandIntegrator at the current instant and return the reading.
//
// Not thread-safe; one instance per simulated apiserver. Levels are kept in digestion
// order (the configuration's order, then retained and quiescing levels, then imagined
// mandatory ones), and every sum runs in that order, so results are deterministic. (The
// Go code iterates a map, so its float sums run in a random order; the two can differ
// only in the last bits of a float, which matters only at an exact .5 before rounding.)
#ifndef APF_ALLOCATION_CONCURRENCY_ALLOCATOR_H_
#define APF_ALLOCATION_CONCURRENCY_ALLOCATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "apf/allocation/priority_level_limits.h"
#include "apf/allocation/seat_demand_stats.h"
#include "apf/base/status.h"
#include "apf/queueing/seat_demand_integrator.h"

namespace apf {

// Every 10 s the allocation re-divides the seats (apf_controller.go
// borrowingAdjustmentPeriod).
inline constexpr Nanos kBorrowingAdjustmentPeriod = 10 * kSecond;

// One priority level as the allocation sees it.
struct PriorityLevelAllocation {
  PriorityLevelAllocationSpec spec;
  PriorityLevelLimits limits;  // nominalCL, minCL, maxCL (the nominal/lower/upper gauges)
  SeatDemandStats seat_demand;
  // The concurrency limit the queue set is to enforce. For an Exempt level it is only
  // reported (its queue set never limits).
  std::int64_t current_cl = 0;
  // What the queue set divides by for its ratio gauges: current_cl, or
  // max(1, round(serverCL / 10)) when current_cl is 0.
  std::int64_t concurrency_denominator = 1;
  // The target_seats metric. As in the Go code, an Exempt level reports the target of
  // the first non-Exempt level (a quirk of indexing with a missing map key).
  double target_seats = 0;
  // Removed from the configuration but still busy: it keeps its share, and takes part in
  // every re-division, until a digestion finds it idle and removes it.
  bool quiescing = false;
};

class ConcurrencyAllocator {
 public:
  // Reads and resets the named level's seat-demand integrator at the current instant.
  using SeatDemandReset = std::function<SeatDemandResults(const std::string& level)>;
  // Whether the named level's queue set is idle: nothing waiting and nothing executing.
  using LevelIdle = std::function<bool(const std::string& level)>;

  // `server_concurrency_limit` is ServerConcurrencyLimit(...) of the two in-flight flags.
  explicit ConcurrencyAllocator(int server_concurrency_limit);
  ConcurrencyAllocator(const ConcurrencyAllocator&) = delete;
  ConcurrencyAllocator& operator=(const ConcurrencyAllocator&) = delete;

  struct DigestOutcome {
    // Levels that did not exist before this digestion, imagined mandatory ones included.
    // Their seat demand is not read (the real integrator is created and reset within the
    // same instant); the caller creates their queue sets and integrators now.
    std::vector<std::string> introduced;
    // Levels that left the configuration and were idle: gone, with their max seats.
    std::vector<std::string> removed;
    // Levels that left the configuration while busy. When one becomes idle the caller
    // should digest again (apf_controller.go maybeReap queues a re-digestion).
    std::vector<std::string> quiescing;
  };

  // Digests the complete set of priority levels now configured (all the
  // PriorityLevelConfiguration objects, in list order), then re-divides the seats once.
  // - A level missing from `levels` that was there before is removed if `is_idle` says
  //   its queue set is idle, and otherwise kept as quiescing. The mandatory "exempt" and
  //   "catch-all" levels are instead retained unchanged, and imagined from their
  //   built-in specs if they never existed.
  // - A new level starts at currentCL = nominalCL - lendableCL/2 with zeroed demand
  //   statistics; the re-division that ends the digestion overwrites that at once, so
  //   it survives only if the fair-proportion solver fails.
  // - The shares of all levels kept (quiescing ones included) divide the server limit.
  // `reset_demand` is called once for every level that existed before; `is_idle` once
  // for every level that left the configuration. A spec that API validation would
  // reject, or a repeated name, makes it return an error and change nothing.
  Status Digest(const std::vector<PriorityLevelAllocationSpec>& levels,
                const SeatDemandReset& reset_demand, const LevelIdle& is_idle,
                DigestOutcome* outcome);

  // The periodic re-division (updateBorrowing): reads every level's seat demand once,
  // updates its statistics and sets every level's current_cl (doc/model.md#borrowing).
  void Adjust(const SeatDemandReset& reset_demand);

  const std::vector<PriorityLevelAllocation>& levels() const { return levels_; }
  const PriorityLevelAllocation* Find(std::string_view name) const;

  // The work estimator's per-level cap (MaxSeatsTracker.GetMaxSeats): 0, meaning "use the
  // global cap", for a level that never queued. As in the Go tracker, an entry is set
  // when a queuing level is digested and forgotten only when the level is removed, so a
  // level switched from Queue to Reject keeps its last value.
  std::uint64_t GetMaxSeats(std::string_view level) const;

  int server_concurrency_limit() const { return server_concurrency_limit_; }
  // The sum of the nominal limits: what the re-division divides (>= the server limit).
  std::int64_t nominal_cl_sum() const { return nominal_cl_sum_; }
  // The fair_frac gauge after the last re-division: the solver's fair proportion, or 0
  // when the solver was not used or failed.
  double fair_frac() const { return fair_frac_; }
  // Whether the last re-division fell back to the previous limits because the solver
  // returned an error (the "backstop" of the Go log line), and that error.
  bool last_adjustment_backstop() const { return !last_solver_status_.ok(); }
  const Status& last_solver_status() const { return last_solver_status_; }

 private:
  const int server_concurrency_limit_;
  std::vector<PriorityLevelAllocation> levels_;
  std::map<std::string, std::uint64_t, std::less<>> max_seats_;
  std::int64_t nominal_cl_sum_ = 0;
  double fair_frac_ = 0;
  Status last_solver_status_;
};

}  // namespace apf

#endif  // APF_ALLOCATION_CONCURRENCY_ALLOCATOR_H_
