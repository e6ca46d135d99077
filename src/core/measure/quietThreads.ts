import type { Logger } from '../common/logger';
import { threadCpu } from './threadCpu';

/**
 * Quiet: the process's other threads ran, or waited to run, at most this share of one core over an
 * interval, and none is runnable at its end. The wait counts because on a busy machine a thread that
 * wants the CPU may get little of it: a worker starting up (or a spinning one) starved to under 10% of a
 * core would otherwise look idle (CI, a unit test beside 4 other suites on 2 cores: quiet after 609 ms
 * while a thread spun). The state counts because the kernel books a wait only when it ends: a thread
 * starved for longer than an interval shows no wait there yet (CI again: quiet after 654 ms, a
 * spinning thread at nice 19 beside burners).
 */
const QUIET_SHARE = 0.1;
const INTERVAL_MS = 100;
/**
 * Quiet intervals in a row: a starting worker can look idle for one interval on a busy machine (its
 * thread not scheduled, or waiting on a disk read); CI once set V8 up in such a gap (Node 24).
 */
const QUIET_INTERVALS = 3;

/**
 * Waits (at most `maxMs`) until the threads of a local process other than its main thread are quiet.
 * A worker thread the app created before Hotpath attached may still be starting up — creating its
 * isolate, loading its modules — without the inspector having announced it yet (Node announces a worker
 * once its thread runs, and only one created after NodeWorker.enable waits for the debugger). V8's set-up
 * switches tracing on for the whole process for a moment; such a worker would trace into the main
 * thread's file for good (v8/collector.ts). Its start-up burns CPU on a thread of its own, which
 * /proc shows whether or not the inspector knows the worker yet. Resolves at once where /proc cannot be
 * read (not Linux, another user's process): then the hub's own wait (workerQuiet.ts) is all there is.
 */
export async function waitForQuietThreads(pid: number, maxMs: number, logger: Logger): Promise<void> {
  const started = Date.now();
  let before = threadCpu(pid);
  let at = Date.now();
  let quiet = 0;
  while (before && Date.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS).unref());
    const after = threadCpu(pid);
    const now = Date.now();
    if (!after) return;
    let otherUs = 0;
    let runnable = false;
    for (const [tid, t] of after) {
      if (tid === String(pid)) continue;
      const was = before.get(tid);
      otherUs += Math.max(0, t.us - (was?.us ?? 0)) + Math.max(0, t.waitUs - (was?.waitUs ?? 0));
      if (t.runnable) runnable = true;
    }
    quiet = !runnable && otherUs <= QUIET_SHARE * (now - at) * 1000 ? quiet + 1 : 0;
    if (quiet >= QUIET_INTERVALS) {
      if (now - started > (QUIET_INTERVALS + 1) * INTERVAL_MS) logger.info(`the app's other threads were quiet after ${now - started} ms`);
      return;
    }
    before = after;
    at = now;
  }
  if (before) logger.info(`the app's other threads still used CPU after ${Date.now() - started} ms; V8's set-up goes ahead`);
}
