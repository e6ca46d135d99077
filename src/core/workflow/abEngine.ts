/**
 * The interleaved A/B comparison that startup comparisons, bisect and benchmark comparisons run on:
 * two sides measured alternately in pairs (A B, B A, A B, … so each side goes first equally often and a
 * trend within a pair cancels), analysed paired on the log scale (a ratio with its confidence interval,
 * never below −100%), pairs added until the primary metric's ratio is known to ±target or a budget is
 * spent; Bonferroni over the verdict metrics.
 *
 * MERGE NOTE (issue 11): issue 11 builds this engine for `hotpath compare` (workflow/interleave.ts
 * `runInterleaved`, stats/metrics.ts `compareMetricSamples`). The types below have the same names and
 * fields on purpose; once it is on main, `runAbComparison` becomes `return runInterleaved(specs,
 * primary, settings, deps)` and the private statistics below go. What measures one run (a startup, a
 * benchmark process) stays here, as the strategy passed in `measure`.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { mean, sampleVariance } from '../stats/descriptive';
import { welchTTest } from '../stats/welch';
import { formatSignedPct } from '../../shared/text/numbers';

export type SideKey = 'a' | 'b';
export type Verdict = 'faster' | 'slower' | 'no-significant-change';

export interface MetricSpec {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  inVerdict: boolean;
  /** Decides only when the user-facing verdict metrics show no significant change (CPU time). */
  supporting?: boolean;
}
export type MetricSpecs = Record<string, MetricSpec>;

export interface InterleaveSettings {
  minPairs: number;
  maxPairs: number;
  targetHalfWidthPct: number;
  budgetMs: number;
  fixedPairs?: number;
  warmupRounds: number;
  alpha: number;
}

export const DEFAULT_AB_SETTINGS: InterleaveSettings = { minPairs: 5, maxPairs: 40, targetHalfWidthPct: 5, budgetMs: 120_000, warmupRounds: 1, alpha: 0.05 };

export interface MetricResult {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  inVerdict: boolean;
  /** Ratio of geometric means b / a. */
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  /** Bonferroni-adjusted two-sided p-value. */
  pValue: number | null;
  halfWidthPct: number | null;
  significant: boolean;
  change: 'better' | 'worse' | 'none';
  a: { geomean: number; n: number };
  b: { geomean: number; n: number };
}

export interface MetricComparisonSet {
  verdict: Verdict;
  design: 'paired' | 'independent';
  confidenceLevel: number;
  metricConfidenceLevel: number;
  correction: string;
  method: string;
  n: { a: number; b: number };
  metrics: Record<string, MetricResult>;
  moved: string[];
  tested: boolean;
}

export interface RunRecord {
  pair: number;
  side: SideKey;
  position: 0 | 1;
  values: Record<string, number>;
  durationMs: number;
}

export type StopReason = 'target' | 'budget' | 'max-pairs' | 'fixed';

export interface InterleaveState {
  pairs: number;
  next?: { pair: number; side: SideKey; warmup: boolean };
  comparison?: MetricComparisonSet;
  /** 0..1 of the expected work. */
  fraction: number;
}

export interface InterleaveResult {
  runs: RunRecord[];
  pairs: number;
  comparison: MetricComparisonSet;
  stopReason: StopReason;
  elapsedMs: number;
  settings: InterleaveSettings;
}

export interface InterleaveDeps {
  measure: (side: SideKey, run: { pair: number; warmup: boolean }) => Promise<Record<string, number>>;
  token?: CancellationToken;
  now?: () => number;
  onState?: (state: InterleaveState) => void;
}

export const orderOf = (pair: number): [SideKey, SideKey] => (pair % 2 === 0 ? ['a', 'b'] : ['b', 'a']);

/** Paired t-test of per-pair log ratios (df = pairs − 1), back-transformed to a ratio interval. */
function pairedLogRatio(a: readonly number[], b: readonly number[], alpha: number) {
  const n = a.length;
  if (n < 2) return undefined;
  const d = b.map((x, i) => Math.log(x) - Math.log(a[i]));
  const diff = mean(d);
  const se = Math.sqrt(sampleVariance(d) / n);
  if (se < 1e-12) return { ratio: Math.exp(diff), ciLow: Math.exp(diff), ciHigh: Math.exp(diff), pValue: Math.abs(diff) < 1e-12 ? 1 : 0, halfWidthPct: 0 };
  const t = tQuantile(1 - alpha / 2, n - 1);
  return {
    ratio: Math.exp(diff), ciLow: Math.exp(diff - t * se), ciHigh: Math.exp(diff + t * se),
    pValue: Math.min(1, 2 * tCdf(-Math.abs(diff / se), n - 1)), halfWidthPct: (Math.exp(t * se) - 1) * 100,
  };
}

const geomean = (xs: readonly number[]) => Math.exp(mean(xs.map(Math.log)));

