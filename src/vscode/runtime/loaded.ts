/** A run's allocation and event-loop results on the editor's profile: annotations, flamegraph data, status. */
import * as path from 'node:path';
import { runtimeAnnotations, type RuntimeFileAnnotations } from '../../core/annotate';
import type { LeakResult } from '../../core/workflow/leakCheck';
import type { ProfileResult } from '../../core/workflow/profileWithLoad';
import type { LoadedProfile } from '../session';

export function attachRuntime(loaded: LoadedProfile, result: ProfileResult): LoadedProfile {
  const extras = result.memoryExtras;
  const loop = result.eventLoop;
  const runtime = runtimeAnnotations({ allocations: extras?.allocationLines, blocking: loop?.blockingLines, thresholdMs: loop?.thresholdMs });
  const heapFile = result.memory?.allocations?.heapProfilePath;
  return {
    ...loaded,
    runtime,
    ...(extras?.allocationModel ? { allocation: { model: extras.allocationModel, requests: result.load.requests.total || null, title: heapFile ? path.basename(heapFile) : `${loaded.title} (allocations)`, attribution: extras.allocationAttribution } } : {}),
    ...(extras?.blocking?.lane.startUs.length ? { blocking: extras.blocking } : {}),
    ...(loop ? { eventLoop: loop } : {}),
  };
}

/** The retained lines of a leak check, for the editor. */
export function retainedAnnotations(result: LeakResult): Map<string, RuntimeFileAnnotations> {
  return runtimeAnnotations({ retained: result.leak.sites.filter((s) => s.category === 'user'), retainedTotal: result.leak.sites.reduce((s, x) => s + x.retainedBytes, 0) });
}
