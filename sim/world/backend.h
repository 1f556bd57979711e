// The apiserver's shared backend (CPU, etcd) as egalitarian processor sharing: with n
// requests executing on c cores, each progresses at min(1, c/n) of full speed. This is
// what makes raising the in-flight limits show diminishing returns: past c, more seats
// only stretch every request's service time.
//
// Exact and O(log n) per change: a virtual work clock V advances at the common rate, a
// request that needs w of work and starts at V0 finishes when V reaches V0 + w, and only
// the earliest such finish needs an event. The caller schedules that one event at
// NextCompletionTime() and reschedules it after every Start() or CompleteNext().
#ifndef SIM_WORLD_BACKEND_H_
#define SIM_WORLD_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

class Backend {
 public:
  explicit Backend(double cores) : cores_(cores) {}
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // A request needing `work` of full-speed service starts executing.
  void Start(apf::Nanos now, std::uint64_t request_id, apf::Nanos work);
  // When the earliest executing request finishes, or apf::kNever if none executes.
  apf::Nanos NextCompletionTime() const;
  // Removes and returns the request that finishes at `now` (= NextCompletionTime()).
  std::uint64_t CompleteNext(apf::Nanos now);

  size_t executing() const { return jobs_.size(); }
  double cores() const { return cores_; }
  // The current speed of each executing request, in (0, 1].
  double rate() const;

 private:
  struct Job {
    double finish_work;  // value of the work clock at which it is done
    std::uint64_t sequence;
    std::uint64_t request_id;
    bool operator>(const Job& o) const {
      return finish_work > o.finish_work || (finish_work == o.finish_work && sequence > o.sequence);
    }
  };
  void Advance(apf::Nanos now);

  double cores_;
  double work_clock_ = 0;  // ns of full-speed service every executing request has received
  apf::Nanos last_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::priority_queue<Job, std::vector<Job>, std::greater<Job>> jobs_;
};

}  // namespace sim

#endif  // SIM_WORLD_BACKEND_H_
