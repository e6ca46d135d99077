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
  /**
   * CPU time the app spent per response, ms: what the code costs, even when another program takes CPU
   * away and req/s swings. Absent when the app's CPU time could not be read (and in older baselines).
   */
  cpuMsPerRequest?: number;
  /**
   * Other programs' average CPU use during the run, in cores (measure/otherCpu): how busy the machine
   * was apart from the app and Hotpath. Not a metric of the app; a comparison of two sessions uses it to
   * see whether the machine's load changed between them. Absent when unknown (and in older baselines).
   */
  otherCpuCores?: number;
}

/**
 * `appCpuMs`: CPU time the app process used during the measured load; `otherCpuCores`: other programs'
 * CPU use meanwhile (null when unknown).
 */
export function summarizeRun(result: LoadResult, appCpuMs: number | null = null, otherCpuCores: number | null = null): RunSummary {
  const summary: RunSummary = {
    requestsPerSecond: result.requests.mean,
    p99Ms: result.latencyMs.p99,
    p50Ms: result.latencyMs.p50,
    errors: result.errors + result.non2xx,
    perSecond: [...result.requests.perSecond],
  };
  if (appCpuMs !== null && appCpuMs > 0 && result.requests.total > 0) summary.cpuMsPerRequest = Math.round((appCpuMs / result.requests.total) * 1e6) / 1e6;
  if (otherCpuCores !== null && otherCpuCores >= 0 && Number.isFinite(otherCpuCores)) summary.otherCpuCores = otherCpuCores;
  return summary;
}
