import { loadProfile } from '../../src/core/profile';

/**
 * A share of the profile (Hotpath's percentages are of all the profile's time, idle included) as a share
 * of the time the app's thread was busy: pct / (1 − idle).
 *
 * Why tests need it: a closed-loop load sends the next request only when the load generator gets the CPU
 * to do so. With several test files at once on 2 cores the generator can be starved, the app then waits
 * for requests, and `(idle)` grows (beside 12 busy loops: 45–50% of a 2 s profile of an app whose every
 * request is fib(25)). What such a test asserts is where the app's own time went, which the idle time the
 * machine imposed does not change. Idle and the 100% are read from the saved .cpuprofile by Hotpath's own
 * reader, so they are the denominators of the percentages being scaled.
 */
export async function idleFraction(profilePath: string): Promise<number> {
  const model = await loadProfile(profilePath, { sourceMaps: false });
  return model.durationUs > 0 ? model.idleUs / model.durationUs : 0;
}

/** `pct` (of the whole profile) as a percentage of its busy time; `idle` from idleFraction. */
export function ofBusy(pct: number, idle: number): number {
  return idle >= 1 ? 0 : pct / (1 - idle);
}
