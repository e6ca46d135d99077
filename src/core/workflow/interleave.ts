/**
 * The interleaved A/B engine: two variants measured alternately in pairs (A B, B A, A B, … — each
 * variant goes first equally often, so a trend within a pair cancels), the analysis paired, and pairs
 * added until the primary metric's ratio is known to ±target or a time budget is spent.
 *
 * What one run of a variant is — an HTTP load run, a timed command, a startup, a benchmark — is a
 * strategy the caller passes (`measure`), so every comparison Hotpath makes shares this engine.
 *
 * Stopping on the interval's *width*, not on significance, keeps the test honest: for roughly normal
 * log ratios the width depends on the spread alone, not on the estimated change, so stopping when it
 * is narrow does not favour a particular verdict (stopping when "significant" would inflate false
 * positives).
 */
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { availableSpecs, compareMetricSamples, type MetricComparisonSet, type MetricSpecs, type SideKey } from '../stats/metrics';

export type { SideKey } from '../stats/metrics';

export interface InterleaveSettings {
  /** Pairs before the stopping rule is looked at (at least 2: one pair says nothing about noise). */
  minPairs: number;
  /** Never more pairs than this. */
  maxPairs: number;
  /** Stop once the primary metric's interval is within ±this % of its ratio. */
  targetHalfWidthPct: number;
  /** Stop before a pair that would end after this many ms (minPairs are always run). */
  budgetMs: number;
  /** Exactly this many pairs, no adaptation (`--pairs N`). */
  fixedPairs?: number;
  /** Rounds of one run per side, discarded, before the first pair (cold disk caches, first compiles). */
  warmupRounds: number;
  /** Family-wise significance level of the verdict. */
  alpha: number;
}

/**
 * Defaults weighed on the calibration benchmark (`npm run bench -- stats`, see the README): under a CPU
 * competitor alone compare reached ±5% in 5–11 pairs, and ran to the budget when the machine was busier still;
 * A/A trials called a change in 0/20 and 2× and 10× changes were found in 20/20 and 20/20, while a 60 s budget found 1.1× less often than 120 s (17 vs 18 of 20).
 */
export const DEFAULT_INTERLEAVE: InterleaveSettings = {
  minPairs: 5,
  maxPairs: 40,
  targetHalfWidthPct: 5,
  budgetMs: 120_000,
  warmupRounds: 0,
  alpha: 0.05,
};

export interface RunRecord {
  /** 0-based pair; -1 for warm-up rounds. */
  pair: number;
  side: SideKey;
  /** 0 when the side went first in its pair. */
  position: 0 | 1;
  values: Record<string, number>;
  durationMs: number;
}

export type StopReason = 'target' | 'budget' | 'max-pairs' | 'fixed';

export interface InterleaveState {
  /** Pairs complete so far. */
  pairs: number;
  /** The run about to start (absent in the final report). */
  next?: { pair: number; side: SideKey; warmup: boolean };
  /** Pairs the run is expected to take (for a progress fraction). */
  expectedPairs: number;
  elapsedMs: number;
  /** The comparison so far (from 2 pairs on). */
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
  /** One measured run of a side; resolves the run's value per metric name. */
  measure: (side: SideKey, run: { pair: number; warmup: boolean }) => Promise<Record<string, number>>;
  token?: CancellationToken;
  /** ms clock (tests pass a fake). */
  now?: () => number;
  onState?: (state: InterleaveState) => void;
}

/** A B in even pairs, B A in odd ones: A B B A A B B A … */
export const orderOf = (pair: number): [SideKey, SideKey] => (pair % 2 === 0 ? ['a', 'b'] : ['b', 'a']);

export function checkSettings(s: InterleaveSettings): void {
  const bad = (what: string) => { throw new RangeError(what); };
  if (!(Number.isInteger(s.minPairs) && s.minPairs >= 2)) bad(`minPairs must be a whole number ≥ 2 (got ${s.minPairs}).`);
  if (!(Number.isInteger(s.maxPairs) && s.maxPairs >= s.minPairs)) bad(`maxPairs must be ≥ minPairs (got ${s.maxPairs}).`);
  if (s.fixedPairs !== undefined && !(Number.isInteger(s.fixedPairs) && s.fixedPairs >= 2)) bad(`pairs must be a whole number ≥ 2 (got ${s.fixedPairs}).`);
  if (!(s.targetHalfWidthPct > 0)) bad(`the target interval must be > 0% (got ${s.targetHalfWidthPct}).`);
  if (!(s.budgetMs > 0)) bad(`the time budget must be > 0 (got ${s.budgetMs} ms).`);
}

