/**
 * V8's sampling heap profile as a profile model. Its nodes have the CPU profile's callFrame shape, so
 * the profile is rewritten into the .cpuprofile layout with bytes where a CPU profile has time: each
 * sampled allocation is a "sample" whose duration is its size, in allocation order. The model, source
 * maps, attribution (call-site lines, own cost, packages) and the flamegraph then work unchanged, in
 * bytes. V8 records the allocating *function* (its declaration position), not the line inside it.
 */
import { boundedTextReader } from '../common/boundedRead';
import type { CancellationToken } from '../common/cancellation';
import { applySourceMaps, buildProfileModel } from '../profile';
import type { ProfileModel } from '../profile/types';

export interface HeapCallFrame { functionName: string; scriptId: string | number; url: string; lineNumber: number; columnNumber: number }
export interface SamplingHeapProfileNode { callFrame: HeapCallFrame; selfSize: number; id: number; children: SamplingHeapProfileNode[] }
export interface SamplingHeapProfile {
  head: SamplingHeapProfileNode;
  /** Each sampled allocation: its (scaled) size, node and order. Older V8 may leave it out. */
  samples?: { size: number; nodeId: number; ordinal: number }[];
}

/** Profiles written by Hotpath (`.heapprofile`, the format DevTools opens) and read back. */
export function isSamplingHeapProfile(value: unknown): value is SamplingHeapProfile {
  const head = (value as { head?: { callFrame?: unknown; children?: unknown } } | null)?.head;
  return typeof head === 'object' && head !== null && typeof head.callFrame === 'object' && Array.isArray(head.children);
}

/** Total bytes of a profile's nodes. */
export function totalBytes(profile: SamplingHeapProfile): number {
  let total = 0;
  const stack = [profile.head];
  while (stack.length) {
    const n = stack.pop()!;
    total += n.selfSize;
    for (const c of n.children) stack.push(c);
  }
  return total;
}

/**
 * The .cpuprofile text of a heap profile: nodes with children ids, and one sample per sampled
 * allocation (duration = bytes). When the sample list does not add up to the nodes' sizes (older V8,
 * or samples trimmed), one sample per node with its self size instead (no allocation order then).
 */
export function heapProfileAsCpuProfile(profile: SamplingHeapProfile): string {
  const nodes: { id: number; callFrame: HeapCallFrame; hitCount: number; children: number[] }[] = [];
  const selfOf = new Map<number, number>();
  const stack = [profile.head];
  while (stack.length) {
    const n = stack.pop()!;
    nodes.push({ id: n.id, callFrame: { ...n.callFrame, scriptId: String(n.callFrame.scriptId) }, hitCount: 0, children: n.children.map((c) => c.id) });
    selfOf.set(n.id, n.selfSize);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  const total = [...selfOf.values()].reduce((a, b) => a + b, 0);
  let list = (profile.samples ?? []).filter((s) => s.size > 0 && selfOf.has(s.nodeId)).sort((a, b) => a.ordinal - b.ordinal).map((s) => ({ nodeId: s.nodeId, size: s.size }));
  const sampled = list.reduce((a, s) => a + s.size, 0);
  if (!list.length || Math.abs(sampled - total) > total * 0.01) {
    list = [...selfOf].filter(([, size]) => size > 0).map(([nodeId, size]) => ({ nodeId, size }));
  }
  // Sample i lasts timeDeltas[i + 1]; the last one until endTime (the model's convention).
  const samples = list.map((s) => s.nodeId);
  const timeDeltas = list.map((_, i) => (i === 0 ? 0 : list[i - 1].size));
  const endTime = list.reduce((a, s) => a + s.size, 0);
  if (!samples.length) { samples.push(profile.head.id); timeDeltas.push(0); }
  return JSON.stringify({ nodes, startTime: 0, endTime, samples, timeDeltas });
}

/** The heap profile as a model in bytes (durationUs = total bytes), positions source-mapped. */
export async function buildAllocationModel(profile: SamplingHeapProfile, options: { sourceName: string; sourceMapUrls?: Record<string, string>; token?: CancellationToken }): Promise<ProfileModel> {
  const model = buildProfileModel(heapProfileAsCpuProfile(profile), { sourceName: options.sourceName, thread: 'main' });
  model.warnings = model.warnings.filter((w) => w.code !== 'PROFILE_EMPTY');
  await applySourceMaps(model, boundedTextReader({ token: options.token }), options.sourceMapUrls ?? {}, options.token);
  return model;
}
