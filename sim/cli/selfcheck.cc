// `apfsim selfcheck`: runs the engine on a queue whose answer is known in closed form
// (M/M/1: Poisson arrivals, exponential service, one server) and compares the simulated
// mean wait with theory, Wq = rho / (mu - lambda). It exercises the event queue, the
// random streams and cancellation together; `make demo` ran it before scenarios existed.
#include <cmath>
#include <deque>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/engine/engine.h"
#include "sim/engine/random.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

enum EventKind : std::uint32_t { kArrival, kDeparture };

class SingleServerQueue : public EventHandler {
 public:
  SingleServerQueue(double lambda, double mu, std::uint64_t seed)
      : lambda_(lambda), mu_(mu), arrivals_(seed, "arrivals"), service_(seed, "service") {}

  void Start(Engine* engine) {
    engine_ = engine;
    engine_->At(Gap(arrivals_.Exponential(lambda_)), Event{kArrival, 0, 0});
  }
  void HandleEvent(apf::Nanos now, const Event& event) override {
    if (event.kind == kArrival) {
      waiting_.push_back(now);
      engine_->After(Gap(arrivals_.Exponential(lambda_)), Event{kArrival, 0, 0});
      if (!busy_) StartService(now);
    } else {
      busy_ = false;
      if (!waiting_.empty()) StartService(now);
    }
  }
  double mean_wait_seconds() const { return total_wait_s_ / static_cast<double>(served_); }
  std::uint64_t served() const { return served_; }

 private:
  static apf::Nanos Gap(double seconds) { return static_cast<apf::Nanos>(seconds * 1e9); }
  void StartService(apf::Nanos now) {
    total_wait_s_ += apf::ToSeconds(now - waiting_.front());
    waiting_.pop_front();
    ++served_;
    busy_ = true;
    engine_->After(Gap(service_.Exponential(mu_)), Event{kDeparture, 0, 0});
  }

  double lambda_, mu_;
  Random arrivals_, service_;
  Engine* engine_ = nullptr;
  std::deque<apf::Nanos> waiting_;
  bool busy_ = false;
  double total_wait_s_ = 0;
  std::uint64_t served_ = 0;
};

int RunSelfCheck(const Args& args) {
  po::options_description options("apfsim selfcheck options");
  std::string out;
  std::uint64_t seed = 1;
  options.add_options()("out", po::value(&out), "also write the result as JSON to this file")(
      "seed", po::value(&seed)->default_value(1), "random seed");
  po::variables_map values;
  if (!ParseCommandLine(args, "apfsim selfcheck [--seed N] [--out FILE]", options, nullptr, values,
                        "apfsim selfcheck\n"
                        "apfsim selfcheck --seed 7 --out selfcheck.json")) {
    return kExitOk;
  }
  const double lambda = 80, mu = 100, rho = lambda / mu;  // 80% utilisation
  const double theory = rho / (mu - lambda);              // 0.04 s
  SingleServerQueue queue(lambda, mu, seed);
  Engine engine(&queue);
  queue.Start(&engine);
  engine.Run({.end_time = 20000 * apf::kSecond});
  const double simulated = queue.mean_wait_seconds();
  const double error = std::abs(simulated - theory) / theory;
  const bool ok = error < 0.05;
  std::cout << "M/M/1 at utilisation 0.8: " << queue.served() << " customers, "
            << engine.events_handled() << " events\n"
            << "  mean wait simulated " << simulated << " s, theory " << theory << " s ("
            << error * 100 << "% apart): " << (ok ? "ok" : "FAILED") << "\n";
  if (!out.empty()) {
    nlohmann::json j = {{"served", queue.served()},
                        {"events", engine.events_handled()},
                        {"meanWaitSeconds", simulated},
                        {"theoryMeanWaitSeconds", theory},
                        {"ok", ok}};
    std::ofstream(out) << j.dump(2) << "\n";
  }
  return ok ? kExitOk : kExitInternal;
}

const Registration kSelfCheck({"", "selfcheck",
                               "check the engine against a queue with a known answer",
                               RunSelfCheck});

}  // namespace
}  // namespace sim::cli
