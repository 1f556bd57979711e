// Fuzz target: an audit log (sim/scenario/audit_log.h): the loader's scan, then the replay's read
// of every event with the identities the scan found as clients.
#include "sim/scenario/audit_log.h"

#include <map>

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    sim::AuditLogSpec spec;
    spec.enabled = true;
    spec.file = fuzz_support::WriteInputFile(fuzz_support::AsText(data, size), ".log");
    spec.reorder_window = 10 * apf::kSecond;
    const sim::AuditLogScan scan = sim::ScanAuditLog(spec);
    std::map<std::string, int> clients;
    for (const sim::AuditIdentity& id : scan.identities) {
      clients.emplace(sim::AuditIdentityKey(id), static_cast<int>(clients.size()));
    }
    sim::AuditLogReader reader(spec, scan.first_received.value_or(0), &clients);
    sim::ReplayRow row;
    while (reader.Next(&row)) {
    }
  });
}
