import pidtree from 'pidtree';
import { delay } from '../common/cancellation';

/**
 * Stopping a target means stopping everything it started: `npm start` → sh → node app.js, plus any
 * workers it forked. We spawn the target as a process-group leader (detached) and signal the group,
 * and also signal every descendant found by PID (pidtree), because a child may have moved into a
 * group or session of its own.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function descendantsOf(pid: number): Promise<number[]> {
  try {
    return await pidtree(pid);
  } catch {
    return []; // the root is already gone: nothing left to list
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try { process.kill(pid, sig); } catch { /* already gone */ }
}

export interface KillTreeOptions {
  /** Time between SIGTERM and SIGKILL: lets the app flush and the inspector detach. */
  graceMs?: number;
  /** Whether `pid` leads its own process group (spawned with detached: true). */
  processGroup?: boolean;
}

/** SIGTERM the tree, wait up to graceMs, SIGKILL whatever is left, and resolve once all are gone. */
export async function killTree(pid: number, options: KillTreeOptions = {}): Promise<void> {
  const graceMs = options.graceMs ?? 2000;
  const pids = [pid, ...(await descendantsOf(pid))];
  const send = (sig: NodeJS.Signals) => {
    if (options.processGroup) signal(-pid, sig);
    for (const p of pids) signal(p, sig);
  };
  send('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) await delay(25);
  if (pids.some(isAlive)) {
    // Children forked during the grace period are found again before the hard stop.
    for (const p of await descendantsOf(pid)) if (!pids.includes(p)) pids.push(p);
    send('SIGKILL');
    const hardDeadline = Date.now() + 5000;
    while (pids.some(isAlive) && Date.now() < hardDeadline) await delay(25);
  }
}
