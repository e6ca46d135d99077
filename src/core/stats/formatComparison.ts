import { formatSignedPct } from '../../shared/text/numbers';
import type { MetricComparisonSet, MetricResult, Verdict } from './metrics';

/** 0.975 → "97.5%". */
export function percentLevel(level: number): string {
  return `${Number((level * 100).toFixed(2))}%`;
}

/** "+31.2%", "−22%": the shared formatter (a real minus sign, one decimal below 10% unless `digits` says otherwise). */
export const signedPercent = formatSignedPct;

/** A ratio as the % change it means: 1.312 → "+31.2%", 0.78 → "−22%" (never below −100%). */
export function ratioPercent(ratio: number, digits?: number): string {
  return formatSignedPct((ratio - 1) * 100, digits);
}

/** "97.5% CI +27.0% … +35.4%", or "untested". */
export function ratioInterval(m: Pick<MetricResult, 'ciLow' | 'ciHigh'>, level: number): string {
  if (m.ciLow === null || m.ciHigh === null) return 'untested';
  return `${percentLevel(level)} CI ${ratioPercent(m.ciLow, 1)} … ${ratioPercent(m.ciHigh, 1)}`;
}

/** "±4.1%", "±38%", "±>999%": how precisely a ratio is known (an interval from two pairs can be astronomically wide). */
export function halfWidthText(pct: number): string {
  if (!(pct < 1000)) return '±>999%';
  return `±${pct.toFixed(pct < 10 ? 1 : 0)}%`;
}

export const VERDICT_TEXT: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'slower',
  'no-significant-change': 'no significant change',
};

/** "req/s and p99", "p99": the verdict metrics that moved, by their labels. */
export function movedText(set: Pick<MetricComparisonSet, 'moved' | 'metrics'>): string {
  const labels = set.moved.map((n) => set.metrics[n].label);
  return labels.length <= 1 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

/** One line, e.g. "req/s +31.2% (97.5% CI +27.0% … +35.4%), p99 −22% (97.5% CI …) — faster (req/s and p99 moved)". */
export function formatSummary(set: MetricComparisonSet): string {
  const parts = Object.values(set.metrics).filter((m) => m.inVerdict).map((m) => {
    const note = m.ciLow === null ? ' (untested)' : ` (${ratioInterval(m, set.metricConfidenceLevel)})`;
    return `${m.label} ${ratioPercent(m.ratio, 1)}${note}`;
  });
  const verdict = !set.tested
    ? 'no significant change (too few runs to test)'
    : set.moved.length ? `${VERDICT_TEXT[set.verdict]} (${movedText(set)} moved)` : VERDICT_TEXT[set.verdict];
  return `${parts.join(', ')} \u2014 ${verdict}`;
}
