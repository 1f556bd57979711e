#include "sim/report/debug_dumps.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "apf/classification/request_digest.h"
#include "apf/queueing/seat_seconds.h"
#include "sim/io/duration.h"
#include "sim/world/world.h"

namespace sim {

namespace {

// RequestInfo.Path of a resource request, which the simulator does not keep (the world
// writes each call's namespace and name, not its URL): the URL path requestinfo.go parsed
// it from, /api/v1/namespaces/lab/pods/web-0 or /apis/apps/v1/deployments.
std::string ResourcePath(const apf::RequestInfo& info) {
  std::string path = info.api_group.empty() ? "/api" : "/apis/" + info.api_group;
  path += "/" + (info.api_version.empty() ? std::string("v1") : info.api_version);
  if (!info.namespace_name.empty()) {
    path += "/namespaces/" + info.namespace_name;
    if (info.resource == "namespaces")
      return path + (info.subresource.empty() ? "" : "/" + info.subresource);
  }
  path += "/" + info.resource;
  if (!info.name.empty()) path += "/" + info.name;
  if (!info.subresource.empty()) path += "/" + info.subresource;
  return path;
}

}  // namespace

std::string TabWriterRows(const std::vector<std::vector<std::string>>& rows) {
  // Every cell but a row's last is terminated by a tab and so aligned: its column is as
  // wide as its widest cell plus the padding, and at least minwidth.
  size_t columns = 0;
  for (const auto& row : rows) columns = std::max(columns, row.size());
  std::vector<size_t> width(columns, 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c + 1 < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size() + 1 + 1);
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c + 1 < row.size()) {
        const std::string cell = row[c] + ",";
        out += cell;
        const size_t w = std::max<size_t>(width[c], 8);
        out.append(w - cell.size(), ' ');
      } else {
        out += row[c];
      }
    }
    out += "\n";
  }
  return out;
}

std::string Rfc3339Nano(apf::Nanos t) {
  t += apf::kVirtualEpochUnixNanos;
  const std::time_t secs = static_cast<std::time_t>(t / apf::kSecond);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  apf::Nanos frac = t % apf::kSecond;
  if (frac > 0) {
    std::string digits = fmt::format("{:09d}", frac);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out + "Z";
}

DebugDumps MakeDebugDumps(const World& world, int replica, apf::Nanos now) {
  (void)now;
  DebugDumps d;
  const apf::FlowControl& fc = world.flow_control(replica);
  std::vector<int> order;
  for (int l = 0; l < fc.level_count(); ++l) order.push_back(l);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return *fc.level(a).name < *fc.level(b).name; });

  std::vector<std::vector<std::string>> pl_rows = {
      {"PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests",
       "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests",
       "CancelledRequests"}};
  std::vector<std::vector<std::string>> q_rows = {
      {"PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse",
       "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"}};
  std::vector<std::vector<std::string>> r_rows = {
      {"PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue",
       "FlowDistingsher", "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency",
       "StartTime", "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource",
       "SubResource"}};
  for (int l : order) {
    const apf::LevelState s = fc.level(l);
    const apf::QueueSet* qs = s.queue_set;
    if (!qs) continue;
    const apf::QueueSetCounters& c = qs->counters();
    pl_rows.push_back(
        {*s.name, std::to_string(qs->queues_with_waiting()), qs->is_idle() ? "true" : "false",
         "false", std::to_string(qs->waiting_requests()), std::to_string(qs->executing_requests()),
         std::to_string(c.dispatched), std::to_string(c.rejected), std::to_string(c.timedout),
         std::to_string(c.cancelled)});
    for (int q = 0; q < qs->num_queues(); ++q) {
      const apf::QueueSetQueueView v = qs->queue(q);
      q_rows.push_back({*s.name, std::to_string(q), std::to_string(v.waiting_requests),
                        std::to_string(v.executing_requests), std::to_string(v.seats_in_use),
                        apf::SeatSecondsString(v.next_dispatch_r),
                        std::to_string(v.initial_seats_sum), std::to_string(v.max_seats_sum),
                        apf::SeatSecondsString(v.total_work_sum)});
    }
    auto add_request = [&](int queue, int index, const apf::QueueSetRequestView& r) {
      std::string fs_name, distinguisher, user, verb, path, ns, name, version, resource, sub;
      if (auto details = world.DetailsOf(r.id)) {
        const apf::RequestInfo& info = *details->request;
        if (details->flow_schema >= 0) {
          fs_name = fc.flow_schema_name(details->flow_schema);
          const apf::Classification cl =
              fc.classifier()->Classify(apf::MakeRequestDigest(*details->user, info));
          distinguisher = std::string(cl.distinguisher);
        }
        user = details->user->name;
        verb = info.verb;
        path = info.is_resource_request ? ResourcePath(info) : info.path;
        ns = info.namespace_name;
        name = info.name;
        version =
            info.api_group.empty() ? info.api_version : info.api_group + "/" + info.api_version;
        resource = info.resource;
        sub = info.subresource;
      }
      r_rows.push_back({*s.name, fs_name, std::to_string(queue), std::to_string(index),
                        distinguisher, Rfc3339Nano(r.arrival_ns),
                        std::to_string(r.seats.initial_seats), std::to_string(r.seats.final_seats),
                        FormatDuration(r.seats.additional_latency),
                        r.start_ns ? Rfc3339Nano(*r.start_ns) : "0001-01-01T00:00:00Z", user, verb,
                        path, ns, name, version, resource, sub});
    };
    for (int q = 0; q < qs->num_queues(); ++q) {
      int index = 0;
      qs->ForEachWaiting(q, [&](const apf::QueueSetRequestView& r) { add_request(q, index++, r); });
      qs->ForEachExecuting(q, [&](const apf::QueueSetRequestView& r) { add_request(q, -1, r); });
    }
    qs->ForEachQueuelessExecuting(
        [&](const apf::QueueSetRequestView& r) { add_request(-1, -1, r); });
  }
  d.priority_levels = TabWriterRows(pl_rows);
  d.queues = TabWriterRows(q_rows);
  d.requests = TabWriterRows(r_rows);
  return d;
}

}  // namespace sim
