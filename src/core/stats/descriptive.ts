/** Small descriptive statistics shared by the load runner and the comparison. Pure, no dependencies. */

export interface SampleStats {
  mean: number;
  /** Sample standard deviation (divides by n − 1); 0 for fewer than two values. */
  stddev: number;
  min: number;
  max: number;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Unbiased sample variance (n − 1); NaN below two values, where it is undefined. */
export function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return NaN;
  const m = mean(values);
  let sum = 0;
  for (const v of values) sum += (v - m) ** 2;
  return sum / (values.length - 1);
}

/** Mean, stddev, min and max for display; all zero for an empty list, stddev 0 for a single value. */
export function describeSamples(values: readonly number[]): SampleStats {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const variance = values.length < 2 ? 0 : sampleVariance(values);
  return { mean: mean(values), stddev: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

/** Coefficient of variation (stddev / mean); NaN when it cannot be computed (n < 2 or mean 0). */
export function coefficientOfVariation(values: readonly number[]): number {
  const m = mean(values);
  if (values.length < 2 || m === 0) return NaN;
  return Math.sqrt(sampleVariance(values)) / Math.abs(m);
}
