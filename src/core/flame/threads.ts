/**
 * The flamegraphs of a run's threads, from the model that merges them (profile/threads.ts): all threads
 * together (a frame per thread under the root; no flame chart, the threads ran at the same time), and
 * each thread on its own for the thread picker. A thread's flamegraph is cut from the merged one's frame
 * tree — the subtree under its frame, re-rooted there — so its inlined frames are the same placement as
 * the merged view's and the editor's (the merged model's attribution) without a second analysis, and a
 * search in it finds the same milliseconds as the editor's CodeLens of that thread's code. Its function
 * table is cut to the functions it draws (a search counts functions), and its flame chart is drawn from
 * its own samples, which are one run of the merged model's.
 */
import type { ProfileModel } from '../profile/types';
import type { ThreadSpan } from '../profile/threads';
import type { V8FunctionSignals } from '../v8/types';
import type { FlamePayload, FunctionTable } from '../../shared/flame/payload';
import type { InlineSource } from './inlined';
import { buildFlame } from './payload';
import { buildTimeline, DEFAULT_MAX_RUNS } from './timeline';

export interface ThreadFlame {
  thread: string;
  payload: FlamePayload;
  /** Per function of `payload`: the function it is in the merged payload (to carry per-function data over). */
  functionOf: Int32Array;
}

/** The rows `keep` (merged-table indices, ascending) of a function table, twins' `inlinedOf` renumbered. */
function cutFunctions(table: FunctionTable, keep: Int32Array): FunctionTable {
  const n = keep.length;
  const newIndex = new Int32Array(table.count).fill(-1);
  keep.forEach((old, i) => { newIndex[old] = i; });
  const pick = <T extends Int32Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as { new(n: number): T })(n);
    for (let i = 0; i < n; i++) out[i] = a[keep[i]];
    return out;
  };
  const out: FunctionTable = {
    count: n, name: pick(table.name), file: pick(table.file), line: pick(table.line), column: pick(table.column),
    category: pick(table.category), pkg: pick(table.pkg), mapped: pick(table.mapped),
  };
  if (table.inlinedOf) out.inlinedOf = Int32Array.from(keep, (old) => (table.inlinedOf![old] >= 0 ? newIndex[table.inlinedOf![old]] : -1));
  if (table.extras) out.extras = Object.fromEntries(Object.entries(table.extras).map(([k, v]) => [k, pick(v)]));
  return out;
}

/**
 * The merged payload of every thread (with `attribution`, the merged model's, inlined code in frames of
 * its own) and each thread's, in `spans` order. Each thread's meta names its thread and file.
 */
export function threadsFlamePayloads(model: ProfileModel, spans: readonly ThreadSpan[], options: { title: string; attribution?: InlineSource; maxTimelineRuns?: number }): { all: FlamePayload; threads: ThreadFlame[] } {
  const { payload: all, tree, nodeToFrame } = buildFlame(model, { title: `${options.title} — all ${spans.length} threads`, maxTimelineRuns: 0, attribution: options.attribution });
  const maxRuns = options.maxTimelineRuns ?? DEFAULT_MAX_RUNS;
  let sumDeltas = 0;
  for (let i = 0; i < model.timeDeltas.length; i++) sumDeltas += model.timeDeltas[i];
  const threads = spans.map((span): ThreadFlame => {
    const top = nodeToFrame[span.node];
    const end = tree.end[top];
    const count = end - top;
    // The functions it draws, and the functions its inlined frames are twins of.
    const used = new Uint8Array(all.functions.count);
    for (let i = top; i < end; i++) {
      used[tree.func[i]] = 1;
      const of = all.functions.inlinedOf?.[tree.func[i]] ?? -1;
      if (of >= 0) used[of] = 1;
    }
    const keep = Int32Array.from(used.keys()).filter((f) => used[f] === 1);
    const functions = cutFunctions(all.functions, keep);
    const newIndex = new Int32Array(all.functions.count).fill(-1);
    keep.forEach((old, i) => { newIndex[old] = i; });
    const parent = new Int32Array(count);
    const func = new Int32Array(count);
    parent[0] = -1;
    for (let i = 0; i < count; i++) {
      if (i > 0) parent[i] = tree.parent[top + i] - top;
      func[i] = newIndex[tree.func[top + i]];
    }
    const durationUs = tree.totalUs[top];
    // The thread's last sample lasts until the thread's own end: the next thread's first gap, or the model's end.
    const lastUs = span.sampleEnd < model.samples.length ? model.timeDeltas[span.sampleEnd] : model.endTime - (model.startTime + sumDeltas);
    const payload: FlamePayload = {
      version: all.version,
      meta: {
        title: `${options.title} — ${span.thread}`, source: span.source, thread: span.thread, durationUs,
        sampleCount: span.sampleEnd - span.sampleStart, nodeCount: span.nodeCount, warnings: all.meta.warnings,
      },
      strings: all.strings,
      functions,
      frames: { parent, func, selfUs: tree.selfUs.slice(top, end) },
      timeline: maxRuns > 0 ? buildTimeline(model, nodeToFrame, maxRuns, { start: span.sampleStart, end: span.sampleEnd, lastUs, frameOffset: top, durationUs }) : undefined,
    };
    return { thread: span.thread, payload, functionOf: keep };
  });
  return { all, threads };
}

/** Per-function signals keyed by the merged payload's functions, re-keyed for a thread's payload. */
export function signalsForThread(byFunction: ReadonlyMap<number, V8FunctionSignals>, functionOf: Int32Array): Map<number, V8FunctionSignals> {
  const out = new Map<number, V8FunctionSignals>();
  functionOf.forEach((old, f) => { const s = byFunction.get(old); if (s) out.set(f, s); });
  return out;
}
