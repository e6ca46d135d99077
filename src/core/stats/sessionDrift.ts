/**
 * Drift between two sessions of runs (verify: a baseline recorded at one time, a verify at another), per
 * metric and per kind of app, as a log-scale standard deviation. Runs of one session share the machine's
 * state, so their spread says nothing about how far the next session lands; verify's intervals add this
 * term (logRatio.independentLogRatio). It is measured by `npm run bench -- stats` on three apps — a
 * CPU-bound one (bench/apps/tunable-server.js), an Express app whose requests wait on a timer and a socket
 * (test/fixtures/npm-apps/wait-api) and the pg app on PostgreSQL (test/fixtures/npm-apps/pg-reports) —
 * idle and under a CPU competitor; each kind's term is the largest over its apps and conditions.
 *
 * The kind is told from the runs themselves (appKind): a Node app that is CPU-bound keeps its one
 * JavaScript thread busy, so the CPU it uses per second of load (CPU per request × req/s) is close to a
 * core; an app whose requests wait on timers, sockets or a database uses a fraction of one. When the two
 * sessions disagree, or CPU time could not be read, the larger of the kinds' terms applies.
 *
 * The block between the markers is written by the calibration (`HOTPATH_BENCH_STATS_UPDATE=1`).
 */
export type AppKind = 'cpu' | 'io';

/** Cores of CPU (per second of load) from which an app counts as CPU-bound. */
export const CPU_BOUND_CORES = 0.6;

// <calibration:start>
/** Provisional: the CPU-bound terms are issue 11's calibration (80 trials); the I/O terms a smoke run's (see README, "Benchmarks"). */
export const SESSION_DRIFT: Record<'requestsPerSecond' | 'p99LatencyMs' | 'cpuMsPerRequest' | 'p50LatencyMs', Record<AppKind, number>> = {
  requestsPerSecond: { cpu: 0.13, io: 0.13 },
  p99LatencyMs: { cpu: 0.24, io: 0.24 },
  cpuMsPerRequest: { cpu: 0.023, io: 0.023 },
  p50LatencyMs: { cpu: 0.1, io: 0.1 },
};
// <calibration:end>

/** The term for a kind, or the larger of the kinds' when the kind is unknown. */
export function driftFor(terms: Record<AppKind, number>, kind: AppKind | undefined): number {
  return kind ? terms[kind] : Math.max(terms.cpu, terms.io);
}

interface KindRun { requestsPerSecond: number; cpuMsPerRequest?: number }

/** The cores an app used per second of load in a run (CPU per request × req/s), or undefined without CPU time. */
export function appCores(run: KindRun): number | undefined {
  return run.cpuMsPerRequest !== undefined && run.cpuMsPerRequest > 0 && run.requestsPerSecond > 0 ? (run.cpuMsPerRequest * run.requestsPerSecond) / 1000 : undefined;
}

/** The kind of one session (the median of its runs' cores), undefined when a run lacks CPU time. */
export function sessionKind(runs: readonly KindRun[]): AppKind | undefined {
  const cores = runs.map(appCores);
  if (!cores.length || cores.some((c) => c === undefined)) return undefined;
  const sorted = (cores as number[]).sort((a, b) => a - b);
  const mid = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return mid >= CPU_BOUND_CORES ? 'cpu' : 'io';
}

/** The kind both sessions agree on, else undefined (then the larger term applies). */
export function appKind(a: readonly KindRun[], b: readonly KindRun[]): AppKind | undefined {
  const ka = sessionKind(a);
  return ka !== undefined && ka === sessionKind(b) ? ka : undefined;
}