/** The paired comparison of complete pairs so far. */
export function analysePairs(specs: MetricSpecs, runs: readonly RunRecord[], alpha: number): MetricComparisonSet {
  const byPair = new Map<number, Partial<Record<SideKey, RunRecord>>>();
  for (const r of runs) if (r.pair >= 0) byPair.set(r.pair, { ...byPair.get(r.pair), [r.side]: r });
  const complete = [...byPair.values()].filter((p): p is Record<SideKey, RunRecord> => !!p.a && !!p.b);
  const names = Object.keys(specs).filter((name) => complete.length > 0 && complete.every((p) => p.a.values[name] > 0 && p.b.values[name] > 0));
  const family = names.filter((n) => specs[n].inVerdict);
  const m = Math.max(1, family.length);
  const alphaEach = alpha / m;
  const metrics: Record<string, MetricResult> = {};
  for (const name of names) {
    const spec = specs[name];
    const a = complete.map((p) => p.a.values[name]);
    const b = complete.map((p) => p.b.values[name]);
    const e = pairedLogRatio(a, b, alphaEach);
    const pValue = e ? Math.min(1, e.pValue * m) : null;
    const significant = pValue !== null && pValue < alpha;
    const ratio = e ? e.ratio : geomean(b) / geomean(a);
    metrics[name] = {
      label: spec.label, unit: spec.unit, better: spec.better, inVerdict: spec.inVerdict, ratio,
      ciLow: e?.ciLow ?? null, ciHigh: e?.ciHigh ?? null, pValue, halfWidthPct: e?.halfWidthPct ?? null, significant,
      change: !significant ? 'none' : (ratio > 1) === (spec.better === 'higher') ? 'better' : 'worse',
      a: { geomean: geomean(a), n: a.length }, b: { geomean: geomean(b), n: b.length },
    };
  }
  const tested = complete.length >= 2;
  const moved = tested ? family.filter((n) => metrics[n].significant) : [];
  const primaryMoved = moved.filter((n) => !specs[n].supporting);
  const deciding = primaryMoved.length ? primaryMoved : moved;
  const verdict: Verdict = deciding.some((n) => metrics[n].change === 'worse') ? 'slower' : deciding.length ? 'faster' : 'no-significant-change';
  const labels = family.map((n) => specs[n].label).join(', ');
  return {
    verdict: tested ? verdict : 'no-significant-change', design: 'paired', confidenceLevel: 1 - alpha, metricConfidenceLevel: 1 - alphaEach,
    correction: m === 1 ? `one verdict metric (${labels}): no correction needed` : `Bonferroni over ${m} verdict metrics (${labels}): each tested at α = ${Number(alphaEach.toFixed(4))}`,
    method: tested ? `Paired t-test on the log ratio of each interleaved pair (${complete.length} pairs, A B B A order), two-sided; ratio of geometric means` : `No test: needs at least 2 pairs (${complete.length}); ratio of geometric means only`,
    n: { a: complete.length, b: complete.length }, metrics, moved, tested,
  };
}

/**
 * Two independent samples per metric (a stored baseline's runs, then this run's): Welch's t-test on
 * the logs, the same ratio scale and Bonferroni family as the paired design. Issue 11: stats/metrics.ts
 * `compareMetricSamples(specs, samples, 'independent')`.
 */
export function compareIndependent(specs: MetricSpecs, samples: Record<string, { a: readonly number[]; b: readonly number[] }>, alpha = 0.05): MetricComparisonSet {
  const names = Object.keys(specs).filter((n) => samples[n]?.a.length && samples[n]?.b.length && [...samples[n].a, ...samples[n].b].every((v) => v > 0));
  const family = names.filter((n) => specs[n].inVerdict);
  const m = Math.max(1, family.length);
  const alphaEach = alpha / m;
  const metrics: Record<string, MetricResult> = {};
  let nA = 0;
  let nB = 0;
  for (const name of names) {
    const spec = specs[name];
    const { a, b } = samples[name];
    nA = Math.max(nA, a.length);
    nB = Math.max(nB, b.length);
    const w = welchTTest(a.map(Math.log), b.map(Math.log), alphaEach);
    const ratio = geomean(b) / geomean(a);
    const pValue = w ? Math.min(1, w.pValue * m) : null;
    const significant = pValue !== null && pValue < alpha;
    metrics[name] = {
      label: spec.label, unit: spec.unit, better: spec.better, inVerdict: spec.inVerdict, ratio,
      ciLow: w ? Math.exp(w.ciLow) : null, ciHigh: w ? Math.exp(w.ciHigh) : null, pValue, halfWidthPct: w ? (Math.exp(w.tCritical * w.se) - 1) * 100 : null, significant,
      change: !significant ? 'none' : (ratio > 1) === (spec.better === 'higher') ? 'better' : 'worse',
      a: { geomean: geomean(a), n: a.length }, b: { geomean: geomean(b), n: b.length },
    };
  }
  const tested = nA >= 2 && nB >= 2;
  const moved = tested ? family.filter((n) => metrics[n].significant) : [];
  const verdict: Verdict = moved.some((n) => metrics[n].change === 'worse') ? 'slower' : moved.length ? 'faster' : 'no-significant-change';
  const labels = family.map((n) => specs[n].label).join(', ');
  return {
    verdict, design: 'independent', confidenceLevel: 1 - alpha, metricConfidenceLevel: 1 - alphaEach,
    correction: m === 1 ? `one verdict metric (${labels}): no correction needed` : `Bonferroni over ${m} verdict metrics (${labels}): each tested at α = ${Number(alphaEach.toFixed(4))}`,
    method: tested ? `Welch's t-test on log per-run values (${nA} vs ${nB} runs), two-sided; ratio of geometric means` : `No test: needs at least 2 runs on each side (${nA} vs ${nB}); ratio of geometric means only`,
    n: { a: nA, b: nB }, metrics, moved, tested,
  };
}

