#include "sim/model/queueset.h"

#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <istream>
#include <optional>
#include <ostream>
#include <set>
#include <vector>

#include "apf/flow_control.h"
#include "apf/flow_hash.h"
#include "apf/queue_set.h"
#include "sim/engine/event_queue.h"
#include "sim/io/input_error.h"
#include "sim/io/json_input.h"

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
  apf::RequestSeats seats;
  std::uint64_t flow_hash = 0;

  // What happened to it.
  apf::QueueSetHandle handle;
  int queue = -1;
  const char* rejected_reason = nullptr;
  apf::Nanos rejected_ns = -1;
  apf::Nanos dispatch_ns = -1;
  apf::Nanos finish_ns = -1;
  apf::Nanos release_ns = -1;
};

enum EventKind : std::uint32_t { kArrival, kTimeOut, kCompletion, kRelease };

// The replay's world: the event queue, and the listener that schedules completions.
class Replay : public apf::QueueSetListener {
 public:
  explicit Replay(std::deque<ReplayRequest> requests) : requests_(std::move(requests)) {}

  void OnDispatched(apf::Nanos now, apf::QueueSetHandle, std::uint64_t id) override {
    ReplayRequest& r = requests_[id];
    r.dispatch_ns = now;
    events_.Schedule(now + r.service_ns, {kCompletion, static_cast<std::uint32_t>(id), 0});
  }

