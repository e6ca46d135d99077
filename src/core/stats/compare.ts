import type { Warning } from '../common/warnings';
import { comparisonWarnings } from './comparisonWarnings';
import { formatSummary } from './formatComparison';
import { availableSpecs, compareMetricSamples, HTTP_METRICS, type Comparison, type MetricOptions } from './metrics';
import type { RunSummary } from './runSummary';
import { appKind } from './sessionDrift';
import * as os from 'node:os';

/** The cores of this machine (a verify's runs are this machine's; a baseline from another one is warned about). */
const machineCores = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

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
 * different times, so this is the independent (Welch) design, whose intervals also carry the calibrated
 * drift between sessions (HTTP_METRICS.sessionDrift, the term of the app's kind when both sessions show
 * the same: sessionDrift.appKind); `hotpath compare` interleaves and pairs.
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
  const load = otherLoad(baseline, current);
  const set = compareMetricSamples(specs, samples as Record<string, { a: number[]; b: number[] }>, 'independent', { loadChangeCores: load ? Math.abs(load.b - load.a) : 0, appKind: appKind(baseline, current, machineCores()), ...options });
  const warnings = comparisonWarnings({
    set, primary: 'requestsPerSecond',
    sides: [{ name: 'Baseline', values: a.requestsPerSecond as number[] }, { name: 'Current', values: b.requestsPerSecond as number[] }],
    failedRuns: { failing: [...baseline, ...current].filter((r) => r.errors > 0).length, total: baseline.length + current.length },
    moreData: 'Use `hotpath compare` (interleaved pairs cancel the drift between sessions that more runs cannot), or --runs 5 or more for both the baseline and the verify',
  });
  const loadWarning = load ? loadChanged(load) : undefined;
  return { ...set, summary: formatSummary(set), warnings: loadWarning ? [loadWarning, ...warnings] : warnings };
}

/** A change of other programs' CPU use between the sessions worth a word (cores). */
export const LOAD_CHANGE_WARN_CORES = 0.25;

/** Mean other-program CPU use of each session, in cores; undefined unless every run has it. */
function otherLoad(baseline: readonly RunSummary[], current: readonly RunSummary[]): { a: number; b: number } | undefined {
  const mean = (runs: readonly RunSummary[]) => runs.reduce((sum, r) => sum + (r.otherCpuCores as number), 0) / runs.length;
  if (![...baseline, ...current].every((r) => typeof r.otherCpuCores === 'number' && Number.isFinite(r.otherCpuCores))) return undefined;
  return { a: mean(baseline), b: mean(current) };
}

function loadChanged(load: { a: number; b: number }): Warning | undefined {
  if (Math.abs(load.b - load.a) < LOAD_CHANGE_WARN_CORES) return undefined;
  const cores = (x: number) => `${x.toFixed(2)} cores`;
  return {
    code: 'ENV_LOAD_CHANGED',
    message: `Other programs used ${cores(load.a)} of CPU during the baseline's runs and ${cores(load.b)} during these: the machine's load changed between the sessions, which moves req/s, latency and even CPU per request without any change to the code. The intervals are widened for it; to compare at the same load, use \`hotpath compare\` (both sides interleaved) or record the baseline again.`,
  };
}
