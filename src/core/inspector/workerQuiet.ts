/**
 * Whether a worker thread is quiet: it runs no JavaScript of its own until something wakes it. V8's set-up
 * switches tracing on for the whole process for a moment, in one isolate at a time (v8/collector.ts); a
 * worker that runs code meanwhile — its start-up, a pool loading its task module after its first turn of
 * the event loop — can trace into that isolate's file for good. So the set-up waits for every worker to
 * be quiet: parked in Atomics.wait (a pool's idle thread), or with an event loop that idled through most
 * of the last interval (performance.eventLoopUtilization, the worker's own).
 */

/** One look at a worker, from an evaluation that interrupts it: [parked in Atomics.wait, loop idle ms, loop active ms]. */
export type WorkerState = [parked: boolean, idleMs: number, activeMs: number];

/**
 * The worker's state (named like all code Hotpath evaluates in a target: profile/selfFrames.ts). Parked:
 * the frame under ours is Atomics.wait (V8 serves interrupts there). The app's stack settings are set
 * aside for the moment and put back: it must not notice. -1: no event-loop figures in this Node.
 */
export const WORKER_STATE_EXPRESSION = `(function hotpathWorkerState() {
  const limit = Error.stackTraceLimit, prepare = Error.prepareStackTrace;
  let parked = false;
  try { Error.stackTraceLimit = 8; Error.prepareStackTrace = undefined; parked = /\\n\\s+at Atomics\\.wait \\(/.test(String(new Error().stack)); }
  finally { Error.stackTraceLimit = limit; Error.prepareStackTrace = prepare; }
  const elu = typeof performance === 'object' && typeof performance.eventLoopUtilization === 'function' ? performance.eventLoopUtilization() : null;
  return [parked, elu ? elu.idle : -1, elu ? elu.active : -1];
})()`;

/** At most this share of an interval busy: the loop is waiting (a timer or a socket now and then is fine). */
const QUIET_UTILIZATION = 0.1;

/**
 * Quiet from two looks `before` and `now`: parked now, or its loop idled in between and was busy for at
 * most a tenth of it. A loop that neither idled nor ran (both zero: still in its first, synchronous task,
 * before the loop started) is not quiet.
 */
export function isQuiet(before: WorkerState | undefined, now: WorkerState): boolean {
  if (now[0]) return true;
  if (!before || now[1] < 0 || before[1] < 0) return false;
  const idle = now[1] - before[1];
  const active = now[2] - before[2];
  return idle > 0 && active / (idle + active) <= QUIET_UTILIZATION;
}
