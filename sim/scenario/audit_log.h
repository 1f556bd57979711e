// Traffic from a Kubernetes audit log: the log backend's file of audit.k8s.io/v1 Event
// objects, one JSON object per line, read as recorded calls (scenarios/README.md,
// "spec.auditLog").
//
// Which events: a watch at stage ResponseStarted (the watch opened; its ResponseComplete
// only says it ended), every other request at ResponseComplete. From each: the identity
// (impersonatedUser when present, since the apiserver classifies the impersonated user;
// else user), verb, objectRef, the requestURI's query, requestReceivedTimestamp as the
// arrival, stageTimestamp - requestReceivedTimestamp as the service time (an estimate: it
// includes the time the request waited in APF), and responseStatus.code (counted, for
// comparison with the replay's own answers).
//
// Lines that are not audit events (not JSON, another kind, missing fields) are counted by
// reason and skipped, never fatal; a truncated last line is counted as such.
//
// The log backend writes an event when its stage ends, so arrivals are not in order: a
// long LIST received at 10:00:00 is written after the short GETs received after it. The
// reader keeps a small heap of events and releases one when the log has moved on past
// its arrival by the reorder window (the request timeout bounds how late an event can
// be), so memory is bounded by the events of one window, not by the log's length.
#ifndef SIM_SCENARIO_AUDIT_LOG_H_
#define SIM_SCENARIO_AUDIT_LOG_H_

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/replay_source.h"

namespace sim {

// "2026-12-02T10:05:00.123456Z" (RFC 3339, any fraction, Z or ±hh:mm) to nanoseconds
// since the Unix epoch; nullopt when malformed or outside the years 1970 to 2200 (int64
// nanoseconds reach 2262, and the replay subtracts two such times).
std::optional<apf::Nanos> ParseRfc3339(std::string_view text);

// The identity that classifies a request: the user name and groups.
struct AuditIdentity {
  std::string user;
  std::vector<std::string> groups;
  std::string user_agent;  // the event's userAgent: not part of the identity's key
};
// A key naming an identity (user and groups), for maps.
std::string AuditIdentityKey(const AuditIdentity& identity);

class AuditLogReader : public ReplaySource {
 public:
  // Opens the log (InputError when unreadable). `clients` maps identity keys to scenario
  // clients; rows of identities not in it get client -1. `origin` is the epoch time that
  // becomes virtual time 0.
  AuditLogReader(const AuditLogSpec& spec, apf::Nanos origin,
                 const std::map<std::string, int>* clients);
  AuditLogReader(const AuditLogReader&) = delete;
  AuditLogReader& operator=(const AuditLogReader&) = delete;

  bool Next(ReplayRow* row) override;
  // The next event with its identity and epoch arrival (for the loader's scan).
  bool NextEvent(ReplayRow* row, AuditIdentity* identity, apf::Nanos* received);

  const ReplayStats& stats() const { return stats_; }

 private:
  struct Pending {
    apf::Nanos received = 0;
    std::int64_t sequence = 0;
    ReplayRow row;
    AuditIdentity identity;
  };
  // Reads lines until one event is accepted into the heap; false at the end of the file.
  bool ReadEvent();
  void Skip(const char* reason) { ++stats_.skipped[reason]; }

  const AuditLogSpec& spec_;
  apf::Nanos origin_;
  const std::map<std::string, int>* clients_;
  std::ifstream in_;
  std::string line_;
  bool eof_ = false;
  std::int64_t sequence_ = 0;
  apf::Nanos newest_stage_ = 0;   // the latest stageTimestamp read
  apf::Nanos last_released_ = 0;  // the arrival of the last event handed out
  std::vector<Pending> heap_;     // min-heap by (received, sequence)
  ReplayStats stats_;
};

// The loader's pass over the log: the identities in the order they first appear, the
// earliest accepted arrival (virtual time 0 unless spec.from is set), and the counts.
struct AuditLogScan {
  std::vector<AuditIdentity> identities;
  std::optional<apf::Nanos> first_received;
  ReplayStats stats;
};
AuditLogScan ScanAuditLog(const AuditLogSpec& spec);

}  // namespace sim

#endif  // SIM_SCENARIO_AUDIT_LOG_H_
