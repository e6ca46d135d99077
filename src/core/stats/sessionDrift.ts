/**
 * Drift between two sessions of runs (verify: a baseline recorded at one time, a verify at another), per
 * metric and per kind of app, as a log-scale standard deviation. Runs of one session share the machine's
 * state, so their spread says nothing about how far the next session lands; verify's intervals add this
 * term (logRatio.independentLogRatio). It is measured by `npm run bench -- stats` on three apps — a
 * CPU-bound one (bench/apps/tunable-server.js), an Express app whose requests wait on a timer and a socket
 * (test/fixtures/npm-apps/wait-api) and the pg app on PostgreSQL (test/fixtures/npm-apps/pg-reports) —
 * idle and under a CPU competitor; each kind's term is the largest over its apps and conditions.
 *
 * The kind is told from the runs themselves (appKind). A CPU-bound Node app keeps its one JavaScript
 * thread busy, so the CPU it uses per second of load (CPU per request × req/s) is most of a core: from
 * 0.6 cores on, a run counts as CPU-bound. An app whose requests wait on timers, sockets or a database
 * uses a fraction of one — but so does a CPU-bound app starved by other programs, so a run counts as
 * waiting on I/O only when it used at most 0.3 cores while at least half a core of the machine was left
 * idle (the app could have used more and did not). Runs in between, or without CPU figures, leave the
 * kind unknown. A session has a kind when all its runs do; the comparison uses a kind's term when both
 * sessions have that kind, and the larger of the kinds' terms otherwise.
 *
 * The block between the markers is written by the calibration (`HOTPATH_BENCH_STATS_UPDATE=1`).
 */
export type AppKind = 'cpu' | 'io';

/** Cores of CPU (per second of load) from which a run counts as CPU-bound. */
export const CPU_BOUND_CORES = 0.6;
/** At most this many cores, with at least IDLE_CORES of the machine unused, a run counts as waiting on I/O. */
export const IO_BOUND_CORES = 0.3;
export const IDLE_CORES = 0.5;

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

interface KindRun { requestsPerSecond: number; cpuMsPerRequest?: number; otherCpuCores?: number }

/** The cores an app used per second of load in a run (CPU per request × req/s), or undefined without CPU time. */
export function appCores(run: KindRun): number | undefined {
  return run.cpuMsPerRequest !== undefined && run.cpuMsPerRequest > 0 && run.requestsPerSecond > 0 ? (run.cpuMsPerRequest * run.requestsPerSecond) / 1000 : undefined;
}

/** The kind of one run on a machine of `machineCores`, or undefined when the run cannot tell. */
export function runKind(run: KindRun, machineCores: number): AppKind | undefined {
  const cores = appCores(run);
  if (cores === undefined) return undefined;
  if (cores >= CPU_BOUND_CORES) return 'cpu';
  const idle = run.otherCpuCores !== undefined ? machineCores - cores - run.otherCpuCores : undefined;
  return cores <= IO_BOUND_CORES && idle !== undefined && idle >= IDLE_CORES ? 'io' : undefined;
}

/** The kind of one session: the kind all its runs have, else undefined. */
export function sessionKind(runs: readonly KindRun[], machineCores: number): AppKind | undefined {
  const kinds = new Set(runs.map((r) => runKind(r, machineCores)));
  const [only] = kinds;
  return kinds.size === 1 ? only : undefined;
}

/** The kind both sessions have, else undefined (then the larger term applies). */
export function appKind(a: readonly KindRun[], b: readonly KindRun[], machineCores: number): AppKind | undefined {
  const ka = sessionKind(a, machineCores);
  return ka !== undefined && ka === sessionKind(b, machineCores) ? ka : undefined;
}
