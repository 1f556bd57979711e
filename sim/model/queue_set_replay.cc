#include "sim/model/queue_set_replay.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apf/classification/flow_hash.h"
#include "apf/filter/flow_control.h"
#include "apf/queueing/queue_set.h"
#include "sim/engine/event_queue.h"
#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
#include "sim/io/json_reader.h"

namespace sim {
namespace {

// Seconds beyond this are surely a mistake, and keep every sum of times far from overflow.
constexpr double kMaxSeconds = 1e9;

apf::Nanos Seconds(const JsonField& field) {
  const double seconds = field.Number();
  if (!(seconds >= 0 && seconds <= kMaxSeconds)) {
    field.Fail("expected seconds in [0, 1e9], got " + field.value().dump());
  }
  return static_cast<apf::Nanos>(std::llround(seconds * 1e9));
}

apf::Nanos SecondsOr(const JsonField& object, std::string_view key, apf::Nanos fallback) {
  return object.Has(key) ? Seconds(object[key]) : fallback;
}

// A JSON number of seconds as the nanoseconds llround(strtod(text) * 1e9) gives, without
// the double, when `text` is plain digits with at most 9 decimals and spells N < 2^50 ns
// (13 days): strtod and the product are each within half an ulp, so the product is within
// N * 2^-52 < 1/4 of N, and rounding gives N. nullopt for anything else (a sign, an
// exponent, more decimals, a larger value): the caller takes the double.
std::optional<apf::Nanos> ExactNanos(std::string_view text) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 50;
  std::int64_t n = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    n = n * 10 + (text[i] - '0');
    if (n >= kLimit) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  int decimals = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (++decimals > 9) return std::nullopt;
      n = n * 10 + (text[i] - '0');
    }
    if (decimals == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  for (; decimals < 9; ++decimals) {
    n *= 10;
    if (n >= kLimit) return std::nullopt;
  }
  return n;
}

std::int64_t IntInRange(const JsonField& field, std::int64_t low, std::int64_t high) {
  const std::int64_t value = field.Int();
  if (value < low || value > high) {
    field.Fail("expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
               "], got " + std::to_string(value));
  }
  return value;
}

struct ReplayRequest {
  std::int64_t id = 0;
  apf::Nanos arrive_ns = 0;
  apf::Nanos service_ns = 0;
  apf::Nanos wait_limit_ns = 0;
  apf::Nanos additional_latency_ns = 0;
  std::uint64_t flow_hash = 0;
  std::uint32_t initial_seats = 1;  // seats are at most 2^30
  std::uint32_t final_seats = 0;

  // What happened to it. A request that executed finished at start_ns + service_ns.
  apf::QueueSetHandle handle;
  apf::Nanos start_ns = -1;  // when it was dispatched, or rejected
  apf::Nanos release_ns = -1;
  std::int32_t queue = -1;
  bool rejected = false;
  apf::RejectReason reason = apf::RejectReason::kQueueFull;

  apf::RequestSeats seats() const { return {initial_seats, final_seats, additional_latency_ns}; }
};

// A case's requests, in blocks of 4,096 records: finding one is a shift, a mask and two
// loads, and growing never moves a record. (A std::deque keeps 5 of these 88-byte records
// a block and finds one with a division.)
class RequestRecords {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ReplayRequest& operator[](std::size_t i) { return blocks_[i >> kShift][i & kMask]; }
  const ReplayRequest& operator[](std::size_t i) const { return blocks_[i >> kShift][i & kMask]; }
  void push_back(const ReplayRequest& r) {
    if ((size_ >> kShift) == blocks_.size()) {
      blocks_.push_back(std::make_unique<ReplayRequest[]>(std::size_t{1} << kShift));
    }
    (*this)[size_++] = r;
  }

