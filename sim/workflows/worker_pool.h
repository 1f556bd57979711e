// Independent runs on a few threads: the one way `apfsim sweep` (its grid points) and the
// replications of --seeds (sim/workflows/replicate.h) spread worlds over the cores. Each
// world is self-contained, so tasks share nothing but their inputs, read only; results go
// to slots the caller indexes by task, which is what keeps outputs independent of --jobs.
//
// Tested by tests/sim/workflows/sweep_test.cc and tests/sim/workflows/replicate_test.cc.
#ifndef SIM_WORKFLOWS_WORKER_POOL_H_
#define SIM_WORKFLOWS_WORKER_POOL_H_

#include <cstddef>
#include <functional>

namespace sim {

// The number of threads for `jobs` (0: one per core) and `tasks`: at least 1, at most
// `tasks`.
int ThreadsFor(int jobs, std::size_t tasks);

// Runs task(0) .. task(count - 1), in index order of starting, on ThreadsFor(jobs, count)
// threads. `done(finished, count)`, when given, is called after each task, never
// concurrently with itself. Once a SIGINT or SIGTERM is pending (sim/workflows/interrupt.h)
// no further task starts; the return value (the tasks that finished) then falls short of
// `count` and the caller says so. Otherwise, when tasks threw, the exception of the
// lowest index is rethrown after every thread has stopped.
std::size_t RunTasks(std::size_t count, int jobs, const std::function<void(std::size_t)>& task,
                     const std::function<void(std::size_t, std::size_t)>& done = nullptr);

}  // namespace sim

#endif  // SIM_WORKFLOWS_WORKER_POOL_H_
