// The client-side token bucket of client-go (CLIENT-SPEC 1): golang.org/x/time/rate's
// Limiter, as util/flowcontrol.NewTokenBucketRateLimiter wraps it and rest.Request spends
// it (one token per HTTP attempt, retries included). Clock-free: every method takes the
// virtual time and returns what the caller must do (wait this long, or fail); the caller
// schedules the events.
//
// The arithmetic is rate.go's, in its order and in float64, with times in integer
// nanoseconds exactly as Go's time.Duration, so delays match the real limiter to the
// nanosecond: tokens are refilled lazily by Duration.Seconds() * limit, and a shortfall is
// turned into a wait by Duration((tokens / limit) * 1e9), truncated toward zero.
// Differences, none reachable from client-go: rate.Inf (an unlimited Limiter) is not
// modelled, since client-go expresses "no limiter" by having none; and an instant past
// the end of time saturates at kNever where Go's time.Time.Add would overflow.
#ifndef SIM_CLIENTS_TOKEN_BUCKET_H_
#define SIM_CLIENTS_TOKEN_BUCKET_H_

#include <optional>

#include "apf/virtual_time.h"

namespace sim {

// rest/config.go DefaultQPS (a float32) and DefaultBurst.
inline constexpr float kDefaultClientQps = 5.0f;
inline constexpr int kDefaultClientBurst = 10;

// A token reserved (or refused) by the bucket: rate.Reservation for n = 1.
struct TokenReservation {
  bool ok = false;
  apf::Nanos time_to_act_ns = 0;  // when the token may be used (only when ok)
  double limit = 0;               // the bucket's limit when reserved (Cancel uses it)

  // rate.Reservation.DelayFrom: how long from `now` until the token may be used; 0 when
  // that time has passed; kNever when the reservation is not ok (InfDuration).
  apf::Nanos DelayFrom(apf::Nanos now) const;
};

// What rate.Limiter.Wait(ctx) does for one token, in the order wait() checks.
enum class TokenWaitStatus {
  kGranted,              // a token is reserved; proceed after delay_ns
  kExceedsBurst,         // "rate: Wait(n=1) exceeds limiter's burst <b>" (burst < 1)
  kContextDone,          // ctx already done (now >= deadline): ctx.Err(), nothing reserved
  kWouldExceedDeadline,  // "rate: Wait(n=1) would exceed context deadline", nothing reserved
};

struct TokenWait {
  TokenWaitStatus status = TokenWaitStatus::kGranted;
  apf::Nanos delay_ns = 0;  // kGranted: sleep this long first (0: at once)
  // kGranted: hand back to CancelAt if the caller's context ends during the delay.
  TokenReservation reservation;
};

class TokenBucket {
 public:
  // rate.NewLimiter(limit, burst): starts full (burst tokens), refills at `limit` tokens
  // per second up to `burst`. A limit <= 0 never refills.
  TokenBucket(double limit_per_second, int burst);
  TokenBucket(TokenBucket&&) = default;
  TokenBucket& operator=(TokenBucket&&) = default;
  // A bucket is shared state (one per RESTClient, CLIENT-SPEC 6): share it by pointer.
  TokenBucket(const TokenBucket&) = delete;
  TokenBucket& operator=(const TokenBucket&) = delete;

  // Limiter.Wait(ctx) at `now` with the context's deadline (kNever: none). On kGranted the
  // token is already taken; the caller sleeps delay_ns and then sends. A refusal changes
  // nothing. Deadline semantics as Go's context: done once now >= deadline.
  TokenWait Wait(apf::Nanos now, apf::Nanos deadline_ns);

  // Limiter.Reserve() at `now`: always reserves (tokens may go far negative) unless the
  // burst is below 1. The workqueue's BucketRateLimiter.When uses Reserve().Delay().
  TokenReservation Reserve(apf::Nanos now);

  // Limiter.AllowN(now, 1) (flowcontrol's TryAccept): a token now or nothing.
  bool Allow(apf::Nanos now);

  // Reservation.CancelAt(now): gives back what later reservations have not built on,
  // capped at the burst. For a caller whose context ended while it waited for its token.
  void CancelAt(const TokenReservation& reservation, apf::Nanos now);

  // Limiter.TokensAt(now): the tokens available at `now` (negative while others wait).
  double TokensAt(apf::Nanos now) const { return Advance(now); }

  double limit() const { return limit_; }
  int burst() const { return burst_; }

 private:
  // rate.Limiter.reserveN for n = 1.
  TokenReservation ReserveOne(apf::Nanos now, apf::Nanos max_future_reserve_ns);
  // rate.Limiter.advance: tokens at `now` without changing the bucket.
  double Advance(apf::Nanos now) const;

  double limit_;
  int burst_;
  double tokens_;
  // Go's zero time.Time before the first reservation: any elapsed time refills fully.
  bool has_last_ = false;
  apf::Nanos last_ns_ = 0;        // when tokens_ was last updated
  apf::Nanos last_event_ns_ = 0;  // the latest time_to_act handed out
};

// How rest.RESTClientForConfigAndClient turns rest.Config's QPS and Burst into a limiter
// when Config.RateLimiter is nil (CLIENT-SPEC 1.1): QPS 0 means 5, Burst 0 means 10, and a
// negative QPS means no limiter at all (controller-runtime >= v0.21 sets QPS = -1). The
// float32 QPS is widened to float64 as rate.Limit(qps) does, so 0.1 is 0.10000000149...
std::optional<TokenBucket> NewRestClientRateLimiter(float qps, int burst);

}  // namespace sim

#endif  // SIM_CLIENTS_TOKEN_BUCKET_H_
