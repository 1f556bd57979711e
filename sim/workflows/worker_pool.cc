#include "sim/workflows/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/workflows/interrupt.h"

namespace sim {

int ThreadsFor(int jobs, std::size_t tasks) {
  const int wanted = jobs > 0 ? jobs : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, static_cast<int>(std::min<std::size_t>(
                         static_cast<std::size_t>(std::max(1, wanted)), tasks)));
}

std::size_t RunTasks(std::size_t count, int jobs, const std::function<void(std::size_t)>& task,
                     const std::function<void(std::size_t, std::size_t)>& done) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::size_t finished = 0;
  auto worker = [&] {
    for (std::size_t k = next++; k < count; k = next++) {
      if (PendingInterrupt() != 0) break;  // the tasks not started yet are skipped
      try {
        task(k);
      } catch (...) {
        errors[k] = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(done_mutex);
      ++finished;
      if (done) done(finished, count);
    }
  };
  std::vector<std::thread> threads;
  const int n = ThreadsFor(jobs, count);
  for (int t = 0; t < n; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (PendingInterrupt() != 0) return finished;
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return finished;
}

}  // namespace sim
