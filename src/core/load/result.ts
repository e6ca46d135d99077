import type { Warning } from '../common/warnings';
import { describeSamples } from '../stats/descriptive';
import type { LatencySummary } from './latencyRecorder';
import type { RouteResult } from './routes';

/**
 * One measured load run, normalised away from autocannon's shapes so the rest of Hotpath (stats,
 * baselines on disk, the CLI's JSON) never depends on autocannon's result format. Plain numbers and
 * arrays only: it must survive JSON.stringify/parse unchanged.
 */
export interface LoadResult {
  url: string;
  method: string;
  connections: number;
  pipelining: number;
  /** Wall-clock length of the measured phase as autocannon timed it (warm-up excluded). */
  durationSeconds: number;
  requests: {
    /** Completed responses of any status (errors and timeouts are not responses). */
    total: number;
    /** Responses completed in each measured second, in order. */
    perSecond: number[];
    /** Mean, sample stddev, min and max of `perSecond`. */
    mean: number;
    stddev: number;
    min: number;
    max: number;
  };
  /** Response latency of every response (any status), at microsecond resolution. */
  latencyMs: { mean: number; stddev: number; p50: number; p90: number; p99: number; max: number };
  /** Response bytes per second (per-second samples). */
  throughputBytesPerSec: { mean: number; stddev: number };
  /** Connection errors plus timeouts, counted once per failed connection as autocannon does. */
  errors: number;
  timeouts: number;
  /** Responses whose status was not 2xx. */
  non2xx: number;
  statusCodes: Record<string, number>;
  /** CPU this process (the load generator) used during the measured phase, as % of one core. */
  loadGeneratorCpuPct: number;
  /** Per route: one entry for a single-route run, one per `--request` otherwise (absent in results stored by older versions). */
  routes?: RouteResult[];
  warnings: Warning[];
}

/** The fields of autocannon's result object that normalisation reads (a subset of @types/autocannon's Result). */
export interface RawAutocannonResult {
  url: string;
  duration: number;
  connections: number;
  pipelining: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count?: number }>;
  requests: { total: number };
  throughput: { mean: number; stddev: number };
}

const round = (value: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/**
 * Builds a LoadResult from autocannon's result plus what the runner measured itself. Per-second
 * statistics come from our own per-second counts rather than autocannon's requests histogram (3
 * significant digits, no sequence), and latency from our µs histogram rather than autocannon's whole-ms one.
 */
export function normalizeResult(
  raw: RawAutocannonResult,
  extra: { method: string; perSecond: number[]; latencyMs: LatencySummary; loadGeneratorCpuPct: number; routes?: RouteResult[]; warnings?: Warning[] },
): LoadResult {
  const perSecond = describeSamples(extra.perSecond);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(raw.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    url: raw.url,
    method: extra.method,
    connections: raw.connections,
    pipelining: raw.pipelining,
    durationSeconds: raw.duration,
    requests: {
      total: raw.requests.total,
      perSecond: [...extra.perSecond],
      mean: round(perSecond.mean, 2),
      stddev: round(perSecond.stddev, 2),
      min: perSecond.min,
      max: perSecond.max,
    },
    latencyMs: { ...extra.latencyMs },
    throughputBytesPerSec: { mean: raw.throughput.mean, stddev: raw.throughput.stddev },
    errors: raw.errors,
    timeouts: raw.timeouts,
    non2xx: raw.non2xx,
    statusCodes,
    loadGeneratorCpuPct: round(extra.loadGeneratorCpuPct, 1),
    routes: (extra.routes ?? []).map((r) => ({ ...r, latencyMs: { ...r.latencyMs } })),
    warnings: [...(extra.warnings ?? [])],
  };
}
