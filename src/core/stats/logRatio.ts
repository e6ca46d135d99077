import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleVariance } from './descriptive';
import { welchTTest } from './welch';

/**
 * Effects on throughput and latency are multiplicative: a fix makes every request take 0.6× as long,
 * and run-to-run noise grows with the level (a run at 2,000 req/s wobbles by more req/s than one at
 * 200). On the log scale both become additive and roughly constant, so a t-interval of the mean log
 * difference, taken back with exp(), is a confidence interval of the ratio of geometric means. It is
 * always positive (a throughput can fall by at most 100%) and asymmetric as a ratio's must be.
 */
export interface RatioEstimate {
  /** Ratio of geometric means, b / a (e.g. 1.31 = b is 31% higher). */
  ratio: number;
  /** Confidence interval of the ratio at the level asked for. */
  ciLow: number;
  ciHigh: number;
  /** Two-sided p-value of "the ratio is 1" (not adjusted for multiple comparisons). */
  pValue: number;
  /** Degrees of freedom of the t distribution used; null when the data have no variance at all. */
  df: number | null;
  /** Standard error of the mean log difference; the interval is exp(log ratio ± tCritical·se). */
  se: number;
  tCritical: number;
}

function logs(values: readonly number[], side: string): number[] {
  return values.map((v) => {
    if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`A ratio needs positive values; ${side} has ${v}.`);
    return Math.log(v);
  });
}

/** Degrees of freedom beyond which the t distribution is the normal for every purpose here. */
const MAX_DF = 1e6;

function fromLogInterval(diff: number, se: number, df: number | null, pValue: number, tCritical: number): RatioEstimate {
  return {
    ratio: Math.exp(diff),
    ciLow: Math.exp(diff - tCritical * se),
    ciHigh: Math.exp(diff + tCritical * se),
    pValue, df, se, tCritical,
  };
}

/**
 * Two independent samples (verify: K baseline runs then K current runs): Welch's t-test on the logs.
 * Undefined with fewer than two values on a side: one run says nothing about run-to-run noise.
 *
 * `sessionSd` (log scale) is the drift between two sessions of runs: the runs of one session share the
 * machine's state (what else runs, its caches, its clock), so their spread says nothing about how far
 * the next session lands. Each side's mean carries one such error, so 2·sessionSd² joins the variance of
 * the difference. It is a known constant (calibrated, see HTTP_METRICS), so it adds no uncertainty of
 * its own to the Welch–Satterthwaite degrees of freedom of the run-to-run parts.
 *
 * Those degrees of freedom never exceed what the runs support, (na − 1) + (nb − 1): Satterthwaite's
 * formula with the known term in the numerator grows without bound as the runs' spread shrinks, so two
 * runs a side that happen to agree would leave the session term alone with the normal's quantile — an
 * interval as narrow as if the run-to-run noise were known to be zero (CI called an unchanged Express
 * app's CPU per request ×1.084 "slower" that way). Capped, two runs a side keep t with 2 df.
 */
export function independentLogRatio(a: readonly number[], b: readonly number[], alpha: number, sessionSd = 0): RatioEstimate | undefined {
  if (!(sessionSd >= 0) || !Number.isFinite(sessionSd)) throw new RangeError(`sessionSd must be a finite number ≥ 0 (got ${sessionSd}).`);
  const test = welchTTest(logs(a, 'a'), logs(b, 'b'), alpha);
  if (!test) return undefined;
  if (sessionSd === 0) return fromLogInterval(test.diff, test.se, test.df, test.pValue, test.tCritical);
  const runVar = [test.varMeanBaseline, test.varMeanCurrent];
  const variance = runVar[0] + runVar[1] + 2 * sessionSd ** 2;
  const se = Math.sqrt(variance);
  const satterthwaite = variance ** 2 / (runVar[0] ** 2 / (a.length - 1) + runVar[1] ** 2 / (b.length - 1));
  // Runs without spread would leave the known term alone (df → ∞): the runs support no more than
  // their own degrees of freedom.
  const df = Math.min(MAX_DF, a.length + b.length - 2, satterthwaite);
  const pValue = Math.min(1, 2 * tCdf(-Math.abs(test.diff / se), df));
  return fromLogInterval(test.diff, se, df, pValue, tQuantile(1 - alpha / 2, df));
}

/**
 * Paired samples (compare: a[i] and b[i] ran next to each other, A B B A …): a one-sample t-test of the
 * per-pair log ratios, df = pairs − 1. Drift of the machine that hits both runs of a pair alike cancels
 * in the pair's ratio, which is the point of interleaving. Undefined with fewer than two pairs.
 */
export function pairedLogRatio(a: readonly number[], b: readonly number[], alpha: number): RatioEstimate | undefined {
  if (a.length !== b.length) throw new RangeError(`Paired samples need the same length (a: ${a.length}, b: ${b.length}).`);
  const n = a.length;
  if (n < 2) return undefined;
  const la = logs(a, 'a');
  const lb = logs(b, 'b');
  const d = lb.map((x, i) => x - la[i]);
  const diff = mean(d);
  const se = Math.sqrt(sampleVariance(d) / n);
  // Identical ratios in every pair differ only by rounding of the logs (~1e-16): that is no variance.
  if (se < 1e-12) return fromLogInterval(diff, 0, null, Math.abs(diff) < 1e-12 ? 1 : 0, 0);
  const df = n - 1;
  const t = diff / se;
  // 2·F(−|t|) rather than 2·(1 − F(|t|)): no cancellation for tiny p-values.
  const pValue = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return fromLogInterval(diff, se, df, pValue, tQuantile(1 - alpha / 2, df));
}

/** Geometric mean of positive values (the centre a log-scale comparison is about). */
export function geometricMean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  return Math.exp(mean(logs(values, 'the sample')));
}

/** Half the interval's width on the log scale, as a percentage of the ratio: exp(t·se) − 1. */
export function halfWidthPct(estimate: Pick<RatioEstimate, 'se' | 'tCritical'>): number {
  return (Math.exp(estimate.tCritical * estimate.se) - 1) * 100;
}
