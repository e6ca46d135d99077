/**
 * Confidence interval for the relative change `current / baseline − 1`, by Fieller's theorem.
 *
 * Dividing the difference's interval by the baseline mean would treat that mean as exact, but it is as
 * noisy as the current one; Fieller's interval accounts for both (and is asymmetric, as a ratio's should
 * be). It solves (m₂ − r·m₁)² = t²·(v₂ + r²·v₁) for r, where vᵢ are the variances of the means and t is
 * the same quantile (Welch df) as the difference's interval, so the percent interval excludes 0% exactly
 * when the difference's interval excludes 0.
 *
 * Returns undefined when the ratio has no bounded interval: baseline mean ≤ 0, or a baseline so noisy
 * that it is not itself distinguishable from 0 (t²·v₁ ≥ m₁²).
 */
export function fiellerRelativeInterval(
  baselineMean: number,
  varMeanBaseline: number,
  currentMean: number,
  varMeanCurrent: number,
  tCritical: number,
): { lowPct: number; highPct: number } | undefined {
  const m1 = baselineMean;
  const m2 = currentMean;
  if (!(m1 > 0)) return undefined;
  const t2 = tCritical * tCritical;
  const a = m1 * m1 - t2 * varMeanBaseline;
  if (!(a > 0)) return undefined;
  // With a > 0 this is varMeanCurrent·a + m2²·varMeanBaseline ≥ 0.
  const disc = m1 * m1 * varMeanCurrent + m2 * m2 * varMeanBaseline - t2 * varMeanBaseline * varMeanCurrent;
  const half = tCritical * Math.sqrt(Math.max(0, disc));
  const low = (m1 * m2 - half) / a;
  const high = (m1 * m2 + half) / a;
  return { lowPct: (low - 1) * 100, highPct: (high - 1) * 100 };
}
