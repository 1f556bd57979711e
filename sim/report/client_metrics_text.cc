#include "sim/report/client_metrics_text.h"

#include <fmt/format.h>

#include "sim/world/world.h"

namespace sim {

std::string ClientMetricsText(const World& world) {
  struct Counter {
    const char* name;
    const char* help;
    std::uint64_t ClientRow::*field;
  };
  static constexpr Counter kCounters[] = {
      {"apfsim_client_calls_total", "Logical calls the client issued (clients.csv calls)",
       &ClientRow::calls},
      {"apfsim_client_attempts_total",
       "HTTP attempts the client sent, retries included (clients.csv attempts)",
       &ClientRow::attempts},
      {"apfsim_client_calls_succeeded_total",
       "Calls that ended in success after any retries (clients.csv succeeded)",
       &ClientRow::succeeded},
      {"apfsim_client_calls_failed_total",
       "Calls that ended in an error after any retries (clients.csv failed)", &ClientRow::failed},
      {"apfsim_client_http429_total",
       "Attempts answered 429 Too Many Requests (clients.csv http429)", &ClientRow::http429},
  };
  std::string out;
  for (const Counter& counter : kCounters) {
    out +=
        fmt::format("# HELP {} {}\n# TYPE {} counter\n", counter.name, counter.help, counter.name);
    for (int c = 0; c < world.client_count(); ++c) {
      out += fmt::format("{}{{client=\"{}\"}} {}\n", counter.name, world.client_spec(c).name,
                         world.client_timeline(c).totals().*counter.field);
    }
  }
  return out;
}

}  // namespace sim