 private:
  static constexpr int kShift = 12;
  static constexpr std::size_t kMask = (std::size_t{1} << kShift) - 1;
  std::vector<std::unique_ptr<ReplayRequest[]>> blocks_;
  std::size_t size_ = 0;
};

enum EventKind : std::uint32_t { kArrival, kTimeOut, kCompletion, kRelease };

// The order in which one kind of input event (arrivals, or time-outs) comes due: by time,
// ties in input order. Usually the input is already in that order, and no list is kept.
class InputOrder {
 public:
  template <typename TimeOf>
  InputOrder(std::size_t n, TimeOf time_of) : n_(n) {
    for (std::size_t i = 1; i < n; ++i) {
      if (time_of(i) < time_of(i - 1)) {
        order_.resize(n);
        for (std::size_t k = 0; k < n; ++k) order_[k] = static_cast<std::uint32_t>(k);
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return time_of(a) < time_of(b); });
        break;
      }
    }
  }
  bool done() const { return next_ == n_; }
  std::uint32_t Take() {
    const std::size_t k = next_++;
    return order_.empty() ? static_cast<std::uint32_t>(k) : order_[k];
  }

 private:
  std::size_t n_;
  std::size_t next_ = 0;
  std::vector<std::uint32_t> order_;
};

// The replay's world: the event queue, and the listener that schedules completions.
class Replay : public apf::QueueSetListener {
 public:
  explicit Replay(RequestRecords requests) : requests_(std::move(requests)) {}

  void OnDispatched(apf::Nanos now, apf::QueueSetHandle, std::uint64_t id) override {
    ReplayRequest& r = requests_[id];
    r.start_ns = now;
    events_.Schedule(now + r.service_ns, {kCompletion, static_cast<std::uint32_t>(id), 0});
  }

  // Runs as if every arrival and time-out had been scheduled before the run, request by
  // request (its arrival, then its time-out), which fixes their order among same-time
  // events (sim/model/queue_set_replay.h). Only the next arrival and the next time-out wait in the
  // queue, each with the sequence number it would have had, so memory stays with the requests.
  void Run(const apf::QueuingConfig& queuing, const apf::DispatchingConfig& dispatching) {
    apf::QueueSet queue_set(0, queuing, dispatching, this, nullptr);
    const std::size_t n = requests_.size();
    InputOrder arrivals(n, [this](std::size_t i) { return requests_[i].arrive_ns; });
    InputOrder time_outs(
        n, [this](std::size_t i) { return requests_[i].arrive_ns + requests_[i].wait_limit_ns; });
    events_.ReserveSequences(2 * static_cast<std::uint64_t>(n));
    const auto next_arrival = [&] {
      if (arrivals.done()) return;
      const std::uint32_t i = arrivals.Take();
      events_.ScheduleReserved(requests_[i].arrive_ns, 2 * std::uint64_t{i}, {kArrival, i, 0});
    };
    const auto next_time_out = [&] {
      if (time_outs.done()) return;
      const std::uint32_t i = time_outs.Take();
      events_.ScheduleReserved(requests_[i].arrive_ns + requests_[i].wait_limit_ns,
                               2 * std::uint64_t{i} + 1, {kTimeOut, i, 0});
    };
    next_arrival();
    next_time_out();
    while (std::optional<FiredEvent> fired = events_.Pop()) {
      const apf::Nanos now = fired->time;
      ReplayRequest& r = requests_[fired->event.arg32];
      switch (fired->event.kind) {
        case kArrival: {
          next_arrival();
          // The listener finds requests by their input index, passed as the queue set's id.
          apf::QueueSet::StartResult start =
              queue_set.StartRequest(now, fired->event.arg32, r.seats(), r.flow_hash);
          r.handle = start.handle;
          r.queue = start.queue_index;
          if (start.outcome == apf::QueueSet::StartOutcome::kRejectedQueueFull) {
            Reject(r, now, apf::RejectReason::kQueueFull);
          } else if (start.outcome == apf::QueueSet::StartOutcome::kRejectedConcurrencyLimit) {
            Reject(r, now, apf::RejectReason::kConcurrencyLimit);
          }
          break;
        }
        case kTimeOut:
          next_time_out();
          if (r.start_ns < 0 && queue_set.TimeOut(now, r.handle)) {
            Reject(r, now, apf::RejectReason::kTimeOut);
          }
          break;
        case kCompletion:
          r.release_ns = queue_set.Finish(now, r.handle);
          if (r.release_ns > now) events_.Schedule(r.release_ns, {kRelease, fired->event.arg32, 0});
          break;
        case kRelease:
          queue_set.ReleaseSeats(now, r.handle);
          break;
      }
    }
  }