  void Run(const apf::QueuingConfig& queuing, const apf::DispatchingConfig& dispatching) {
    apf::QueueSet queue_set(0, queuing, dispatching, this, nullptr);
    for (std::uint32_t i = 0; i < requests_.size(); ++i) {
      events_.Schedule(requests_[i].arrive_ns, {kArrival, i, 0});
      events_.Schedule(requests_[i].arrive_ns + requests_[i].wait_limit_ns, {kTimeOut, i, 0});
    }
    while (std::optional<FiredEvent> fired = events_.Pop()) {
      const apf::Nanos now = fired->time;
      ReplayRequest& r = requests_[fired->event.arg32];
      switch (fired->event.kind) {
        case kArrival: {
          // The listener finds requests by their input index, passed as the queue set's id.
          apf::QueueSet::StartResult start =
              queue_set.StartRequest(now, fired->event.arg32, r.seats, r.flow_hash);
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
          if (r.dispatch_ns < 0 && r.rejected_reason == nullptr &&
              queue_set.TimeOut(now, r.handle)) {
            Reject(r, now, apf::RejectReason::kTimeOut);
          }
          break;
        case kCompletion:
          r.finish_ns = now;
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
    std::string text = "{\"results\": [";
    bool first = true;
    const auto number = [&text](std::int64_t v) {
      char digits[24];
      text.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    };
    for (const ReplayRequest& r : requests_) {
      text += first ? "\n  " : ",\n  ";
      first = false;
      if (r.rejected_reason) {
        text += "{\"id\":";
        number(r.id);
        text += ",\"outcome\":\"rejected\",\"queue\":";
        number(r.queue);
        text += ",\"reason\":\"";
        text += r.rejected_reason;
        text += "\",\"rejectedAtNs\":";
        number(r.rejected_ns);
      } else {
        text += "{\"dispatchNs\":";
        number(r.dispatch_ns);
        text += ",\"finishNs\":";
        number(r.finish_ns);
        text += ",\"id\":";
        number(r.id);
        text += ",\"outcome\":\"executed\",\"queue\":";
        number(r.queue);
        text += ",\"releaseNs\":";
        number(r.release_ns);
      }
      text += "}";
      if (text.size() >= (1 << 16)) {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
    text += "\n]}";
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

  nlohmann::json Results() const {
    nlohmann::json results = nlohmann::json::array();
    for (const ReplayRequest& r : requests_) {
      nlohmann::json out = {{"id", r.id}, {"queue", r.queue}};
      if (r.rejected_reason) {
        out["outcome"] = "rejected";
        out["reason"] = r.rejected_reason;
        out["rejectedAtNs"] = r.rejected_ns;
      } else {
        out["outcome"] = "executed";
        out["dispatchNs"] = r.dispatch_ns;
        out["finishNs"] = r.finish_ns;
        out["releaseNs"] = r.release_ns;
      }
      results.push_back(std::move(out));
    }
    return results;
  }

 private:
  static void Reject(ReplayRequest& r, apf::Nanos now, apf::RejectReason reason) {
    r.rejected_reason = apf::RejectReasonName(reason);
    r.rejected_ns = now;
    if (reason == apf::RejectReason::kQueueFull) r.queue = -1;  // it was never enqueued
  }

  std::deque<ReplayRequest> requests_;
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
  bool Insert(std::int64_t id, const std::deque<ReplayRequest>& earlier) {
    if (!sorted_ && (earlier.empty() || id > max_)) {
      max_ = id;
      return true;
    }
    if (!sorted_) {
      for (const ReplayRequest& r : earlier) seen_.insert(r.id);
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
                           const std::deque<ReplayRequest>& earlier) {
  item.ExpectObject({"id", "arrive", "flowSchema", "distinguisher", "initialSeats", "finalSeats",
                     "additionalLatency", "service", "waitLimit"});
  ReplayRequest r;
  r.id = item["id"].Int();
  if (!ids.Insert(r.id, earlier)) item["id"].Fail("duplicate request id " + std::to_string(r.id));
  r.arrive_ns = Seconds(item["arrive"]);
  r.service_ns = Seconds(item["service"]);
  r.wait_limit_ns = SecondsOr(item, "waitLimit", 15 * apf::kSecond);
  r.seats.initial_seats =
      item.Has("initialSeats") ? IntInRange(item["initialSeats"], 0, 1 << 30) : 1;
  r.seats.final_seats = item.Has("finalSeats") ? IntInRange(item["finalSeats"], 0, 1 << 30) : 0;
  r.seats.additional_latency = SecondsOr(item, "additionalLatency", 0);
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
  std::deque<ReplayRequest> requests;
  IdSet ids;
  for (size_t i = 0; i < list.size(); ++i) {
    requests.push_back(
        ParseRequest(list.At(i), config.queuing.desired_num_queues > 1, ids, requests));
  }
  Replay replay(std::move(requests));
  replay.Run(config.queuing, config.dispatching);
  return {{"results", replay.Results()}};
}
// Bytes of the input, read in chunks, as nlohmann::json's sax_parse reads them one at a
// time; it counts lines so that a syntax error names the same line and column as
// ParseJsonText gives for the whole text.
class StreamSource {
 public:
  explicit StreamSource(std::istream& in) : in_(in) {}

  bool AtEnd() {
    if (pos_ < len_) return false;
    if (!in_) return true;
    in_.read(buffer_, sizeof buffer_);
    len_ = static_cast<std::size_t>(in_.gcount());
    pos_ = 0;
    return len_ == 0;
  }
  char Peek() const { return buffer_[pos_]; }
  void Advance() {
    if (buffer_[pos_] == '\n') {
      ++newlines_;
      before_last_newline_ = last_newline_;
      last_newline_ = offset_;
    }
    ++pos_;
    ++offset_;
  }

  // Where byte `offset` is, for an offset at most two bytes before the end of what was
  // read (the parser reads at most one byte past the one it fails on).
  SourceLocation LocationOf(std::uint64_t offset, const std::string& source) const {
    offset = std::min(offset, offset_);
    std::uint64_t lines = newlines_;
    std::int64_t line_start = last_newline_;
    if (lines > 0 && static_cast<std::int64_t>(offset) <= last_newline_) {
      --lines;
      line_start = before_last_newline_;
    }
    if (lines > 0 && static_cast<std::int64_t>(offset) <= line_start) {
      --lines;
      line_start = -1;  // not reached on inputs the parser reads one byte at a time
    }
    return {source, static_cast<int>(lines + 1), static_cast<int>(offset - line_start)};
  }

 private:
  std::istream& in_;
  char buffer_[1 << 16];
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t newlines_ = 0;
  std::int64_t last_newline_ = -1, before_last_newline_ = -1;
};

class StreamIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  explicit StreamIterator(StreamSource* source = nullptr) : source_(source) {}
  char operator*() const { return source_->Peek(); }
  StreamIterator& operator++() {
    source_->Advance();
    return *this;
  }
  bool operator==(const StreamIterator& other) const { return End() == other.End(); }
  bool operator!=(const StreamIterator& other) const { return !(*this == other); }

 private:
  bool End() const { return source_ == nullptr || source_->AtEnd(); }
  StreamSource* source_;
};

// The SAX side of the streaming replay. It builds small documents (a case without its
// requests, one request) and checks each with the same JsonField code as the whole-document
// replay, so every message and field path is the same; a request's problem is kept until
// its case ends, because the case's own fields are checked first. Each case is replayed
// and written as soon as its closing brace is read.
class CaseStream {
 public:
  CaseStream(std::ostream& out, std::string source) : out_(out), source_(std::move(source)) {}

  bool null() { return Value(nullptr); }
  bool boolean(bool v) { return Value(v); }
  bool number_integer(std::int64_t v) { return Value(v); }
  bool number_unsigned(std::uint64_t v) { return Value(v); }
  bool number_float(double v, const std::string&) { return Value(v); }
  bool string(std::string& v) { return Value(std::move(v)); }
  bool binary(nlohmann::json::binary_t&) { return true; }  // not in JSON text

  bool start_object(std::size_t) { return Start(nlohmann::json::object()); }
  bool start_array(std::size_t) { return Start(nlohmann::json::array()); }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (in_request_ && frames_.size() == 4) return RequestKey(f, k);
    if (!f.keys.insert(k).second) {
      f.key = k;
      throw InputError({source_, 0, 0}, Path(),
                       "duplicate key \"" + k +
                           "\" (an object must not repeat a key: only the last value would "
                           "count)");
    }
    f.key = std::move(k);
    return true;
  }
  bool end_object() { return End(); }
  bool end_array() { return End(); }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (e.id == 406) {
      // A number too large for a double: it ends where the parser stands.
      if (auto space = what.find("] "); space != std::string::npos) what = what.substr(space + 2);
      throw InputError(source_stream_->LocationOf(position - token.size(), source_), "",
                       "invalid JSON: " + what);
    }
    if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(source_stream_->LocationOf(position == 0 ? 0 : position - 1, source_), "",
                     "invalid JSON: " + what);
  }

  void Run(std::istream& in) {
    StreamSource source(in);
    source_stream_ = &source;
    nlohmann::json::sax_parse(StreamIterator(&source), StreamIterator(), this);
    if (top_type_) {
      const nlohmann::json& top = *top_type_;
      JsonField(top, source_, "").ExpectArray();
    }
    out_ << (cases_ == 0 ? "[" : "") << "\n]\n";
  }

 private:
  struct Frame {
    nlohmann::json* value;  // where this container is being built
    bool object;
    std::set<std::string> keys;
    std::string key;        // objects: the key being read
    std::size_t index = 0;  // arrays: the element being read
  };

  // Depths: 0 the cases array, 1 a case, 2 its fields, 3 a request (in "requests").
  bool InRequests() const {
    return frames_.size() == 3 && frames_[1].object && frames_[1].key == "requests" &&
           !frames_[2].object;
  }

  // Where a value that starts now goes: into its parent, or, for a request, into the
  // document of that request alone.
  nlohmann::json* Slot(nlohmann::json v) {
    if (in_request_ && frames_.size() == 4) {
      nlohmann::json& field = field_ >= 0 ? fields_[field_] : extras_.back().second;
      field = std::move(v);
      return &field;
    }
    if (frames_.empty()) {
      top_ = std::move(v);
      return &top_;
    }
    if (InRequests()) {
      request_ = std::move(v);
      return &request_;
    }
    if (frames_.size() == 1) {
      case_ = std::move(v);
      return &case_;
    }
    nlohmann::json& parent = *frames_.back().value;
    if (frames_.back().object) return &(parent[frames_.back().key] = std::move(v));
    parent.push_back(std::move(v));
    return &parent.back();
  }

  bool Start(nlohmann::json container) {
    if (frames_.empty() && !container.is_array()) {
      top_type_ = std::move(container);
      frames_.push_back(Frame{&*top_type_, top_type_->is_object(), {}, {}, 0});
      skipping_ = true;
      return true;
    }
    const bool object = container.is_object();
    if (object && !skipping_ && InRequests()) {
      // A request: its fields go into fields_, not into a document.
      in_request_ = true;
      present_ = 0;
      extras_.clear();
      frames_.push_back(Frame{&request_, true, {}, {}, 0});
      return true;
    }
    nlohmann::json* at = skipping_ ? &scratch_ : Slot(std::move(container));
    frames_.push_back(Frame{at, object, {}, {}, 0});
    return true;
  }

  template <typename T>
  bool Value(T&& v) {
    if (frames_.empty()) {
      top_type_ = nlohmann::json(std::forward<T>(v));
      return true;
    }
    if (!skipping_) Slot(nlohmann::json(std::forward<T>(v)));
    Done();
    return true;
  }

  bool End() {
    frames_.pop_back();
    Done();
    return true;
  }

  // A scalar value or a container is complete.
  void Done() {
    if (frames_.empty()) return;
    if (!skipping_) {
      if (frames_.size() == 1) {
        EndCase();
      } else if (InRequests()) {
        AddRequest();
      } else if (frames_.size() == 2 && frames_[1].object && frames_[1].key == "queueset") {
        SeeConfig();
      }
    }
    Frame& f = frames_.back();
    if (!f.object) ++f.index;
  }

  std::string CasePath() const { return "[" + std::to_string(frames_[0].index) + "]"; }

  void SeeConfig() {
    config_seen_ = true;
    try {
      config_ = ParseConfig(
          JsonField((*frames_[1].value)["queueset"], source_, CasePath() + ".queueset"));
    } catch (const InputError&) {
      config_.reset();  // reported when the case ends, in the whole-document order
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

  bool RequestKey(Frame& f, std::string& k) {
    f.key = k;  // for the path of an error
    field_ = -1;
    for (int i = 0; i < kRequestFieldCount; ++i) {
      if (kRequestFields[i] == k) field_ = i;
    }
    bool repeated = false;
    if (field_ >= 0) {
      repeated = (present_ >> field_) & 1;
      present_ |= 1u << field_;
    } else {
      for (const auto& [name, unused] : extras_) repeated = repeated || name == k;
      extras_.emplace_back(std::move(k), nullptr);
    }
    if (repeated) {
      throw InputError({source_, 0, 0}, Path(),
                       "duplicate key \"" + f.key +
                           "\" (an object must not repeat a key: only the last value would "
                           "count)");
    }
    return true;
  }

  bool Present(int field) const { return ((present_ >> field) & 1) && !fields_[field].is_null(); }

  // The request read from fields_ when every field is as expected (the common case);
  // false sends it to ParseRequest, which gives the same result or names the problem.
  bool FastRequest(ReplayRequest& r, bool hashed) {
    if (!extras_.empty() || !Present(kId) || !fields_[kId].is_number_integer()) return false;
    const auto seconds = [this](int field, apf::Nanos& out) {
      const nlohmann::json& v = fields_[field];
      if (!v.is_number()) return false;
      const double s = v.get<double>();
      if (!(s >= 0 && s <= kMaxSeconds)) return false;
      out = static_cast<apf::Nanos>(std::llround(s * 1e9));
      return true;
    };
    const auto seats = [this](int field, std::int64_t& out) {
      const nlohmann::json& v = fields_[field];
      if (!v.is_number_integer()) return false;
      out = v.get<std::int64_t>();
      return out >= 0 && out <= (1 << 30);
    };
    r.id = fields_[kId].get<std::int64_t>();
    if (!Present(kArrive) || !seconds(kArrive, r.arrive_ns)) return false;
    if (!Present(kService) || !seconds(kService, r.service_ns)) return false;
    r.wait_limit_ns = 15 * apf::kSecond;
    if (Present(kWaitLimit) && !seconds(kWaitLimit, r.wait_limit_ns)) return false;
    std::int64_t initial = 1, final_seats = 0;
    if (Present(kInitialSeats) && !seats(kInitialSeats, initial)) return false;
    if (Present(kFinalSeats) && !seats(kFinalSeats, final_seats)) return false;
    r.seats.initial_seats = initial;
    r.seats.final_seats = final_seats;
    r.seats.additional_latency = 0;
    if (Present(kAdditionalLatency) && !seconds(kAdditionalLatency, r.seats.additional_latency)) {
      return false;
    }
    if (hashed) {
      static const std::string kEmpty;
      const auto text = [this](int field) -> const std::string* {
        if (!Present(field)) return &kEmpty;
        return fields_[field].is_string() ? &fields_[field].get_ref<const std::string&>() : nullptr;
      };
      const std::string* flow_schema = text(kFlowSchema);
      const std::string* distinguisher = text(kDistinguisher);
      if (!flow_schema || !distinguisher) return false;
      r.flow_hash = apf::HashFlowID(*flow_schema, *distinguisher);
    }
    return ids_.Insert(r.id, requests_);
  }

  // The request as a document, for ParseRequest.
  void RequestDocument() {
    request_ = nlohmann::json::object();
    for (int i = 0; i < kRequestFieldCount; ++i) {
      if ((present_ >> i) & 1) request_[std::string(kRequestFields[i])] = std::move(fields_[i]);
    }
    for (auto& [name, value] : extras_) request_[name] = std::move(value);
  }

  void AddRequest() {
    const std::size_t index = frames_[2].index;
    const bool fields = in_request_;
    in_request_ = false;
    if (fields) {
      if (config_seen_ && !request_error_) {
        ReplayRequest r;
        if (FastRequest(r, config_ && config_->queuing.desired_num_queues > 1)) {
          requests_.push_back(r);
          return;
        }
      }
      RequestDocument();
    }
    if (!config_seen_) {
      // "requests" before "queueset": keep the request in the case until the end.
      (*frames_[2].value).push_back(std::move(request_));
      return;
    }
    if (request_error_) return;
    try {
      const bool hashed = config_ && config_->queuing.desired_num_queues > 1;
      requests_.push_back(ParseRequest(
          JsonField(request_, source_, CasePath() + ".requests[" + std::to_string(index) + "]"),
          hashed, ids_, requests_));
    } catch (const InputError& e) {
      request_error_ = e;
    }
  }

  void EndCase() {
    const JsonField c(case_, source_, CasePath());
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
    case_ = nullptr;
    requests_ = {};
    ids_ = IdSet();
    config_seen_ = false;
    config_.reset();
    request_error_.reset();
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.object) {
        path += (path.empty() ? "" : ".") + f.key;
      } else {
        path += "[" + std::to_string(f.index) + "]";
      }
    }
    return path;
  }

  std::ostream& out_;
  std::string source_;
  StreamSource* source_stream_ = nullptr;
  std::vector<Frame> frames_;
  nlohmann::json top_, case_, request_, scratch_;
  std::optional<nlohmann::json> top_type_;  // a top level that is not an array
  bool skipping_ = false;                   // after such a top level: only syntax matters
  std::size_t cases_ = 0;

  bool config_seen_ = false;
  std::optional<ReplayConfig> config_;
  std::deque<ReplayRequest> requests_;
  IdSet ids_;
  std::optional<InputError> request_error_;

  // The request being read, when it is an object.
  bool in_request_ = false;
  std::array<nlohmann::json, kRequestFieldCount> fields_;
  std::uint32_t present_ = 0;  // bit i: kRequestFields[i] was given
  int field_ = -1;             // the field being read; -1: one of extras_
  std::vector<std::pair<std::string, nlohmann::json>> extras_;  // unknown fields
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
  CaseStream(out, source).Run(in);
}

}  // namespace sim
