/**
 * Annotations beyond CPU time, per file: allocations (a function's own bytes on its line, the bytes of
 * Node or dependency code on the user line that called it), objects retained by a leak, and lines that
 * held the event loop in blocking episodes. Editor-neutral and pure, like build.ts.
 */
import type { BlockingLine } from '../loop/blocking';
import type { AllocationLine, SiteInlining } from '../memory/sites';

export interface AllocationAnnotation {
  file: string;
  /** 1-based. */
  line: number;
  function: string;
  /** 'function': what the function on this line allocated itself; 'call': what code called on this line allocated; 'retained': objects a leak check found still alive. */
  kind: 'function' | 'call' | 'retained';
  bytes: number;
  bytesPerRequest: number | null;
  /** Share of all sampled bytes, %. */
  pct: number;
  calls: { function: string; where: string; bytes: number }[];
  /** Bucket 1–4 of the heat, by share. */
  heat: 1 | 2 | 3 | 4;
  /** 'function' lines: what ran inlined in the function's frames, or where its bytes ran inlined. */
  inlining?: SiteInlining;
}

export interface BlockedAnnotation {
  file: string;
  line: number;
  function: string;
  blockedMs: number;
  episodes: number;
  /** Lengths of the episodes this line ran in (ms, longest first; the longest 20). */
  episodeMs: number[];
  medianEpisodeMs: number;
  thresholdMs: number;
}

export interface RuntimeFileAnnotations {
  allocations: AllocationAnnotation[];
  blocked: BlockedAnnotation[];
}

/** Heat of an allocation line by its share of the sampled bytes (the same steps as CPU heat). */
export function allocationHeat(pct: number): 1 | 2 | 3 | 4 {
  if (pct >= 10) return 4;
  if (pct >= 3) return 3;
  if (pct >= 1) return 2;
  return 1;
}

const paintable = (file: string) => file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file);

function entry(map: Map<string, RuntimeFileAnnotations>, file: string): RuntimeFileAnnotations {
  let e = map.get(file);
  if (!e) map.set(file, (e = { allocations: [], blocked: [] }));
  return e;
}

export function runtimeAnnotations(input: {
  allocations?: readonly AllocationLine[];
  /** Lines of a leak check: the bytes retained per line (kind 'retained'). */
  retained?: readonly { function: string; file: string; line: number | null; retainedBytes: number; retainedBytesPerRequest: number }[];
  retainedTotal?: number;
  blocking?: readonly BlockingLine[];
  thresholdMs?: number;
  maxAllocationLines?: number;
}): Map<string, RuntimeFileAnnotations> {
  const map = new Map<string, RuntimeFileAnnotations>();
  for (const a of (input.allocations ?? []).slice(0, input.maxAllocationLines ?? 100)) {
    if (!paintable(a.file)) continue;
    entry(map, a.file).allocations.push({ file: a.file, line: a.line, function: a.function, kind: a.kind, bytes: a.bytes, bytesPerRequest: a.bytesPerRequest, pct: a.pct, calls: a.calls, heat: allocationHeat(a.pct), ...(a.inlining ? { inlining: a.inlining } : {}) });
  }
  const total = input.retainedTotal ?? (input.retained ?? []).reduce((s, r) => s + r.retainedBytes, 0);
  for (const r of input.retained ?? []) {
    if (!paintable(r.file) || r.line === null) continue;
    const pct = total > 0 ? (100 * r.retainedBytes) / total : 0;
    entry(map, r.file).allocations.push({ file: r.file, line: r.line, function: r.function, kind: 'retained', bytes: r.retainedBytes, bytesPerRequest: r.retainedBytesPerRequest, pct: Math.round(pct * 100) / 100, calls: [], heat: allocationHeat(pct) });
  }
  for (const b of input.blocking ?? []) {
    if (!paintable(b.file)) continue;
    entry(map, b.file).blocked.push({ file: b.file, line: b.line, function: b.function, blockedMs: b.blockedMs, episodes: b.episodes, episodeMs: b.episodeMs, medianEpisodeMs: b.medianEpisodeMs, thresholdMs: input.thresholdMs ?? 20 });
  }
  return map;
}
