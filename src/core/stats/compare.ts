import { invalidOption } from '../common/errors';
import type { Warning } from '../common/warnings';
import { mean, sampleVariance } from './descriptive';
import { comparisonWarnings } from './comparisonWarnings';
import { formatSummary } from './formatComparison';
import { fiellerRelativeInterval } from './ratioInterval';
import type { RunSummary } from './runSummary';
import { welchTTest } from './welch';

export type Verdict = 'faster' | 'slower' | 'no-significant-change';

/**
 * One metric, baseline vs current. `diff` is current − baseline. Fields that need a test are null when
 * no test was possible (fewer than 2 runs on a side); null rather than NaN so the JSON round-trips.
 */
export interface MetricComparison {
  baselineMean: number;
  currentMean: number;
  /** Sample stddev between runs; null with a single run. */
  baselineStddev: number | null;
  currentStddev: number | null;
  diff: number;
  /** diff as % of the baseline mean; null when the baseline mean is 0. */
  diffPct: number | null;
  /** Confidence interval of the difference, absolute units (Welch). */
  ciLow: number | null;
  ciHigh: number | null;
  /** Confidence interval of the relative change in % (Fieller); null when unbounded or untested. */
  ciLowPct: number | null;
  ciHighPct: number | null;
  /** Two-sided p-value of Welch's t-test. */
  pValue: number | null;
  /** Welch–Satterthwaite degrees of freedom; null when untested or both sides have zero variance. */
  df: number | null;
  /** pValue < alpha. Always false when untested. */
  significant: boolean;
}

export interface Comparison {
  method: string;
  /** 1 − alpha, e.g. 0.95. */
  confidenceLevel: number;
  n: { baseline: number; current: number };
  requestsPerSecond: MetricComparison;
  p99Ms: MetricComparison;
  verdict: Verdict;
  summary: string;
  warnings: Warning[];
}

export interface CompareOptions {
  /** Significance level of the two-sided test; the intervals are (1 − alpha) intervals. Default 0.05. */
  alpha?: number;
}

const stddevOrNull = (values: readonly number[]): number | null => (values.length < 2 ? null : Math.sqrt(sampleVariance(values)));

export function compareMetric(baseline: readonly number[], current: readonly number[], alpha: number): MetricComparison {
  const baselineMean = mean(baseline);
  const currentMean = mean(current);
  const diff = currentMean - baselineMean;
  const diffPct = baselineMean === 0 ? null : (100 * diff) / Math.abs(baselineMean);
  const test = welchTTest(baseline, current, alpha);
  const relative = test
    ? fiellerRelativeInterval(baselineMean, test.varMeanBaseline, currentMean, test.varMeanCurrent, test.tCritical)
    : undefined;
  return {
    baselineMean,
    currentMean,
    baselineStddev: stddevOrNull(baseline),
    currentStddev: stddevOrNull(current),
    diff,
    diffPct,
    ciLow: test ? test.ciLow : null,
    ciHigh: test ? test.ciHigh : null,
    ciLowPct: relative ? relative.lowPct : null,
    ciHighPct: relative ? relative.highPct : null,
    pValue: test ? test.pValue : null,
    df: test ? test.df : null,
    significant: test ? test.pValue < alpha : false,
  };
}

function verdictOf(throughput: MetricComparison): Verdict {
  if (!throughput.significant) return 'no-significant-change';
  return throughput.diff > 0 ? 'faster' : 'slower';
}

function formatLevel(level: number): string {
  return `${Number((level * 100).toFixed(2))}%`;
}

/**
 * Compares K baseline runs with K current runs. The observations are per-run values (a run's mean req/s,
 * a run's p99), so n is the number of runs: treating each request or each second as a sample (as
 * autocannon-compare does) pretends thousands of correlated measurements are independent and reports
 * "significant" for run-to-run noise.
 *
 * The verdict follows throughput only; p99 gets its own test and significance in the result and the
 * summary. Edge cases: fewer than 2 runs on a side → no test, verdict 'no-significant-change' and a
 * NOT_ENOUGH_RUNS warning; zero variance on both sides → see welchTTest, with a ZERO_VARIANCE warning.
 * Throws RangeError when a side has no runs at all (there is nothing to describe), InvalidOption for
 * an alpha outside (0, 1).
 */
export function compareRuns(baseline: readonly RunSummary[], current: readonly RunSummary[], options: CompareOptions = {}): Comparison {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw invalidOption(`alpha must be between 0 and 1, e.g. 0.05 for 95% confidence (got ${alpha}).`);
  if (baseline.length === 0 || current.length === 0) {
    throw new RangeError(`compareRuns needs at least one run on each side (got ${baseline.length} baseline, ${current.length} current).`);
  }
  for (const run of [...baseline, ...current]) {
    if (!Number.isFinite(run.requestsPerSecond) || !Number.isFinite(run.p99Ms)) {
      throw new RangeError(`compareRuns got a run with a non-finite value: ${JSON.stringify(run)}`);
    }
  }

  const confidenceLevel = 1 - alpha;
  const level = formatLevel(confidenceLevel);
  const requestsPerSecond = compareMetric(baseline.map((r) => r.requestsPerSecond), current.map((r) => r.requestsPerSecond), alpha);
  const p99Ms = compareMetric(baseline.map((r) => r.p99Ms), current.map((r) => r.p99Ms), alpha);
  const tested = baseline.length >= 2 && current.length >= 2;
  const verdict = verdictOf(requestsPerSecond);
  const n = { baseline: baseline.length, current: current.length };

  const method = tested
    ? `Welch's t-test on per-run means (${n.baseline} vs ${n.current} runs), two-sided, ${level} CI (Fieller for %)`
    : `No test: needs at least 2 runs on each side (${n.baseline} vs ${n.current}); means only`;

  return {
    method,
    confidenceLevel,
    n,
    requestsPerSecond,
    p99Ms,
    verdict,
    summary: formatSummary({ requestsPerSecond, p99Ms, verdict, tested, level }),
    warnings: comparisonWarnings({ baseline, current, requestsPerSecond, p99Ms, verdict, tested, level }),
  };
}