/** `+12.3% (95% CI +8.1% … +16.7%)`: a ratio as a change, with its interval. */
export function ratioText(m: Pick<MetricResult, 'ratio' | 'ciLow' | 'ciHigh'>, level: number): string {
  const pct = (r: number) => formatSignedPct((r - 1) * 100);
  const ci = m.ciLow !== null && m.ciHigh !== null ? ` (${Math.round(level * 1000) / 10}% CI ${pct(m.ciLow)} … ${pct(m.ciHigh)})` : '';
  return `${pct(m.ratio)}${ci}`;
}

export async function runAbComparison(specs: MetricSpecs, primary: string, settings: InterleaveSettings, deps: InterleaveDeps): Promise<InterleaveResult> {
  if (!specs[primary]) throw new RangeError(`The primary metric ${primary} is not among the metrics.`);
  if (!(settings.minPairs >= 2)) throw new RangeError(`minPairs must be at least 2 (got ${settings.minPairs}).`);
  const token = deps.token ?? neverCancelled;
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const runs: RunRecord[] = [];
  const pairTimes: number[] = [];
  let comparison: MetricComparisonSet | undefined;
  let pairs = 0;
  let stopReason: StopReason | undefined;
  const expected = () => {
    if (settings.fixedPairs !== undefined) return settings.fixedPairs;
    const hw = comparison?.metrics[primary]?.halfWidthPct;
    let n = hw ? Math.ceil(pairs * (hw / settings.targetHalfWidthPct) ** 2) : settings.minPairs;
    if (pairTimes.length) n = Math.min(n, Math.floor(settings.budgetMs / mean(pairTimes)));
    return Math.max(settings.minPairs, pairs, Math.min(n, settings.maxPairs));
  };
  const one = async (pair: number, side: SideKey, position: 0 | 1, warmup: boolean) => {
    throwIfCancelled(token);
    deps.onState?.({ pairs, next: { pair, side, warmup }, comparison, fraction: Math.min(1, (pairs + position * 0.5) / expected()) });
    const t = now();
    const values = await deps.measure(side, { pair, warmup });
    if (!(values[primary] > 0) || !Number.isFinite(values[primary])) throw new RangeError(`A run of side ${side} gave no positive ${primary} (${values[primary]}).`);
    if (!warmup) runs.push({ pair, side, position, values, durationMs: now() - t });
  };
  for (let w = 0; w < settings.warmupRounds; w++) {
    const [x, y] = orderOf(w);
    await one(-1, x, 0, true);
    await one(-1, y, 1, true);
  }
  for (let pair = 0; ; pair++) {
    if (settings.fixedPairs !== undefined) {
      if (pair >= settings.fixedPairs) { stopReason = 'fixed'; break; }
    } else if (pair >= settings.minPairs) {
      const hw = comparison?.metrics[primary]?.halfWidthPct;
      if (hw !== null && hw !== undefined && hw <= settings.targetHalfWidthPct) { stopReason = 'target'; break; }
      if (pair >= settings.maxPairs) { stopReason = 'max-pairs'; break; }
      if (now() - started + mean(pairTimes) > settings.budgetMs) { stopReason = 'budget'; break; }
    }
    const t = now();
    const [x, y] = orderOf(pair);
    await one(pair, x, 0, false);
    await one(pair, y, 1, false);
    pairTimes.push(now() - t);
    pairs = pair + 1;
    if (pairs >= 2) comparison = analysePairs(specs, runs, settings.alpha);
    deps.onState?.({ pairs, comparison, fraction: Math.min(1, pairs / expected()) });
  }
  return { runs, pairs, comparison: comparison ?? analysePairs(specs, runs, settings.alpha), stopReason, elapsedMs: now() - started, settings };
}