  // Writes each result as nlohmann::json's dump() would (keys in sorted order), one per
  // line, in `apfsim model queueset`'s layout: the same bytes as Results() printed.
  void WriteResults(std::ostream& out) const {
    using namespace std::string_view_literals;  // literals of known length: no strlen each
    std::string text = "{\"results\": [";
    bool first = true;
    const auto number = [&text](std::int64_t v) {
      char digits[24];
      const char* end = std::to_chars(digits, digits + sizeof digits, v).ptr;
      text.append(digits, static_cast<std::size_t>(end - digits));  // not (first, last): a replace
    };
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const ReplayRequest& r = requests_[i];
      text += first ? "\n  "sv : ",\n  "sv;
      first = false;
      if (r.rejected) {
        text += "{\"id\":"sv;
        number(r.id);
        text += ",\"outcome\":\"rejected\",\"queue\":"sv;
        number(r.queue);
        text += ",\"reason\":\""sv;
        text += apf::RejectReasonName(r.reason);
        text += "\",\"rejectedAtNs\":"sv;
        number(r.start_ns);
      } else {
        text += "{\"dispatchNs\":"sv;
        number(r.start_ns);
        text += ",\"finishNs\":"sv;
        number(FinishNs(r));
        text += ",\"id\":"sv;
        number(r.id);
        text += ",\"outcome\":\"executed\",\"queue\":"sv;
        number(r.queue);
        text += ",\"releaseNs\":"sv;
        number(r.release_ns);
      }
      text += "}"sv;
      if (text.size() >= (1 << 16)) {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
    text += "\n]}"sv;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

  nlohmann::json Results() const {
    nlohmann::json results = nlohmann::json::array();
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const ReplayRequest& r = requests_[i];
      nlohmann::json out = {{"id", r.id}, {"queue", r.queue}};
      if (r.rejected) {
        out["outcome"] = "rejected";
        out["reason"] = apf::RejectReasonName(r.reason);
        out["rejectedAtNs"] = r.start_ns;
      } else {
        out["outcome"] = "executed";
        out["dispatchNs"] = r.start_ns;
        out["finishNs"] = FinishNs(r);
        out["releaseNs"] = r.release_ns;
      }
      results.push_back(std::move(out));
    }
    return results;
  }

 private:
  static apf::Nanos FinishNs(const ReplayRequest& r) {
    return r.start_ns < 0 ? -1 : r.start_ns + r.service_ns;  // completion: dispatch + service
  }

  static void Reject(ReplayRequest& r, apf::Nanos now, apf::RejectReason reason) {
    r.rejected = true;
    r.reason = reason;
    r.start_ns = now;
    if (reason == apf::RejectReason::kQueueFull) r.queue = -1;  // it was never enqueued
  }

  RequestRecords requests_;
  EventQueue events_;
};

// The queue set's configuration, from a case's "queueset" object.
struct ReplayConfig {
  apf::QueuingConfig queuing;
  apf::DispatchingConfig dispatching;
};

ReplayConfig ParseConfig(const JsonField& config) {
  config.ExpectObject({"concurrencyLimit", "queues", "handSize", "queueLengthLimit"});
  ReplayConfig out;
  apf::QueuingConfig& queuing = out.queuing;
  apf::DispatchingConfig& dispatching = out.dispatching;
  dispatching.concurrency_limit =
      static_cast<int>(IntInRange(config["concurrencyLimit"], 0, 1 << 30));
  dispatching.concurrency_denominator = dispatching.concurrency_limit;
  queuing.desired_num_queues = static_cast<int>(IntInRange(config["queues"], -1, 1 << 26));
  if (queuing.desired_num_queues > 0) {
    queuing.hand_size = static_cast<int>(IntInRange(config["handSize"], 1, 1 << 26));
    queuing.queue_length_limit =
        static_cast<int>(IntInRange(config["queueLengthLimit"], 0, 1 << 30));
  } else {
    if (config.Has("handSize")) {
      queuing.hand_size = static_cast<int>(IntInRange(config["handSize"], 0, 1 << 26));
    }
    if (config.Has("queueLengthLimit")) {
      queuing.queue_length_limit =
          static_cast<int>(IntInRange(config["queueLengthLimit"], 0, 1 << 30));
    }
  }
  if (apf::Status status = apf::QueueSet::CheckQueuingConfig(queuing); !status.ok()) {
    config.Fail(status.message());
  }
  return out;
}

// Request ids seen so far in one case. Ids usually come in increasing order, so the set is
// built only when an id is not above every earlier one.
class IdSet {
 public:
  // False when `id` was seen before.
  bool Insert(std::int64_t id, const RequestRecords& earlier) {
    if (!sorted_ && (earlier.empty() || id > max_)) {
      max_ = id;
      return true;
    }
    if (!sorted_) {
      for (std::size_t i = 0; i < earlier.size(); ++i) seen_.insert(earlier[i].id);
      sorted_ = true;
    }
    return seen_.insert(id).second;
  }

