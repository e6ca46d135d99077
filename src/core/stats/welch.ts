import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleVariance } from './descriptive';

/**
 * Welch's unequal-variances t-test of `current − baseline`, two-sided, with the Welch–Satterthwaite
 * degrees of freedom. Welch rather than Student because a code change can change run-to-run variance
 * as well as the mean, and with equal n it loses almost nothing when the variances happen to be equal.
 */
export interface WelchResult {
  diff: number;
  /** Standard error of the difference of the means. */
  se: number;
  t: number;
  /** Welch–Satterthwaite df; null when both samples have zero variance (the formula is 0/0). */
  df: number | null;
  pValue: number;
  /** Two-sided t quantile used for the interval (Infinity-free: 0 when se is 0). */
  tCritical: number;
  ciLow: number;
  ciHigh: number;
  /** Variances of the two means (s²/n), for interval methods built on the same df. */
  varMeanBaseline: number;
  varMeanCurrent: number;
}

/**
 * Returns undefined when either sample has fewer than two values: with one run there is no estimate of
 * run-to-run noise, so no honest test exists.
 *
 * Zero variance on both sides (every run identical, e.g. a quantised metric) is degenerate: if the means
 * are equal the difference is exactly 0 (p = 1); otherwise every observation says the same thing and the
 * difference is treated as certain (p = 0, interval [diff, diff]). Callers warn about it.
 */
export function welchTTest(baseline: readonly number[], current: readonly number[], alpha = 0.05): WelchResult | undefined {
  const n1 = baseline.length;
  const n2 = current.length;
  if (n1 < 2 || n2 < 2) return undefined;
  const diff = mean(current) - mean(baseline);
  const v1 = sampleVariance(baseline) / n1;
  const v2 = sampleVariance(current) / n2;
  const se = Math.sqrt(v1 + v2);

  if (se === 0) {
    return {
      diff, se: 0, t: diff === 0 ? 0 : Math.sign(diff) * Infinity, df: null, pValue: diff === 0 ? 1 : 0,
      tCritical: 0, ciLow: diff, ciHigh: diff, varMeanBaseline: 0, varMeanCurrent: 0,
    };
  }

  const df = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1));
  const t = diff / se;
  // 2·F(−|t|) rather than 2·(1 − F(|t|)): no cancellation for tiny p-values.
  const pValue = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  const tCritical = tQuantile(1 - alpha / 2, df);
  return {
    diff, se, t, df, pValue, tCritical,
    ciLow: diff - tCritical * se,
    ciHigh: diff + tCritical * se,
    varMeanBaseline: v1,
    varMeanCurrent: v2,
  };
}
