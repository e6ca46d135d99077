/**
 * The CPU profiler's sampling interval when none is asked for, from the length of the measured window.
 *
 * V8's profiler costs per sample, not per request: each one interrupts the profiled thread to walk its
 * stack (a few µs there) and is then symbolized on V8's profiler thread (~25 µs of CPU), which on a
 * 2-core machine competes with the load generator (`npm run bench -- overhead` measures both). So a long
 * run can sample more sparsely and still have as many samples. A run aims for TARGET_SAMPLES over its
 * window: then a line at the painting threshold — 0.1% of the profile (annotate's `minLinePct`,
 * attribution's `minShare`) — holds at least 5 samples, and no label is painted on fewer
 * (MIN_LABEL_SAMPLES). The default load (10 s) samples every 2000 µs: ~5,000 samples.
 *
 * Never coarser than every 1000 µs on runs too short to reach the target (they keep V8's default, as
 * before), never coarser than every 10 ms; in steps of 500 µs, so the interval reads as chosen.
 */
export const TARGET_SAMPLES = 5000;
/** A line label needs at least this many samples' worth of time (besides 0.1% of the profile). */
export const MIN_LABEL_SAMPLES = 5;
export const MIN_AUTO_INTERVAL_MICROS = 1000;
export const MAX_AUTO_INTERVAL_MICROS = 10_000;
const STEP_MICROS = 500;

export function defaultSamplingInterval(durationSeconds: number | undefined): number {
  if (durationSeconds === undefined || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return MIN_AUTO_INTERVAL_MICROS;
  const us = Math.floor((durationSeconds * 1e6) / TARGET_SAMPLES / STEP_MICROS) * STEP_MICROS;
  return Math.min(MAX_AUTO_INTERVAL_MICROS, Math.max(MIN_AUTO_INTERVAL_MICROS, us));
}
