// The client-side hot path: one token Wait on a busy bucket, and one whole ClientCall
// (token, attempt, a 429 with Retry-After, sleep, token, attempt, success) as the world
// drives it. Reported per operation. (The bucket is apf/base/rate_limiter.h's x/time/rate Limiter;
// the benchmark keeps its name, which the README's table of figures uses.)
#include <benchmark/benchmark.h>

#include "apf/base/rate_limiter.h"
#include "sim/clients/client_call.h"

static void BM_TokenBucketWait(benchmark::State& state) {
  // 1000 QPS, burst 10, one Wait every 0.9 ms: the bucket stays near empty, so most Waits
  // compute a delay.
  apf::RateLimiter bucket(1000, 10);
  apf::Nanos now = 0;
  for (auto _ : state) {
    now += 900 * apf::kMicrosecond;
    benchmark::DoNotOptimize(bucket.Wait(now, apf::kNever));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TokenBucketWait);

static void BM_ClientCallRetryOnce(benchmark::State& state) {
  apf::RateLimiter bucket(1e6, 1000000);
  sim::HttpResponse too_many;
  too_many.status_code = 429;
  too_many.has_retry_after = true;
  too_many.retry_after_seconds = 1;
  sim::HttpResponse ok;
  apf::Nanos now = 0;
  const sim::ClientCallOptions options;
  for (auto _ : state) {
    sim::ClientCall call(options, &bucket);
    sim::CallStep step = call.Start(now);
    step = call.OnResponse(now + apf::kMillisecond, too_many);
    step = call.Wake(step.wake_at_ns);
    step = call.OnResponse(now + 2 * apf::kSecond, ok);
    benchmark::DoNotOptimize(step);
    now += apf::kMillisecond;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClientCallRetryOnce);
