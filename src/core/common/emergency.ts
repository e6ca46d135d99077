/**
 * The last things to do when the user insists on stopping now (a second Ctrl-C, SIGTERM or SIGHUP
 * while the graceful stop still runs): kill the process groups Hotpath started, switch off V8 tracing
 * it switched on in a process it only attached to, remove its temporary files. Each resource that
 * needs this registers a step while it exists; `runEmergencyStops` runs them all within a time bound.
 */
import type { Disposable } from './disposable';

type Step = () => void | Promise<unknown>;
const steps = new Set<Step>();

export function onEmergencyStop(step: Step): Disposable {
  steps.add(step);
  return { dispose: () => { steps.delete(step); } };
}

/**
 * Runs every registered step (synchronous parts first, at once); resolves within `timeoutMs`. Newest
 * first, as resources are released: an install running in a worktree is killed before the worktree
 * is removed.
 */
export async function runEmergencyStops(timeoutMs = 1000): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (const step of [...steps].reverse()) {
    try {
      const r = step();
      if (r && typeof (r as Promise<unknown>).then === 'function') pending.push((r as Promise<unknown>).catch(() => undefined));
    } catch { /* the next step still runs */ }
  }
  steps.clear();
  if (!pending.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(pending), new Promise((r) => { timer = setTimeout(r, timeoutMs); })]);
  clearTimeout(timer);
}