 private:
  bool sorted_ = false;
  std::int64_t max_ = 0;
  std::set<std::int64_t> seen_;
};

ReplayRequest ParseRequest(const JsonField& item, bool hashed, IdSet& ids,
                           const RequestRecords& earlier) {
  item.ExpectObject({"id", "arrive", "flowSchema", "distinguisher", "initialSeats", "finalSeats",
                     "additionalLatency", "service", "waitLimit"});
  ReplayRequest r;
  r.id = item["id"].Int();
  if (!ids.Insert(r.id, earlier)) item["id"].Fail("duplicate request id " + std::to_string(r.id));
  r.arrive_ns = Seconds(item["arrive"]);
  r.service_ns = Seconds(item["service"]);
  r.wait_limit_ns = SecondsOr(item, "waitLimit", 15 * apf::kSecond);
  r.initial_seats = static_cast<std::uint32_t>(
      item.Has("initialSeats") ? IntInRange(item["initialSeats"], 0, 1 << 30) : 1);
  r.final_seats = static_cast<std::uint32_t>(
      item.Has("finalSeats") ? IntInRange(item["finalSeats"], 0, 1 << 30) : 0);
  r.additional_latency_ns = SecondsOr(item, "additionalLatency", 0);
  if (hashed) {
    r.flow_hash =
        apf::HashFlowID(item.StringOr("flowSchema", ""), item.StringOr("distinguisher", ""));
  }
  return r;
}

nlohmann::json ReplayCase(const JsonField& c) {
  c.ExpectObject({"queueset", "requests"});
  const ReplayConfig config = ParseConfig(c["queueset"]);
  const JsonField list = c["requests"];
  list.ExpectArray();
  RequestRecords requests;
  IdSet ids;
  for (size_t i = 0; i < list.size(); ++i) {
    requests.push_back(
        ParseRequest(list.At(i), config.queuing.desired_num_queues > 1, ids, requests));
  }
  Replay replay(std::move(requests));
  replay.Run(config.queuing, config.dispatching);
  return {{"results", replay.Results()}};
}
// Flow hashes by (FlowSchema, distinguisher): a case's requests come from a few flows, and
// SHA-256 would otherwise cost more than the rest of reading a request.
class FlowHashes {
 public:
  std::uint64_t Of(std::string_view flow_schema, std::string_view distinguisher) {
    // The name's length first, so that no two pairs make the same key.
    const auto size = static_cast<std::uint32_t>(flow_schema.size());
    key_.assign(reinterpret_cast<const char*>(&size), sizeof size);
    key_.append(flow_schema);
    key_.append(distinguisher);
    if (auto found = hashes_.find(key_); found != hashes_.end()) return found->second;
    const std::uint64_t hash = hasher_.Hash(flow_schema, distinguisher);
    if (hashes_.size() < kMaxFlows) hashes_.emplace(key_, hash);
    return hash;
  }

 private:
  static constexpr std::size_t kMaxFlows = 1 << 16;  // beyond, hash each time
  apf::FlowHasher hasher_;
  std::unordered_map<std::string, std::uint64_t> hashes_;
  std::string key_;
};

// A request's field as read, before it is checked: numbers and strings as values, anything
// else as a document. FastRequest checks them in place; only when one is not as expected is
// the request made a document, so that ParseRequest names the problem in the words the
// whole-document replay uses.
struct RawField {
  // kNanos: a number of seconds read exactly as nanoseconds (ExactNanos).
  enum Kind : std::uint8_t { kAbsent, kNull, kInt, kDouble, kNanos, kString, kOther };
  Kind kind = kAbsent;
  int line = 0, column = 0;  // where its key is, for a message about it
  std::int64_t integer = 0;
  double real = 0;
  apf::Nanos nanos = 0;
  std::string text;
  nlohmann::json other;

