import * as os from 'node:os';

/**
 * How much CPU other programs used during a measured run, in cores (0.8 = four fifths of one core on
 * average): the whole machine's busy time (os.cpus(): user + nice + sys + irq over every core) minus
 * the app's CPU time and Hotpath's own (the load generator runs in this process).
 *
 * Why: two sessions of runs (a baseline, then a verify) are comparable only if the machine was about as
 * busy in both. A browser that went idle, or a build that started, between them moves req/s and even
 * the app's CPU per request (shared caches and cores), and no number of runs inside a session shows it.
 * This measures it, so a comparison can say so and widen its interval (stats/metrics: loadSensitivity).
 *
 * Not counted as the app: processes the app started itself (cluster workers, child processes) — they
 * show up as other programs.
 */
export interface CpuMark {
  atMs: number;
  machineBusyMs: number;
  ownMs: number;
}

export function markCpu(): CpuMark {
  let busy = 0;
  for (const cpu of os.cpus()) busy += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq;
  const own = process.cpuUsage();
  return { atMs: performance.now(), machineBusyMs: busy, ownMs: (own.user + own.system) / 1000 };
}

/**
 * Other programs' average CPU use between two marks, in cores; null when the app's CPU time is unknown
 * or the interval is too short to say (the kernel counts in 10 ms ticks).
 */
export function otherCpuCores(before: CpuMark, after: CpuMark, appCpuMs: number | null): number | null {
  const wallMs = after.atMs - before.atMs;
  if (appCpuMs === null || !(wallMs >= 500)) return null;
  const other = after.machineBusyMs - before.machineBusyMs - (after.ownMs - before.ownMs) - appCpuMs;
  // Tick rounding of three counters can make an idle machine read slightly negative.
  return Math.round((Math.max(0, other) / wallMs) * 1000) / 1000;
}
