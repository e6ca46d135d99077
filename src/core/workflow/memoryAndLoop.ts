/**
 * After a profiled load: what the allocations, the GC and the event loop did in the same window —
 * allocation sites by bytes per request (with --memory), GC share and pauses, loop delay, utilization,
 * blocking episodes charged to lines — in the shapes the JSON, the CLI and the editor read.
 */
import * as fs from 'node:fs/promises';
import { attributeProfile, type Attribution } from '../attribution';
import { whereLabel } from '../attribution/rank';
import { diskSources, readBoundedText } from '../attribution/sources';
import type { CancellationToken } from '../common/cancellation';
import type { Warning } from '../common/warnings';
import type { LoadResult } from '../load/result';
import { analyzeBlocking, type BlockingAnalysis, type BlockingLine, type LongTask } from '../loop/blocking';
import type { AllocationSamplingOptions } from '../memory/allocationSampler';
import { gcFromMonitor, gcFromProfile, type GcSummary } from '../memory/gc';
import { buildAllocationModel, type SamplingHeapProfile } from '../memory/heapProfile';
import { allocationLines, allocationSites, type AllocationLine, type AllocationSite } from '../memory/sites';
import type { ProfileModel } from '../profile/types';
import type { V8RawSignals } from '../v8/types';
import type { ProfiledLoad } from './profiledLoad';

export interface MemoryResult {
  /** Allocation sampling of the window (--memory); null when it was off. */
  allocations: {
    samplingIntervalBytes: number;
    /** Objects already collected by minor/major GCs are counted (allocation churn), not only survivors. */
    includesCollected: boolean;
    totalBytes: number;
    bytesPerRequest: number | null;
    sites: AllocationSite[];
    /** The sampling heap profile, saved beside the CPU profile (opens in Chrome DevTools' Memory panel). */
    heapProfilePath: string | null;
    /** Its flamegraph (CLI: `<heapprofile>.html`), when written. */
    flamegraphPath?: string;
  } | null;
  /** % of the window the main thread spent in GC pauses. */
  gcPct: number;
  gcPauses: GcSummary['gcPauses'];
  /** Where the GC figures come from: V8's record of each collection (`v8.GCProfiler`), or the CPU profile's GC samples. */
  gcSource: GcSummary['source'];
}

export interface EventLoopResult {
  /** Event-loop delay over the window (how late the monitor's tick ran); null when the monitor could not run. */
  delayMs: { p50: number; p90: number; p99: number; max: number; mean: number } | null;
  /** Share of the window the loop was busy (0–1); null without the monitor. */
  utilization: number | null;
  thresholdMs: number;
  /** Turns of the loop longer than thresholdMs. */
  episodes: number;
  blockedMs: number;
  longTasks: LongTask[];
  blockingLines: BlockingLine[];
  limitation?: string;
}

/** What front ends draw beside the JSON (not serialised). */
export interface MemoryAndLoopExtras {
  allocationModel?: ProfileModel;
  allocationAttribution?: Attribution;
  allocationLines?: AllocationLine[];
  blocking?: BlockingAnalysis;
}

export interface MemoryAndLoop {
  memory: MemoryResult;
  eventLoop: EventLoopResult;
  extras: MemoryAndLoopExtras;
  warnings: Warning[];
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** `<profile>.heapprofile` next to the CPU profile: the sampling heap profile as V8 wrote it. */
export function heapProfilePathFor(profilePath: string): string {
  return profilePath.replace(/\.cpuprofile$/, '') + '.heapprofile';
}

export async function analyzeMemoryAndLoop(input: {
  captured: Pick<ProfiledLoad, 'heapProfile' | 'heapSampling' | 'loop' | 'loopLimitation' | 'profiles'>;
  model: ProfileModel;
  profilePath: string;
  load: LoadResult;
  v8?: V8RawSignals;
  thresholdMs: number;
  limit?: number;
  token?: CancellationToken;
}): Promise<MemoryAndLoop> {
  const { captured, model, load } = input;
  const warnings: Warning[] = [];
  const extras: MemoryAndLoopExtras = {};
  const sourceMapUrls = captured.profiles.find((p) => p.thread === 'main')?.sourceMapUrls;
  // One source reader for both attributions: files are read and parsed once.
  const sources = diskSources((file) => readBoundedText(file, undefined, undefined, input.token));
  const requests = load.requests.total > 0 ? load.requests.total : null;

  let allocations: MemoryResult['allocations'] = null;
  if (captured.heapProfile) {
    const heapProfilePath = await saveHeapProfile(input.profilePath, captured.heapProfile);
    const allocationModel = await buildAllocationModel(captured.heapProfile, { sourceName: heapProfilePath ?? 'allocations', sourceMapUrls, token: input.token });
    // V8's inlining facts of the same run say which callees ran inside each allocating frame (allocationPlacement.ts).
    const attribution = await attributeProfile(allocationModel, { sourceMapUrls, sources, token: input.token, v8: input.v8, allocations: true });
    const total = allocationModel.durationUs;
    allocations = {
      samplingIntervalBytes: captured.heapSampling?.intervalBytes ?? 0,
      includesCollected: captured.heapSampling?.includeCollected ?? false,
      totalBytes: Math.round(total),
      bytesPerRequest: requests ? round(total / requests, 1) : null,
      sites: allocationSites(allocationModel, attribution, requests, input.limit ?? 15),
      heapProfilePath,
    };
    extras.allocationModel = allocationModel;
    extras.allocationAttribution = attribution;
    extras.allocationLines = allocationLines(allocationModel, attribution, requests, { where: (id) => whereLabel(attribution.functions[id]) });
  }

  const gc = (captured.loop && gcFromMonitor(captured.loop)) ?? gcFromProfile(model);
  const memory: MemoryResult = { allocations, gcPct: gc.gcPct, gcPauses: gc.gcPauses, gcSource: gc.source };

  const loop = captured.loop;
  const blocking = await analyzeBlocking(model, loop?.episodes ?? [], {
    thresholdMs: input.thresholdMs, episodeCount: loop?.episodeCount, v8: input.v8, sourceMapUrls, sources, token: input.token,
  });
  extras.blocking = blocking;
  await sources.flush?.();
  const eventLoop: EventLoopResult = {
    delayMs: loop ? { p50: round(loop.delay.p50), p90: round(loop.delay.p90), p99: round(loop.delay.p99), max: round(loop.delay.max), mean: round(loop.delay.mean) } : null,
    utilization: loop ? round(loop.utilization, 3) : null,
    thresholdMs: input.thresholdMs,
    episodes: blocking.episodes,
    blockedMs: blocking.blockedMs,
    longTasks: blocking.longTasks,
    blockingLines: blocking.blockingLines,
    ...(captured.loopLimitation ? { limitation: captured.loopLimitation } : {}),
  };
  if (captured.loopLimitation) {
    warnings.push({ code: 'LOOP_MONITOR_UNAVAILABLE', message: `No event-loop delay or GC pauses for this run: ${captured.loopLimitation}. The GC share comes from the CPU profile's (garbage collector) samples instead.` });
  }
  return { memory, eventLoop, extras, warnings };
}

async function saveHeapProfile(profilePath: string, profile: SamplingHeapProfile): Promise<string | null> {
  const file = heapProfilePathFor(profilePath);
  try {
    await fs.writeFile(file, JSON.stringify(profile));
    return file;
  } catch {
    return null;
  }
}

/** The sampling options of --memory. */
export function memorySampling(intervalBytes: number): AllocationSamplingOptions {
  return { intervalBytes, includeCollected: true };
}
