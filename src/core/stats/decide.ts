/**
 * How many observations would decide what an interval leaves open: whether a change is beyond a
 * threshold (say 5%). A result is decided once its interval lies on one side of the threshold, i.e. once
 * its half-width (log scale) is below the distance from the estimate to the threshold. The standard
 * error of more observations is projected from this one's: paired, s/√n; independent (verify), the
 * runs' part shrinks with the runs but the session term does not, so some questions no number of runs
 * can settle — `hotpath compare` cancels that term.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Design, MetricResult } from './metrics';

/** Beyond this many runs a side or pairs, the answer is "more than" it. */
export const MAX_TO_DECIDE = 200;

export type ToDecide =
  /** About `n` runs a side (independent) or pairs (paired) in all. */
  | { kind: 'count'; n: number }
  /** More than MAX_TO_DECIDE: the estimate sits almost on the threshold. */
  | { kind: 'too-many' }
  /** No number of runs: the session term alone makes the interval wider than the distance. */
  | { kind: 'session-floor'; floorPct: number };

/** The log-scale bound(s) a threshold of `pct` % sets in the metric's worse direction, or both. */
export function thresholdBounds(m: Pick<MetricResult, 'better'>, pct: number, side: 'worse' | 'both'): number[] {
  const worse = m.better === 'higher' ? Math.log(1 - Math.min(pct, 99.9) / 100) : Math.log(1 + pct / 100);
  if (side === 'worse') return [worse];
  return [Math.log(1 - Math.min(pct, 99.9) / 100), Math.log(1 + pct / 100)];
}

/** The bounds (log scale) the metric's interval still straddles. */
export function openBounds(m: Pick<MetricResult, 'ciLow' | 'ciHigh'>, bounds: number[]): number[] {
  if (m.ciLow === null || m.ciHigh === null) return bounds;
  const lo = Math.log(m.ciLow);
  const hi = Math.log(m.ciHigh);
  return bounds.filter((b) => lo < b && b < hi);
}

/**
 * The observations (runs a side for `independent`, pairs for `paired`) that would put the interval on one
 * side of each open bound, at the same confidence; undefined when nothing is open or there was no test.
 */
export function toDecide(m: MetricResult, design: Design, level: number, bounds: number[]): ToDecide | undefined {
  const open = openBounds(m, bounds);
  if (!open.length || m.se === null || m.se <= 0 || m.df === null || m.ciLow === null) return undefined;
  const d = Math.log(m.ratio);
  const target = Math.min(...open.map((b) => Math.abs(d - b)));
  const alpha = 1 - level;
  const t = (df: number) => tQuantile(1 - alpha / 2, Math.max(1, df));
  const n = Math.min(m.a.n, m.b.n);
  if (design === 'paired') {
    const sd = m.se * Math.sqrt(n);
    for (let k = n + 1; k <= MAX_TO_DECIDE; k++) if (t(k - 1) * sd / Math.sqrt(k) < target) return { kind: 'count', n: k };
    return { kind: 'too-many' };
  }
  const session = m.sessionSd ?? 0;
  const runVar = Math.max(0, m.se ** 2 - 2 * session ** 2);
  const floor = t(1e6) * Math.SQRT2 * session;
  if (floor >= target) return { kind: 'session-floor', floorPct: (Math.exp(floor) - 1) * 100 };
  // Keep this run's share of the degrees of freedom the runs could give (Satterthwaite ≤ 2n − 2).
  const share = Math.min(1, m.df / Math.max(1, 2 * n - 2));
  for (let k = n + 1; k <= MAX_TO_DECIDE; k++) {
    if (t(share * (2 * k - 2)) * Math.sqrt((runVar * n) / k + 2 * session ** 2) < target) return { kind: 'count', n: k };
  }
  return { kind: 'too-many' };
}

/** "about 12 pairs", "about 6 runs a side", "more than 200 pairs", "no number of runs (…)" */
export function toDecideText(x: ToDecide, design: Design): string {
  const unit = design === 'paired' ? 'pairs' : 'runs a side';
  if (x.kind === 'count') return `about ${x.n} ${unit}`;
  if (x.kind === 'too-many') return `more than ${MAX_TO_DECIDE} ${unit} (the estimate is almost on the threshold)`;
  return `no number of runs (the drift between sessions alone allows ±${Math.round(x.floorPct)}%; \`hotpath compare\` interleaves and cancels it)`;
}