  bool given() const { return kind != kAbsent && kind != kNull; }

  nlohmann::json Document() const {
    switch (kind) {
      case kInt:
        // As nlohmann/json reads it: a non-negative integer is unsigned.
        if (integer >= 0) return static_cast<std::uint64_t>(integer);
        return integer;
      case kDouble:
        return real;
      case kNanos:
        // N / 1e9 correctly rounded is the double nearest the decimal, which strtod gives.
        return static_cast<double>(nanos) / 1e9;
      case kString:
        return text;
      case kOther:
        return other;
      case kAbsent:
      case kNull:
        break;
    }
    return nullptr;
  }
};

// The streaming replay: reads the cases with a JsonReader, takes each request's fields
// straight into its record, and replays and writes each case as soon as its closing brace
// is read. A case's own fields are checked when it ends, before its first bad request is
// reported, as the whole-document replay does; syntax errors and repeated keys are
// reported where they are read.
class CaseStream {
  struct Position {
    int line = 0, column = 0;
  };
  struct Extra {  // a field that is not one of a request's
    std::string name;
    nlohmann::json value;
    Position at;
  };

 public:
  CaseStream(std::istream& in, std::ostream& out, std::string source)
      : reader_(in, source), out_(out), source_(std::move(source)) {}

  void Run() {
    Token t = reader_.Next();
    if (t != Token::kBeginArray) {
      const nlohmann::json top = ReadJsonValue(reader_, t, "");
      reader_.Next();  // the end, or an error for what follows
      JsonField(top, source_, "").ExpectArray();
    }
    for (std::size_t index = 0; (t = reader_.Next()) != Token::kEndArray; ++index) {
      ReadCase(t, "[" + std::to_string(index) + "]");
    }
    reader_.Next();  // the end, or an error for what follows
    out_ << (cases_ == 0 ? "[" : "") << "\n]\n";
  }

 private:
  using Token = JsonReader::Token;

  void ReadCase(Token first, const std::string& path) {
    if (first != Token::kBeginObject) {
      const nlohmann::json value = ReadJsonValue(reader_, first, path);
      JsonField(value, source_, path).ExpectObject({"queueset", "requests"});
    }
    // The case without its requests, unless they came before its configuration.
    nlohmann::json c = nlohmann::json::object();
    bool config_seen = false;
    bool hashed = false;  // the flow hash matters: the configuration is good, with queues > 1
    for (Token t = reader_.Next(); t == Token::kKey; t = reader_.Next()) {
      const std::string key(reader_.text());
      if (c.contains(key)) FailDuplicateKey(reader_, path, key);
      const Token value = reader_.Next();
      if (key == "requests" && value == Token::kBeginArray && config_seen) {
        c[key] = nlohmann::json::array();
        ReadRequests(path, hashed);
        continue;
      }
      c[key] = ReadJsonValue(reader_, value, path + "." + key);
      if (key == "queueset") {
        config_seen = true;
        try {
          hashed = ParseConfig(JsonField(c[key], source_, path + ".queueset"))
                       .queuing.desired_num_queues > 1;
        } catch (const InputError&) {
          hashed = false;  // reported when the case ends, in the whole-document order
        }
      }
    }
    EndCase(c, path);
  }

  void ReadRequests(const std::string& case_path, bool hashed) {
    for (std::size_t index = 0;; ++index) {
      const Token t = reader_.Next();
      if (t == Token::kEndArray) return;
      const auto path = [&] { return case_path + ".requests[" + std::to_string(index) + "]"; };
      const Position start{reader_.line(), reader_.column()};
      if (t != Token::kBeginObject || request_error_) {
        // Not a request, or after a bad one: read for its syntax and keys, and checked
        // (for its message) only when it is the first bad one.
        const nlohmann::json value = ReadJsonValue(reader_, t, path());
        if (!request_error_) AddChecked(value, path(), hashed, start, false);
        continue;
      }
      ReadRequestFields(path);
      ReplayRequest r;
      if (FastRequest(r, hashed)) {
        requests_.push_back(r);
      } else {
        AddChecked(RequestDocument(), path(), hashed, start, true);
      }
    }
  }

