/**
 * Startup comparisons, bisect and benchmark comparisons run on the same interleaved A/B engine as
 * `hotpath compare` (interleave.ts) and the same ratio statistics (stats/metrics.ts); this module only
 * names what they use. What measures one run (a cold start, a benchmark process) is the strategy each
 * caller passes as `measure`.
 */
import { availableSpecs, compareMetricSamples, type MetricComparisonSet, type MetricResult, type MetricSpecs } from '../stats/metrics';
import { formatSignedPct } from '../../shared/text/numbers';
import { DEFAULT_INTERLEAVE, type InterleaveSettings } from './interleave';

export { runInterleaved as runAbComparison, analyse as analysePairs, orderOf } from './interleave';
export type { InterleaveDeps, InterleaveResult, InterleaveSettings, InterleaveState, RunRecord, StopReason } from './interleave';
export type { MetricComparisonSet, MetricResult, MetricSpec, MetricSpecs, SideKey, Verdict } from '../stats/metrics';

/** One discarded round first: a start or a benchmark process pays cold disk caches on its first run. */
export const DEFAULT_AB_SETTINGS: InterleaveSettings = { ...DEFAULT_INTERLEAVE, warmupRounds: 1 };

/**
 * Two independent samples per metric (a stored baseline's runs, then this run's): Welch's t-test on the
 * logs, the same ratio scale and Bonferroni family as the paired design. Metrics without a positive
 * value on both sides are left out.
 */
export function compareIndependent(specs: MetricSpecs, samples: Record<string, { a: readonly number[]; b: readonly number[] }>, alpha = 0.05): MetricComparisonSet {
  return compareMetricSamples(availableSpecs(specs, samples), samples, 'independent', { alpha });
}

/** `+12.3% (95% CI +8.1% … +16.7%)`: a ratio as a change, with its interval. */
export function ratioText(m: Pick<MetricResult, 'ratio' | 'ciLow' | 'ciHigh'>, level: number): string {
  const pct = (r: number) => formatSignedPct((r - 1) * 100);
  const ci = m.ciLow !== null && m.ciHigh !== null ? ` (${Math.round(level * 1000) / 10}% CI ${pct(m.ciLow)} … ${pct(m.ciHigh)})` : '';
  return `${pct(m.ratio)}${ci}`;
}
