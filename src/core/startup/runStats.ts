/**
 * Statistics of repeated cold starts, hyperfine-style: mean ± σ, median, min, max, and outliers flagged
 * (never dropped) by the modified z-score on the median absolute deviation (Iglewicz & Hoaglin:
 * M = 0.6745 · (x − median) / MAD, |M| > 3.5). Pure.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { describeSamples, mean, sampleVariance } from '../stats/descriptive';

export interface StartupOutlier {
  /** 1-based run number, in the order the runs were made. */
  run: number;
  ms: number;
  /** The modified z-score: how many MADs (scaled to σ) the run lies from the median. */
  modifiedZ: number;
}

export interface RunStatistics {
  runs: number;
  meanMs: number;
  stddevMs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  outliers: StartupOutlier[];
  /** Half-width of the 95% confidence interval of the mean, as % of the mean (null below 2 runs). */
  meanHalfWidthPct: number | null;
}

/** Above this modified z-score a run is an outlier (Iglewicz & Hoaglin's recommendation). */
export const OUTLIER_Z = 3.5;

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median absolute deviation (unscaled). */
export function medianAbsoluteDeviation(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

/**
 * Runs whose modified z-score exceeds 3.5. When more than half of the runs are identical the MAD is 0;
 * then the mean absolute deviation stands in (scaled by 0.7979, its ratio to σ for normal data), as in
 * Iglewicz & Hoaglin's note, so a lone slow run is still seen.
 */
export function madOutliers(values: readonly number[]): StartupOutlier[] {
  if (values.length < 3) return [];
  const m = median(values);
  const mad = medianAbsoluteDeviation(values);
  let scale: number;
  if (mad > 0) scale = mad / 0.6745;
  else {
    const meanAbs = mean(values.map((v) => Math.abs(v - m)));
    if (meanAbs === 0) return [];
    scale = meanAbs / 0.7979;
  }
  const out: StartupOutlier[] = [];
  values.forEach((ms, i) => {
    const z = (ms - m) / scale;
    if (Math.abs(z) > OUTLIER_Z) out.push({ run: i + 1, ms, modifiedZ: z });
  });
  return out;
}

/** Half-width of the t-interval of the mean, % of the mean (level 95%). */
export function meanHalfWidthPct(values: readonly number[], level = 0.95): number | null {
  if (values.length < 2) return null;
  const m = mean(values);
  if (m <= 0) return null;
  const se = Math.sqrt(sampleVariance(values) / values.length);
  return (tQuantile(1 - (1 - level) / 2, values.length - 1) * se / m) * 100;
}

export function summarizeRuns(values: readonly number[]): RunStatistics {
  const d = describeSamples(values);
  return {
    runs: values.length, meanMs: d.mean, stddevMs: d.stddev, medianMs: median(values), minMs: d.min, maxMs: d.max,
    outliers: madOutliers(values), meanHalfWidthPct: meanHalfWidthPct(values),
  };
}

export interface AdaptiveRuns {
  /** Never fewer runs than this (hyperfine's 10). */
  min: number;
  /** Never more. */
  max: number;
  /** Stop once the mean is known to ± this % (95%). */
  targetPct: number;
  /** Stop before a run that would end after this many ms of timed runs (min runs are always made). */
  budgetMs: number;
}

export const DEFAULT_ADAPTIVE_RUNS: AdaptiveRuns = { min: 10, max: 100, targetPct: 2, budgetMs: 60_000 };

/**
 * Whether another timed run is needed: the run count is chosen from the variance measured so far —
 * enough for the mean's 95% interval to be within ±targetPct — between `min` and `max`, within the budget.
 */
export function needMoreRuns(values: readonly number[], elapsedMs: number, settings: AdaptiveRuns): boolean {
  const n = values.length;
  if (n < settings.min) return true;
  if (n >= settings.max) return false;
  const hw = meanHalfWidthPct(values);
  if (hw !== null && hw <= settings.targetPct) return false;
  const perRun = elapsedMs / n;
  return elapsedMs + perRun <= settings.budgetMs;
}

/** Runs the rule will probably make in all (for a progress fraction): n grows like (hw / target)². */
export function expectedRuns(values: readonly number[], elapsedMs: number, settings: AdaptiveRuns): number {
  const n = values.length;
  if (n < Math.max(3, Math.min(settings.min, 3))) return settings.min;
  const hw = meanHalfWidthPct(values);
  let want = hw === null ? settings.min : Math.ceil(n * (hw / settings.targetPct) ** 2);
  if (n > 0 && elapsedMs > 0) want = Math.min(want, Math.floor(settings.budgetMs / (elapsedMs / n)));
  return Math.max(settings.min, n, Math.min(want, settings.max));
}