  template <typename Path>
  void ReadRequestFields(const Path& path) {
    for (RawField& f : fields_) f.kind = RawField::kAbsent;
    extras_.clear();
    for (Token t = reader_.Next(); t == Token::kKey; t = reader_.Next()) {
      const int field = FieldIndex(reader_.text());
      if (field < 0) {
        std::string key(reader_.text());
        for (const Extra& extra : extras_) {
          if (extra.name == key) FailDuplicateKey(reader_, path(), key);
        }
        const Position at{reader_.line(), reader_.column()};
        const Token value = reader_.Next();
        nlohmann::json document = ReadJsonValue(reader_, value, path() + "." + key);
        extras_.push_back(Extra{std::move(key), std::move(document), at});
        continue;
      }
      RawField& f = fields_[field];
      if (f.kind != RawField::kAbsent) FailDuplicateKey(reader_, path(), kRequestFields[field]);
      f.line = reader_.line();
      f.column = reader_.column();
      switch (const Token value = reader_.Next()) {
        case Token::kNumber:
          if (reader_.Int64(f.integer)) {
            f.kind = RawField::kInt;
          } else if (!reader_.integral()) {
            if (const std::optional<apf::Nanos> nanos = ExactNanos(reader_.text())) {
              f.kind = RawField::kNanos;
              f.nanos = *nanos;
            } else {
              f.kind = RawField::kDouble;
              f.real = reader_.Double();
            }
          } else {
            f.kind = RawField::kOther;
            f.other = reader_.NumberValue();
          }
          break;
        case Token::kString:
          f.kind = RawField::kString;
          // Most requests repeat the previous one's flow: comparing is cheaper than copying.
          if (f.text != reader_.text()) f.text.assign(reader_.text());
          break;
        case Token::kNull:
          f.kind = RawField::kNull;
          break;
        default:
          f.kind = RawField::kOther;
          f.other =
              ReadJsonValue(reader_, value, path() + "." + std::string(kRequestFields[field]));
          break;
      }
    }
  }

  // The fields of a request, by their index in kRequestFields.
  static constexpr std::string_view kRequestFields[] = {
      "id",           "arrive",     "flowSchema",        "distinguisher",
      "initialSeats", "finalSeats", "additionalLatency", "service",
      "waitLimit"};
  enum RequestField {
    kId,
    kArrive,
    kFlowSchema,
    kDistinguisher,
    kInitialSeats,
    kFinalSeats,
    kAdditionalLatency,
    kService,
    kWaitLimit,
    kRequestFieldCount
  };

  static int FieldIndex(std::string_view key) {
    for (int i = 0; i < kRequestFieldCount; ++i) {
      if (kRequestFields[i] == key) return i;
    }
    return -1;
  }

  // The request read from fields_ when every field is as expected (the common case);
  // false sends it to ParseRequest, which gives the same result or names the problem.
  bool FastRequest(ReplayRequest& r, bool hashed) {
    if (!extras_.empty() || fields_[kId].kind != RawField::kInt) return false;
    const auto seconds = [this](int field, apf::Nanos& out) {
      const RawField& f = fields_[field];
      if (!f.given()) return true;  // the default stands
      if (f.kind == RawField::kNanos) {
        out = f.nanos;  // below 2^50 ns: within [0, 1e9] s
        return true;
      }
      double s = 0;
      if (f.kind == RawField::kInt) {
        s = static_cast<double>(f.integer);
      } else if (f.kind == RawField::kDouble) {
        s = f.real;
      } else {
        return false;
      }
      if (!(s >= 0 && s <= kMaxSeconds)) return false;
      out = static_cast<apf::Nanos>(std::llround(s * 1e9));
      return true;
    };
    const auto seats = [this](int field, std::uint32_t& out) {
      const RawField& f = fields_[field];
      if (!f.given()) return true;
      if (f.kind != RawField::kInt || f.integer < 0 || f.integer > (1 << 30)) return false;
      out = static_cast<std::uint32_t>(f.integer);
      return true;
    };
    r.id = fields_[kId].integer;
    if (!fields_[kArrive].given() || !seconds(kArrive, r.arrive_ns)) return false;
    if (!fields_[kService].given() || !seconds(kService, r.service_ns)) return false;
    r.wait_limit_ns = 15 * apf::kSecond;
    if (!seconds(kWaitLimit, r.wait_limit_ns)) return false;
    if (!seats(kInitialSeats, r.initial_seats) || !seats(kFinalSeats, r.final_seats)) {
      return false;
    }
    if (!seconds(kAdditionalLatency, r.additional_latency_ns)) return false;
    if (hashed) {
      const RawField& flow_schema = fields_[kFlowSchema];
      const RawField& distinguisher = fields_[kDistinguisher];
      const auto text = [](const RawField& f) {
        return f.kind == RawField::kString ? std::string_view(f.text) : std::string_view();
      };
      if ((flow_schema.given() && flow_schema.kind != RawField::kString) ||
          (distinguisher.given() && distinguisher.kind != RawField::kString)) {
        return false;
      }
      r.flow_hash = flow_hashes_.Of(text(flow_schema), text(distinguisher));
    }
    return ids_.Insert(r.id, requests_);
  }

