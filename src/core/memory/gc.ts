/**
 * GC time during the measured window: the share of the window the main thread spent in collections
 * and the distribution of their pauses, from the collections the loop monitor recorded with `v8.GCProfiler`
 * (one per collection: its main-thread duration and kind; only with --memory, as recording them costs
 * the app). Without them, the CPU profile's `(garbage collector)` samples give the share only.
 */
import type { MonitorReport } from '../loop/monitorScript';
import type { ProfileModel } from '../profile/types';

export interface GcSummary {
  /** % of the window spent in GC pauses on the main thread. */
  gcPct: number;
  /** null when only the profile's GC samples were available (no pause list). */
  gcPauses: { count: number; p50Ms: number; p99Ms: number; maxMs: number; totalMs: number; byKind: Record<string, number> } | null;
  source: 'gc-profiler' | 'cpu-profile';
}

/** perf_hooks constants.NODE_PERFORMANCE_GC_*: the kind of each collection (scavenge = minor, mark-compact = major). */
const KINDS: Record<number, string> = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** null when the monitor did not record the pauses (gcPauses off). */
export function gcFromMonitor(report: MonitorReport): GcSummary | null {
  const gc = report.gc;
  if (!gc) return null;
  const durations: number[] = [];
  const byKind: Record<string, number> = {};
  for (let i = 0; i + 1 < gc.entries.length; i += 2) {
    durations.push(gc.entries[i]);
    const kind = KINDS[gc.entries[i + 1]] ?? 'other';
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  durations.sort((a, b) => a - b);
  return {
    gcPct: report.windowMs > 0 ? round((100 * gc.totalMs) / report.windowMs) : 0,
    gcPauses: { count: gc.count, p50Ms: round(percentile(durations, 50), 3), p99Ms: round(percentile(durations, 99), 3), maxMs: round(durations[durations.length - 1] ?? 0, 3), totalMs: round(gc.totalMs), byKind },
    source: 'gc-profiler',
  };
}

/** Why a GC summary has no pause list, in a few words for the report and the checklist. */
export function noPauseListReason(memoryOn: boolean): string {
  return memoryOn ? 'from the CPU profile; no pause list: the event-loop monitor did not run' : 'from the CPU profile; --memory lists the pauses';
}

export function gcFromProfile(model: ProfileModel): GcSummary {
  return { gcPct: model.durationUs > 0 ? round((100 * model.gcUs) / model.durationUs) : 0, gcPauses: null, source: 'cpu-profile' };
}
