/**
 * How steady a load run was: the spread of its per-second request counts. One function, so the load
 * line (`2,323 req/s ±8.8% second to second`) and the stability check quote the same figure.
 */
import { coefficientOfVariation, mean } from '../stats/descriptive';

export interface PerSecondSpread {
  /** The seconds the figure is computed over. */
  seconds: number;
  /** Coefficient of variation of those seconds, in percent. */
  cvPct: number;
  mean: number;
  min: number;
  max: number;
  /** The first second was left out: connections were still opening (runs of more than 3 seconds). */
  firstSecondDropped: boolean;
}

/**
 * The steady-state spread. The first second is dropped when there are more than three: autocannon
 * opens its connections during it, so it is low in every run and says nothing about the app.
 * Undefined with fewer than two seconds, or no responses at all.
 */
export function perSecondSpread(perSecond: readonly number[]): PerSecondSpread | undefined {
  const firstSecondDropped = perSecond.length > 3;
  const samples = firstSecondDropped ? perSecond.slice(1) : [...perSecond];
  const cv = coefficientOfVariation(samples);
  if (!Number.isFinite(cv)) return undefined;
  return { seconds: samples.length, cvPct: 100 * cv, mean: mean(samples), min: Math.min(...samples), max: Math.max(...samples), firstSecondDropped };
}
