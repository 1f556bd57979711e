// Ctrl-C and SIGTERM during a run: the handler only records the signal; the engine polls
// it between events (sim/engine/engine.h RunLimits::keep_going), so a run stops at a clean point,
// the outputs it had begun are discarded (sim/io/output_file.h) and the command exits with
// 128 + the signal's number, as a shell expects of an interrupted program.
#ifndef SIM_WORKFLOWS_INTERRUPT_H_
#define SIM_WORKFLOWS_INTERRUPT_H_

#include <stdexcept>
#include <string>

namespace sim {

// Installs the SIGINT and SIGTERM handlers for its lifetime and restores the previous ones
// after. A second signal of the same kind is not caught: a user who presses Ctrl-C twice
// gets the default behaviour at once.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal received since the guard was installed, or 0.
int PendingInterrupt();
// For tests: behave as if `signal_number` had arrived (0 clears it).
void SimulateInterrupt(int signal_number);

// "SIGINT", "SIGTERM", or "signal N".
std::string SignalName(int signal_number);

// Thrown when a run stops because of a signal; main exits with exit_code().
class RunInterrupted : public std::runtime_error {
 public:
  RunInterrupted(int signal_number, const std::string& message)
      : std::runtime_error(message), signal_number_(signal_number) {}
  int signal_number() const { return signal_number_; }
  int exit_code() const { return 128 + signal_number_; }

 private:
  int signal_number_;
};

}  // namespace sim

#endif  // SIM_WORKFLOWS_INTERRUPT_H_
