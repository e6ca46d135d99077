import type { CapturedProfile } from '../inspector/profilingRun';
import { cpuBetween, type ThreadCpu } from '../measure/threadCpu';

/** What sampling cost the app over the profiled window, measured in the app's own threads. */
export interface ProfilerCost {
  /** CPU time of V8's profiler thread (one per profiled isolate) over the window, ms. */
  profilerCpuMs: number;
  /** CPU time of all the app's other threads over the same window, ms: the app's own work. */
  appCpuMs: number;
  /** profilerCpuMs ÷ appCpuMs, in %: the CPU the app used per request went up by this much. */
  pct: number;
  /** Samples in the captured profiles. */
  samples: number;
  intervalMicros: number;
}

/** V8 names the thread that symbolizes and records samples "v8:ProfEvntProc" (Linux truncates names to 15 characters). */
const isProfilerThread = (name: string) => name.startsWith('v8:ProfEvntProc');

/** From two readings of the app's threads around the measured load (null where they cannot be read). */
export function measuredProfilerCost(before: ThreadCpu | null, after: ThreadCpu | null, profiles: readonly CapturedProfile[], intervalMicros: number): ProfilerCost | undefined {
  if (!before || !after) return undefined;
  const { totalUs, partUs } = cpuBetween(before, after, isProfilerThread);
  const appUs = totalUs - partUs;
  // No profiler thread seen (another runtime names it otherwise), or an app that did nothing: nothing to state.
  if (partUs <= 0 || appUs <= 0) return undefined;
  const samples = profiles.reduce((n, p) => n + (p.profile.samples?.length ?? 0), 0);
  return { profilerCpuMs: partUs / 1000, appCpuMs: appUs / 1000, pct: (100 * partUs) / appUs, samples, intervalMicros };
}
