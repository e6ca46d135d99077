/**
 * Heap growth per request from the leak check's rungs: each rung is one observation (heap used after a
 * forced full GC, at a cumulative request count), and the growth is the slope of an ordinary
 * least-squares line through them, with a t interval on n − 2 degrees of freedom. A slope is only a
 * leak when the whole interval is above a small floor: V8's own heap moves by tens of KB between
 * collections, and a few bytes per request over a short check is not a leak anyone can find.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';

export interface Rung {
  /** Cumulative requests of the leak check's load when the heap was measured (0: right after the warm-up). */
  requests: number;
  /** V8 heap used after a forced full GC. */
  heapUsedBytes: number;
  /** What the rung is: 'warmup', 'load' or 'idle' (the last one: after an idle period, no new requests). */
  phase: 'warmup' | 'load' | 'idle';
  /** Buffers and other memory outside the V8 heap (process.memoryUsage().external), after the same GC. */
  externalBytes?: number;
}

export type GrowthVerdict = 'growing' | 'stable';

export interface Growth {
  verdict: GrowthVerdict;
  bytesPerRequest: number;
  /** 95% confidence interval of bytesPerRequest. */
  ciLow: number;
  ciHigh: number;
  /** Observations used (rungs) and the interval's degrees of freedom. */
  n: number;
  df: number;
}

/** A slope whose whole interval is above this is a leak (bytes per request). */
export const GROWTH_FLOOR_BYTES_PER_REQUEST = 64;

const round = (x: number) => Math.round(x * 10) / 10;

export function growthOf(rungs: readonly Rung[], floor = GROWTH_FLOOR_BYTES_PER_REQUEST): Growth {
  const n = rungs.length;
  const xs = rungs.map((r) => r.requests);
  const ys = rungs.map((r) => r.heapUsedBytes);
  const mx = xs.reduce((a, b) => a + b, 0) / Math.max(1, n);
  const my = ys.reduce((a, b) => a + b, 0) / Math.max(1, n);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (n < 3 || sxx === 0) return { verdict: 'stable', bytesPerRequest: 0, ciLow: -Infinity, ciHigh: Infinity, n, df: Math.max(0, n - 2) };
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ys[i] - intercept - slope * xs[i]) ** 2;
  const df = n - 2;
  const se = Math.sqrt(sse / df / sxx);
  const t = tQuantile(0.975, df);
  const ciLow = slope - t * se;
  const ciHigh = slope + t * se;
  return { verdict: ciLow > floor ? 'growing' : 'stable', bytesPerRequest: round(slope), ciLow: round(ciLow), ciHigh: round(ciHigh), n, df };
}
