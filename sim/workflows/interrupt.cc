#include "sim/workflows/interrupt.h"

#include <atomic>
#include <csignal>

namespace sim {
namespace {

// A lock-free atomic is async-signal-safe to store to; sweeps read it from many threads.
std::atomic<int> g_pending{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction g_previous_int, g_previous_term;

void RecordSignal(int signal_number) { g_pending.store(signal_number, std::memory_order_relaxed); }

void Install(int signal_number, struct sigaction* previous) {
  struct sigaction action {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second Ctrl-C finds the default action and ends the process.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(signal_number, &action, previous);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_pending.store(0, std::memory_order_relaxed);
  Install(SIGINT, &g_previous_int);
  Install(SIGTERM, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int PendingInterrupt() { return g_pending.load(std::memory_order_relaxed); }

void SimulateInterrupt(int signal_number) {
  g_pending.store(signal_number, std::memory_order_relaxed);
}

std::string SignalName(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
  }
  return "signal " + std::to_string(signal_number);
}

}  // namespace sim
