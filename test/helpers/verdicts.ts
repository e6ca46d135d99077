/**
 * How far a verdict test was from failing, in the test's output: each metric's ratio with its interval
 * and how many half-widths of that interval lie between the ratio and no change. The chance-of-failing
 * comments beside the verdict tests were sized from these lines (`npm test` logs, the flake census).
 */

interface Metric { label?: string; ratio?: number | null; ciLow?: number | null; ciHigh?: number | null; inVerdict?: boolean }

/**
 * Half-widths (on the log scale) between the estimate and no change (ratio 1): the verdict flips when
 * this falls below 1. A comparison that rests on several metrics is as safe as its best-separated one.
 */
export function separation(m: Metric): number | null {
  if (!m.ratio || !m.ciLow || !m.ciHigh || m.ciLow <= 0) return null;
  const half = (Math.log(m.ciHigh) - Math.log(m.ciLow)) / 2;
  return half > 0 ? Math.abs(Math.log(m.ratio)) / half : null;
}

/** One line: `# <what>: <verdict>; req/s ×2.91 (2.41 … 3.52, 6.2 half-widths from 1); …`. */
export function logVerdict(what: string, comparison: { verdict?: string; metrics?: Record<string, Metric>; pairs?: number }): void {
  const parts = Object.entries(comparison.metrics ?? {}).filter(([, m]) => m && m.ratio).map(([name, m]) => {
    const s = separation(m);
    return `${m.label ?? name} ×${m.ratio!.toFixed(3)} (${m.ciLow?.toFixed(3)} … ${m.ciHigh?.toFixed(3)}${s === null ? '' : `, ${s.toFixed(1)} half-widths from 1`})`;
  });
  console.log(`      # ${what}: ${comparison.verdict}${comparison.pairs ? ` after ${comparison.pairs} pairs` : ''}; ${parts.join('; ')}`);
}
