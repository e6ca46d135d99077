/**
 * Many short CPU profiles of the same start, merged into one standard .cpuprofile: a 30 ms start
 * sampled every 100 µs has ~300 samples, ten of them ~3,000 — enough to say which lines cost what.
 *
 * Frames are matched along their call path by function name, script URL, line and column (script ids
 * differ from run to run). Each kept sample keeps its own duration; the runs follow each other in the
 * merged timeline. Frames of Hotpath's own preload (starting and stopping the profiler), and everything
 * under them, are left out: that time is Hotpath's, and is returned as `droppedUs`. Pure.
 */
import type { RawCpuProfile } from '../inspector/profilingRun';

interface CallFrame { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }
interface RawNode { id: number; callFrame: CallFrame; children?: number[]; positionTicks?: Array<{ line: number; ticks: number }>; hitCount?: number; deoptReason?: string }

interface MergedNode {
  id: number;
  callFrame: CallFrame;
  children: number[];
  childByKey: Map<string, number>;
  ticks: Map<number, number>;
  hitCount: number;
  deoptReason?: string;
}

export interface MergedProfile {
  profile: RawCpuProfile;
  /** Profiles merged (empty ones are skipped). */
  runs: number;
  samples: number;
  /** Time in Hotpath's own frames, left out. */
  droppedUs: number;
}

const frameKey = (cf: CallFrame) => `${cf.functionName}\0${cf.url}\0${cf.lineNumber}\0${cf.columnNumber}`;

export function mergeCpuProfiles(profiles: readonly RawCpuProfile[], isHotpathUrl: (url: string) => boolean): MergedProfile {
  const scriptIds = new Map<string, string>();
  const stableScriptId = (url: string, original: string) => {
    if (!url) return original === '0' ? '0' : original;
    let id = scriptIds.get(url);
    if (!id) scriptIds.set(url, (id = String(scriptIds.size + 1)));
    return id;
  };
  const nodes: MergedNode[] = [];
  const add = (cf: CallFrame): number => {
    const id = nodes.length + 1;
    nodes.push({ id, callFrame: { ...cf, scriptId: stableScriptId(cf.url, cf.scriptId) }, children: [], childByKey: new Map(), ticks: new Map(), hitCount: 0 });
    return id;
  };
  const root = add({ functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 });
  const samples: number[] = [];
  const weights: number[] = [];
  let droppedUs = 0;
  let runs = 0;
  let startTime = Infinity;

  for (const profile of profiles) {
    const raw = profile.nodes as RawNode[];
    const rawSamples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    if (!raw?.length || !rawSamples.length) continue;
    runs++;
    startTime = Math.min(startTime, profile.startTime);
    const byId = new Map<number, RawNode>();
    const parentOf = new Map<number, number>();
    for (const n of raw) byId.set(n.id, n);
    for (const n of raw) for (const c of n.children ?? []) parentOf.set(c, n.id);
    // Map each node of this run to a merged node, parents first; Hotpath's subtrees map to -1.
    const mapped = new Map<number, number>();
    const rawRoot = raw.find((n) => !parentOf.has(n.id)) ?? raw[0];
    mapped.set(rawRoot.id, root);
    const stack = [...(rawRoot.children ?? [])];
    while (stack.length) {
      const id = stack.pop()!;
      const n = byId.get(id);
      if (!n) continue;
      const parent = mapped.get(parentOf.get(id) ?? -1) ?? -1;
      let to = -1;
      if (parent !== -1 && !isHotpathUrl(n.callFrame.url)) {
        const p = nodes[parent - 1];
        const key = frameKey(n.callFrame);
        to = p.childByKey.get(key) ?? -1;
        if (to === -1) {
          to = add(n.callFrame);
          p.childByKey.set(key, to);
          p.children.push(to);
        }
        const m = nodes[to - 1];
        for (const t of n.positionTicks ?? []) m.ticks.set(t.line, (m.ticks.get(t.line) ?? 0) + t.ticks);
        if (n.deoptReason && !m.deoptReason) m.deoptReason = n.deoptReason;
      }
      mapped.set(id, to);
      for (const c of n.children ?? []) stack.push(c);
    }
    // Sample i lasts until sample i+1 (the next delta); the last one until endTime.
    let t = profile.startTime;
    const times = rawSamples.map((_, i) => (t += deltas[i] ?? 0));
    for (let i = 0; i < rawSamples.length; i++) {
      const weight = Math.max(0, (i + 1 < rawSamples.length ? times[i + 1] : profile.endTime) - times[i]);
      const to = mapped.get(rawSamples[i]) ?? -1;
      if (to === -1) { droppedUs += weight; continue; }
      samples.push(to);
      weights.push(weight);
      nodes[to - 1].hitCount++;
    }
  }
  if (!Number.isFinite(startTime)) startTime = 0;
  // Sample i starts where sample i-1's duration ends: deltas are the previous sample's weight.
  const timeDeltas = weights.map((_, i) => (i === 0 ? 0 : Math.round(weights[i - 1])));
  const total = timeDeltas.reduce((a, b) => a + b, 0) + (weights.length ? Math.round(weights[weights.length - 1]) : 0);
  const out = {
    nodes: nodes.map((n) => ({
      id: n.id, callFrame: n.callFrame, hitCount: n.hitCount,
      ...(n.children.length ? { children: n.children } : {}),
      ...(n.ticks.size ? { positionTicks: [...n.ticks].map(([line, ticks]) => ({ line, ticks })) } : {}),
      ...(n.deoptReason ? { deoptReason: n.deoptReason } : {}),
    })),
    startTime,
    endTime: startTime + total,
    samples,
    timeDeltas,
  };
  return { profile: out, runs, samples: samples.length, droppedUs };
}
