import * as hdr from 'hdr-histogram-js';

export interface LatencySummary { mean: number; stddev: number; p50: number; p90: number; p99: number; max: number }

/**
 * Response latencies at microsecond resolution.
 *
 * autocannon's own latency histogram stores whole milliseconds, so a fast endpoint's p99 reads 0 or 1 ms
 * and a real 0.4 → 0.8 ms regression is invisible (or shows as +100%). Each 'response' event carries the
 * hrtime-based latency as a float, which we record here in µs with 3 significant digits (HDR, the same
 * library autocannon uses). The plain-JS histogram is used so there is no WebAssembly memory to free.
 */
export class LatencyRecorder {
  private readonly histogram = hdr.build({
    useWebAssembly: false,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });

  recordMs(latencyMs: number): void {
    if (Number.isFinite(latencyMs) && latencyMs >= 0) this.histogram.recordValue(Math.max(1, Math.round(latencyMs * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** Milliseconds, rounded to the microsecond; all zero when nothing was recorded. */
  summary(): LatencySummary {
    const h = this.histogram;
    const ms = (us: number): number => Math.round(us) / 1000;
    if (h.totalCount === 0) return { mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0, max: 0 };
    // HDR answers a percentile with the top of its bucket (3 digits: 128 µs wide at 222 ms), which can
    // lie above the largest latency recorded (p99 222.847 ms, max 222.777 ms, seen in CI): a percentile
    // is never more than the max.
    const at = (p: number): number => ms(Math.min(h.getValueAtPercentile(p), h.maxValue));
    return {
      mean: ms(h.mean),
      stddev: ms(h.stdDeviation),
      p50: at(50),
      p90: at(90),
      p99: at(99),
      max: ms(h.maxValue),
    };
  }
}
