/**
 * The flamegraph of a profile with worker threads: all threads together first, then each thread on its
 * own ("All threads | main | worker 1 (pool.js) …"), beside the run's other datasets (allocations).
 */
import type { FlamePayload } from '../../shared/flame/payload';
import type { LoadedProfile } from '../session';
import type { FlameChoice } from './flameWebview';

/** Payloads that have the main thread's lane already (a panel shown again must not add it twice). */
const laned = new WeakSet<FlamePayload>();

export function threadChoices(loaded: LoadedProfile, others: FlameChoice[] | undefined, mainLane?: (payload: FlamePayload) => void): FlameChoice[] | undefined {
  const threads = loaded.threads;
  if (!threads?.length) return others;
  const perThread = threads.map((t, i): FlameChoice => ({
    id: `thread-${i}`,
    // Program text (a worker's file name): the page shows it as text only.
    label: t.thread,
    build: () => {
      // The event loop's blocking episodes are the main thread's: their lane goes on its flame chart.
      if (t.thread === 'main' && mainLane && !laned.has(t.payload)) { laned.add(t.payload); mainLane(t.payload); }
      return t.payload;
    },
  }));
  return [{ id: 'cpu', label: 'All threads' }, ...perThread, ...(others ?? []).filter((c) => c.id !== 'cpu')];
}
