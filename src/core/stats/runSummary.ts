import type { LoadResult } from '../load/result';

/**
 * One load run reduced to the observations a comparison uses. A comparison's sample is the list of
 * these, one per independent run, never the requests or seconds inside a run: requests within a run
 * share the same process, JIT state and machine moment, so they are not independent evidence.
 */
export interface RunSummary {
  /** Mean responses per second over the measured seconds. */
  requestsPerSecond: number;
  p99Ms: number;
  p50Ms: number;
  /** Requests that failed: connection errors and timeouts plus non-2xx responses. */
  errors: number;
  /** Kept to show a run's shape (ramp-up, stalls); not used as samples. */
  perSecond: number[];
}

export function summarizeRun(result: LoadResult): RunSummary {
  return {
    requestsPerSecond: result.requests.mean,
    p99Ms: result.latencyMs.p99,
    p50Ms: result.latencyMs.p50,
    errors: result.errors + result.non2xx,
    perSecond: [...result.requests.perSecond],
  };
}
