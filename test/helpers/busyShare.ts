import * as fs from 'node:fs';

/**
 * A share of the profile (Hotpath's percentages are of all the profile's time, idle included) as a share
 * of the time the app's thread was busy: pct / (1 − idle).
 *
 * Why tests need it: a closed-loop load sends the next request only when the load generator gets the CPU
 * to do so. With several test files at once on 2 cores the generator can be starved, the app then waits
 * for requests, and `(idle)` grows — in one run 70% of a 2 s profile of an app whose every request is
 * fib(25) (fibonacciHot read 26% of the profile). What such a test asserts is where the app's own time
 * went, which the idle time the machine imposed does not change. The idle part is read from the raw
 * .cpuprofile Hotpath saved (V8's `(idle)` samples, weighted by their time deltas).
 */
export function idleFraction(profilePath: string): number {
  const p = JSON.parse(fs.readFileSync(profilePath, 'utf8')) as { nodes: { id: number; callFrame: { functionName: string } }[]; samples: number[]; timeDeltas: number[] };
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let all = 0;
  let idleUs = 0;
  p.samples.forEach((id, i) => {
    const d = Math.max(0, p.timeDeltas[i] ?? 0);
    all += d;
    if (idle.has(id)) idleUs += d;
  });
  return all > 0 ? idleUs / all : 0;
}

/** `pct` (of the whole profile) as a percentage of its busy time; `idle` from idleFraction. */
export function ofBusy(pct: number, idle: number): number {
  return idle >= 1 ? 0 : pct / (1 - idle);
}
