import * as fs from 'node:fs';
import pidtree from 'pidtree';
import { delay } from '../common/cancellation';

/**
 * Stopping a target means stopping everything it started: `npm start` → sh → node app.js, plus any
 * workers it forked. We spawn the target as a process-group leader (detached) and signal the group,
 * and also signal every descendant found by PID (pidtree), because a child may have moved into a
 * group or session of its own — and, where the system tells, every process that still carries the
 * target's own environment variable although it left the tree (a daemon whose parent exited).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Alive and not a zombie: an exited process nobody has reaped yet (an orphan's exit in a container
 * whose init does not reap) can no longer be stopped, and waiting for it would wait for nothing.
 */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  try { return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
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
  /**
   * Processes the tree started that left it (see envProcesses.ts): signalled with the tree, by PID.
   * Called again before the hard stop, for any started during the grace period.
   */
  escaped?: () => number[];
}

/**
 * SIGTERM the tree, wait up to graceMs, SIGKILL whatever is left, and resolve once all are gone.
 * Resolves true when something had to be killed (it outlived the grace period).
 */
export async function killTree(pid: number, options: KillTreeOptions = {}): Promise<boolean> {
  const graceMs = options.graceMs ?? 2000;
  const pids = [...new Set([pid, ...(await descendantsOf(pid)), ...(options.escaped?.() ?? [])])];
  const send = (sig: NodeJS.Signals) => {
    if (options.processGroup) signal(-pid, sig);
    for (const p of pids) signal(p, sig);
  };
  const anyAlive = () => pids.some(isRunning);
  send('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (anyAlive() && Date.now() < deadline) await delay(25);
  if (!anyAlive()) return false;
  // Children forked during the grace period are found again before the hard stop.
  for (const p of [...(await descendantsOf(pid)), ...(options.escaped?.() ?? [])]) if (!pids.includes(p)) pids.push(p);
  send('SIGKILL');
  const hardDeadline = Date.now() + 5000;
  while (anyAlive() && Date.now() < hardDeadline) await delay(25);
  return true;
}

/**
 * Stops processes known only by PID (ones that left a tree, found again by `find` before the hard
 * stop): SIGTERM, up to graceMs, SIGKILL. Resolves true when something had to be killed.
 */
export async function stopProcesses(find: () => number[], graceMs = 2000): Promise<boolean> {
  const pids = find();
  if (!pids.length) return false;
  for (const p of pids) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isRunning) && Date.now() < deadline) await delay(25);
  const left = [...new Set([...pids.filter(isRunning), ...find()])];
  if (!left.length) return false;
  for (const p of left) signal(p, 'SIGKILL');
  const hardDeadline = Date.now() + 5000;
  while (left.some(isRunning) && Date.now() < hardDeadline) await delay(25);
  return true;
}
