import { comparisonWarnings } from './comparisonWarnings';
import { formatSummary } from './formatComparison';
import { availableSpecs, compareMetricSamples, HTTP_METRICS, type Comparison, type MetricOptions } from './metrics';
import type { RunSummary } from './runSummary';

export type { Comparison, MetricResult, Verdict } from './metrics';

/** A run's observations by metric name (HTTP_METRICS). */
export function httpSamples(runs: readonly RunSummary[]): Record<keyof typeof HTTP_METRICS, Array<number | undefined>> {
  return {
    requestsPerSecond: runs.map((r) => r.requestsPerSecond),
    p99LatencyMs: runs.map((r) => r.p99Ms),
    cpuMsPerRequest: runs.map((r) => r.cpuMsPerRequest),
    // Baselines written before p50 was kept have none: fall back to p99 there rather than fail.
    p50LatencyMs: runs.map((r) => (r.p50Ms > 0 ? r.p50Ms : r.p99Ms)),
  };
}

/**
 * verify: K baseline runs against K current runs. The observations are per-run values (a run's mean
 * req/s, a run's p99 and p50 from its own histogram), so n is the number of runs: treating each request
 * or each second as a sample (as autocannon-compare does) pretends thousands of correlated
 * measurements are independent and reports "significant" for run-to-run noise. The two sides ran at
 * different times, so this is the independent (Welch) design; `hotpath compare` interleaves and pairs.
 * Throws RangeError when a side has no runs at all, InvalidOption for an alpha outside (0, 1).
 */
export function compareRuns(baseline: readonly RunSummary[], current: readonly RunSummary[], options: MetricOptions = {}): Comparison {
  if (baseline.length === 0 || current.length === 0) {
    throw new RangeError(`compareRuns needs at least one run on each side (got ${baseline.length} baseline, ${current.length} current).`);
  }
  for (const run of [...baseline, ...current]) {
    if (!(run.requestsPerSecond > 0) || !(run.p99Ms > 0) || !Number.isFinite(run.requestsPerSecond) || !Number.isFinite(run.p99Ms)) {
      throw new RangeError(`compareRuns got a run without positive, finite req/s and p99: ${JSON.stringify({ requestsPerSecond: run.requestsPerSecond, p99Ms: run.p99Ms })}`);
    }
  }
  const a = httpSamples(baseline);
  const b = httpSamples(current);
  const samples = Object.fromEntries(Object.keys(HTTP_METRICS).map((k) => [k, { a: a[k as keyof typeof a], b: b[k as keyof typeof b] }]));
  const specs = availableSpecs(HTTP_METRICS, samples);
  const set = compareMetricSamples(specs, samples as Record<string, { a: number[]; b: number[] }>, 'independent', options);
  const warnings = comparisonWarnings({
    set, primary: 'requestsPerSecond',
    sides: [{ name: 'Baseline', values: a.requestsPerSecond as number[] }, { name: 'Current', values: b.requestsPerSecond as number[] }],
    failedRuns: { failing: [...baseline, ...current].filter((r) => r.errors > 0).length, total: baseline.length + current.length },
    moreData: 'Use --runs 5 or more for both the baseline and the verify, or `hotpath compare` (interleaved pairs)',
  });
  return { ...set, summary: formatSummary(set), warnings };
}