/** Pairs the rule will probably need: the width shrinks like 1/√n, capped by budget and maxPairs. */
function expectedPairs(s: InterleaveSettings, pairs: number, halfWidth: number | null | undefined, pairMs: number | undefined): number {
  if (s.fixedPairs !== undefined) return s.fixedPairs;
  let n = s.maxPairs;
  if (halfWidth !== null && halfWidth !== undefined && pairs >= 2) n = Math.ceil(pairs * (halfWidth / s.targetHalfWidthPct) ** 2);
  if (pairMs) n = Math.min(n, Math.max(s.minPairs, Math.floor(s.budgetMs / pairMs)));
  return Math.max(s.minPairs, pairs, Math.min(n, s.maxPairs));
}

export async function runInterleaved(specs: MetricSpecs, primary: string, settings: InterleaveSettings, deps: InterleaveDeps): Promise<InterleaveResult> {
  checkSettings(settings);
  if (!specs[primary]) throw new RangeError(`The primary metric ${primary} is not among the metrics.`);
  const token = deps.token ?? neverCancelled;
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const runs: RunRecord[] = [];
  const pairMs: number[] = [];
  let comparison: MetricComparisonSet | undefined;
  let pairs = 0;
  let stopReason: StopReason | undefined;
  const names = Object.keys(specs);

  const state = (next?: InterleaveState['next']): InterleaveState => {
    const avg = pairMs.length ? pairMs.reduce((a, b) => a + b, 0) / pairMs.length : undefined;
    const expected = expectedPairs(settings, pairs, comparison?.metrics[primary]?.halfWidthPct, avg);
    const done = pairs + (next && !next.warmup && next.side !== orderOf(next.pair)[0] ? 0.5 : 0);
    return { pairs, next, expectedPairs: expected, elapsedMs: now() - started, comparison, fraction: Math.min(1, done / expected) };
  };

  const measureOne = async (pair: number, side: SideKey, position: 0 | 1, warmup: boolean) => {
    throwIfCancelled(token);
    deps.onState?.(state({ pair, side, warmup }));
    const t = now();
    const values = await deps.measure(side, { pair, warmup });
    // The primary metric must be there; others may be missing (CPU time unreadable): they drop out of the analysis.
    for (const name of names) {
      const v = values[name];
      if ((name === primary || v !== undefined) && (!(v > 0) || !Number.isFinite(v))) throw new RangeError(`A run of side ${side} gave no positive ${name} (${v}).`);
    }
    const record: RunRecord = { pair: warmup ? -1 : pair, side, position, values, durationMs: now() - t };
    if (!warmup) runs.push(record);
    return record;
  };

  for (let w = 0; w < settings.warmupRounds; w++) {
    const [first, second] = orderOf(w);
    await measureOne(w, first, 0, true);
    await measureOne(w, second, 1, true);
  }

  for (let pair = 0; ; pair++) {
    if (settings.fixedPairs !== undefined) {
      if (pair >= settings.fixedPairs) { stopReason = 'fixed'; break; }
    } else if (pair >= settings.minPairs) {
      const hw = comparison?.metrics[primary]?.halfWidthPct;
      if (hw !== null && hw !== undefined && hw <= settings.targetHalfWidthPct) { stopReason = 'target'; break; }
      if (pair >= settings.maxPairs) { stopReason = 'max-pairs'; break; }
      const avg = pairMs.reduce((a, b) => a + b, 0) / pairMs.length;
      if (now() - started + avg > settings.budgetMs) { stopReason = 'budget'; break; }
    }
    const t = now();
    const [first, second] = orderOf(pair);
    await measureOne(pair, first, 0, false);
    await measureOne(pair, second, 1, false);
    pairMs.push(now() - t);
    pairs = pair + 1;
    if (pairs >= 2) comparison = analyse(specs, runs, settings.alpha);
    deps.onState?.(state());
  }
  return { runs, pairs, comparison: comparison ?? analyse(specs, runs, settings.alpha), stopReason, elapsedMs: now() - started, settings };
}

/** The paired comparison of the runs so far: pair i's A run against its B run, per metric. */
export function analyse(specs: MetricSpecs, runs: readonly RunRecord[], alpha: number): MetricComparisonSet {
  const byPair = new Map<number, Partial<Record<SideKey, RunRecord>>>();
  for (const r of runs) {
    if (r.pair < 0) continue;
    const p = byPair.get(r.pair) ?? {};
    p[r.side] = r;
    byPair.set(r.pair, p);
  }
  const complete = [...byPair.values()].filter((p): p is Record<SideKey, RunRecord> => !!p.a && !!p.b);
  const samples: Record<string, { a: number[]; b: number[] }> = {};
  for (const name of Object.keys(specs)) samples[name] = { a: complete.map((p) => p.a.values[name]), b: complete.map((p) => p.b.values[name]) };
  return compareMetricSamples(availableSpecs(specs, samples), samples, 'paired', { alpha });
}
