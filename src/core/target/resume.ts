/**
 * Script mode: the preload reports its process (with the inspector's URL) and then blocks in
 * `inspector.waitForDebugger()` until a debugger sends Runtime.runIfWaitingForDebugger. Node's
 * inspector can dispatch that message on the main thread before the wait begins (between the report
 * and the wait, when the process was descheduled there long enough for Hotpath to connect): it only
 * clears a "waiting" flag that the wait then sets again, and the process waits for ever. Seen once in
 * CI as a benchmark comparison that hung on its 33rd process; reproduced with a pause before the wait.
 *
 * So the run is sent again until the process says it left the wait (its `resumed` report), exits, or
 * the session closes. Sending it to a process that already runs does nothing.
 */
import type { CdpSession } from '../inspector/cdpClient';
import type { LaunchedTarget } from './launcher';

/** The first resend after this long; then doubling, at most every second. A resumed report takes one poll (20 ms). */
const FIRST_RESEND_MS = 200;
const MAX_RESEND_MS = 1000;

/** Resolves when `pid` has reported that it runs (or the target's command exited). */
function resumedOrExited(target: LaunchedTarget, pid: number): { done: Promise<void>; dispose(): void } {
  let sub: { dispose(): void } | undefined;
  const done = new Promise<void>((resolve) => {
    if (target.reader.reports.some((r) => r.type === 'resumed' && r.pid === pid)) return resolve();
    sub = target.onReport((r) => { if (r.type === 'resumed' && r.pid === pid) resolve(); });
    void target.exited.then(() => resolve());
  });
  return { done, dispose: () => sub?.dispose() };
}

/**
 * Lets a process waiting in the preload run, and makes sure it did: resolves once it reported so, the
 * command exited, or the session is gone (nothing left to release).
 */
export async function runPastWait(session: CdpSession, target: LaunchedTarget, pid: number): Promise<void> {
  const watch = resumedOrExited(target, pid);
  // A pause that ends early, with true, when the process reports; it leaves no timer behind.
  const pause = (ms: number) => new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void watch.done.then(() => { clearTimeout(timer); resolve(true); });
  });
  try {
    for (let wait = FIRST_RESEND_MS; ; wait = Math.min(wait * 2, MAX_RESEND_MS)) {
      // undefined: the call failed, so the session is closed (the process exited or closed its inspector).
      if (await session.trySend('Runtime.runIfWaitingForDebugger') === undefined) return;
      if (await pause(wait)) return;
    }
  } finally {
    watch.dispose();
  }
}