  // The request as a document, for ParseRequest.
  nlohmann::json RequestDocument() const {
    nlohmann::json request = nlohmann::json::object();
    for (int i = 0; i < kRequestFieldCount; ++i) {
      if (fields_[i].kind != RawField::kAbsent) {
        request[std::string(kRequestFields[i])] = fields_[i].Document();
      }
    }
    for (const Extra& extra : extras_) request[extra.name] = extra.value;
    return request;
  }

  // Checks a request the whole-document way; its problem is kept until the case ends. The
  // message is the whole-document replay's, placed at the field it names (its key) when
  // the request was read field by field (`fields`), else at the request's start.
  void AddChecked(const nlohmann::json& request, const std::string& path, bool hashed,
                  Position start, bool fields) {
    try {
      requests_.push_back(ParseRequest(JsonField(request, source_, path), hashed, ids_, requests_));
    } catch (const InputError& e) {
      Position at = start;
      const std::string& field_path = e.field_path();
      if (fields && field_path.size() > path.size() + 1 && field_path.rfind(path + ".", 0) == 0) {
        const std::string_view name = std::string_view(field_path).substr(path.size() + 1);
        if (const int k = FieldIndex(name); k >= 0 && fields_[k].kind != RawField::kAbsent) {
          at = {fields_[k].line, fields_[k].column};
        }
        for (const Extra& extra : extras_) {
          if (extra.name == name) at = extra.at;
        }
      }
      request_error_ = InputError({source_, at.line, at.column}, field_path, e.message());
    }
  }

  void EndCase(const nlohmann::json& case_document, const std::string& path) {
    const JsonField c(case_document, source_, path);
    c.ExpectObject({"queueset", "requests"});
    const ReplayConfig config = ParseConfig(c["queueset"]);
    const JsonField list = c["requests"];
    list.ExpectArray();
    if (request_error_) throw *request_error_;
    // Requests kept whole because they came before the configuration.
    for (size_t i = 0; i < list.size(); ++i) {
      requests_.push_back(
          ParseRequest(list.At(i), config.queuing.desired_num_queues > 1, ids_, requests_));
    }
    Replay replay(std::move(requests_));
    replay.Run(config.queuing, config.dispatching);
    out_ << (cases_ == 0 ? "[\n" : ",\n");
    replay.WriteResults(out_);
    out_.flush();
    ++cases_;
    requests_ = {};
    ids_ = IdSet();
    request_error_.reset();
  }

  JsonReader reader_;
  std::ostream& out_;
  std::string source_;
  std::size_t cases_ = 0;

  RequestRecords requests_;  // the case's requests read so far
  IdSet ids_;
  std::optional<InputError> request_error_;  // the case's first bad request
  FlowHashes flow_hashes_;

  // The request being read.
  std::array<RawField, kRequestFieldCount> fields_;
  std::vector<Extra> extras_;  // unknown fields
};

}  // namespace

nlohmann::json ReplayQueueSetCases(const nlohmann::json& cases, const std::string& source) {
  JsonField all(cases, source, "");
  all.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) out.push_back(ReplayCase(all.At(i)));
  return out;
}

void StreamQueueSetCases(std::istream& in, std::ostream& out, const std::string& source) {
  CaseStream(in, out, source).Run();
}

}  // namespace sim
