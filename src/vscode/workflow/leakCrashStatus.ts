/**
 * A leak check the app did not survive, as the editor shows it: the status bar state (how the app ended,
 * the heap measured before, in its tooltip) and the one-paragraph summary of the notification. Pure (no
 * vscode import), so the path from Check for Leaks to these words is tested in plain Node.
 */
import type { LeakSummary } from '../../core/workflow/leakCheck';
import type { StatusState } from '../status/render';

export function leakCrashView(name: string, leak: LeakSummary): { status: StatusState; summary: string } | undefined {
  const c = leak.crash;
  if (!c) return undefined;
  const exit = c.signal ? `killed by ${c.signal}` : c.code !== null ? `exited with code ${c.code}` : 'ended';
  return {
    status: {
      kind: 'leak', name, verdict: 'incomplete', bytesPerRequest: leak.bytesPerRequest, ciLow: leak.ciLow, ciHigh: leak.ciHigh, requests: leak.requests,
      crash: { outOfMemory: c.outOfMemory, exit, message: c.message, rungs: leak.rungs.map((r) => ({ requests: r.requests, heapUsedBytes: r.heapUsedBytes })) },
    },
    summary: `Leak check "${name}" incomplete: ${c.message} (The app's last output is in the Hotpath log.)`,
  };
}
