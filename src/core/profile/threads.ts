/**
 * Several threads' profiles of one run (the main thread and its worker threads) as one model: a new
 * root whose children are the threads, each thread's own call tree under a frame named after it. The
 * editor's line heat, CodeLens, hovers, Hotspots view and "All threads" flamegraph are drawn from this
 * model, so a worker pool's functions are where the time went even when the main thread only waits.
 *
 * The 100% of every percentage is the threads' profiled time added up (each thread's sampled time,
 * idle included), so a line's share says what part of all the threads' time ran there. Times (ms)
 * are exact: each sample keeps its own duration. The samples are the threads' one after another (a
 * thread's last sample lasts until its own end), so this model has no common time axis: the flame
 * chart is drawn per thread.
 */
import { notAProfile } from './errors';
import { modelFromRaw } from './model';
import { readPadded } from './read';
import { scanProfile, type RawProfile } from './scanner';
import { applySourceMaps, readSourceMapSidecar } from './sourceMaps';
import type { FileReader, ProfileModel } from './types';
import { boundedTextReader } from '../common/boundedRead';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';

/** The thread label of a model that merges every thread of a run. */
export const ALL_THREADS = 'all threads';

export interface ThreadPart {
  /** `main`, `worker 1 (pool.js)`: the name its frame gets. Program text (a worker's file name): display safely. */
  thread: string;
  raw: RawProfile;
  /** Names the part in error messages. */
  source: string;
}

/** The one node of a scanned profile that is nobody's child (its root); throws when there is not exactly one. */
function rootOf(part: ThreadPart): number {
  const { raw } = part;
  const ids = new Set<number>();
  for (let k = 0; k < raw.childIds.length; k++) ids.add(raw.childIds[k]);
  let root = -1;
  for (let i = 0; i < raw.nodeCount; i++) {
    if (ids.has(raw.id[i]) || !Number.isNaN(raw.parentId[i])) continue;
    if (root >= 0) throw notAProfile(part.source, `it has more than one root node (nodes ${raw.id[root]} and ${raw.id[i]} have no parent)`);
    root = i;
  }
  if (root < 0) throw notAProfile(part.source, 'its call tree has no root');
  return root;
}

/**
 * One RawProfile of several threads: node ids are shifted so no two threads share one, strings are
 * re-interned, each thread's root node is renamed to the thread's label and hung under a new root.
 * Returns the merged profile and the node index of each part's thread frame.
 */
export function mergeRawProfiles(parts: ThreadPart[]): { raw: RawProfile; threadNodes: number[]; sampleStarts: number[] } {
  if (parts.length === 0) throw new Error('mergeRawProfiles: no profiles');
  const strings: string[] = [];
  const interned = new Map<string, number>();
  const intern = (s: string) => {
    let i = interned.get(s);
    if (i === undefined) { i = strings.length; interned.set(s, i); strings.push(s); }
    return i;
  };
  const roots = parts.map(rootOf);
  const n = 1 + parts.reduce((s, p) => s + p.raw.nodeCount, 0);
  const childTotal = parts.length + parts.reduce((s, p) => s + p.raw.childIds.length, 0);
  const tickTotal = parts.reduce((s, p) => s + p.raw.tickLine.length, 0);
  const sampleTotal = parts.reduce((s, p) => s + p.raw.samples.length, 0);
  const raw: RawProfile = {
    nodeCount: n,
    id: new Int32Array(n), functionName: new Int32Array(n), url: new Int32Array(n), scriptId: new Int32Array(n),
    lineNumber: new Int32Array(n), columnNumber: new Int32Array(n), hitCount: new Int32Array(n),
    parentId: new Float64Array(n).fill(Number.NaN), deoptReason: new Int32Array(n).fill(-1),
    childStart: new Int32Array(n), childCount: new Int32Array(n), childIds: new Int32Array(childTotal),
    tickStart: new Int32Array(n), tickCountOf: new Int32Array(n), tickLine: new Int32Array(tickTotal), tickCount: new Int32Array(tickTotal),
    strings, startTime: 0, endTime: 0, samples: new Int32Array(sampleTotal), timeDeltas: new Float64Array(sampleTotal), vscode: null,
  };
  // Node 0: the new root (id 0), its children the threads' roots.
  const root = intern('(root)');
  raw.functionName[0] = root;
  raw.url[0] = intern('');
  raw.scriptId[0] = intern('0');
  raw.lineNumber[0] = -1;
  raw.columnNumber[0] = -1;
  raw.childStart[0] = 0;
  raw.childCount[0] = parts.length;
  let child = parts.length;
  let tick = 0;
  let sample = 0;
  let node = 1;
  let nextId = 1;
  let sumDeltas = 0;
  // The time the previous thread's last sample lasted (until that thread's end): charged to it by the
  // next thread's first sample, so each sample keeps its own duration.
  let pending = 0;
  const threadNodes: number[] = [];
  const sampleStarts: number[] = [];
  parts.forEach((part, k) => {
    const p = part.raw;
    let minId = Infinity;
    let maxId = -Infinity;
    for (let i = 0; i < p.nodeCount; i++) { minId = Math.min(minId, p.id[i]); maxId = Math.max(maxId, p.id[i]); }
    const shift = nextId - minId;
    nextId = maxId + shift + 1;
    const mapString = new Int32Array(p.strings.length);
    p.strings.forEach((s, i) => { mapString[i] = intern(s); });
    const first = node;
    for (let i = 0; i < p.nodeCount; i++, node++) {
      raw.id[node] = p.id[i] + shift;
      raw.functionName[node] = i === roots[k] ? intern(part.thread) : mapString[p.functionName[i]];
      raw.url[node] = mapString[p.url[i]];
      raw.scriptId[node] = mapString[p.scriptId[i]];
      raw.lineNumber[node] = p.lineNumber[i];
      raw.columnNumber[node] = p.columnNumber[i];
      raw.hitCount[node] = p.hitCount[i];
      if (!Number.isNaN(p.parentId[i])) raw.parentId[node] = p.parentId[i] + shift;
      if (p.deoptReason[i] >= 0) raw.deoptReason[node] = mapString[p.deoptReason[i]];
      raw.childStart[node] = child + p.childStart[i];
      raw.childCount[node] = p.childCount[i];
      raw.tickStart[node] = tick + p.tickStart[i];
      raw.tickCountOf[node] = p.tickCountOf[i];
    }
    for (let c = 0; c < p.childIds.length; c++) raw.childIds[child + c] = p.childIds[c] + shift;
    child += p.childIds.length;
    raw.tickLine.set(p.tickLine, tick);
    raw.tickCount.set(p.tickCount, tick);
    tick += p.tickLine.length;
    raw.childIds[k] = p.id[roots[k]] + shift;
    threadNodes.push(first + roots[k]);
    sampleStarts.push(sample);
    if (p.samples.length === 0) return;
    let own = 0;
    for (let s = 0; s < p.samples.length; s++, sample++) {
      raw.samples[sample] = p.samples[s] + shift;
      const d = s === 0 ? (sample === 0 ? p.timeDeltas[0] : pending) : p.timeDeltas[s];
      raw.timeDeltas[sample] = d;
      sumDeltas += d;
      own += p.timeDeltas[s];
    }
    pending = Math.max(0, p.endTime - (p.startTime + own));
  });
  raw.endTime = sumDeltas + pending;
  return { raw, threadNodes, sampleStarts };
}

/** Where one thread is in a merged model: its frame and its samples (one run of them, in order). */
export interface ThreadSpan {
  thread: string;
  /** The profile file it came from. */
  source: string;
  /** The model node of the thread's frame (its own root, renamed). */
  node: number;
  /** Its samples are the model's `sampleStart .. sampleEnd - 1`. */
  sampleStart: number;
  sampleEnd: number;
  /** Nodes of the thread's own profile. */
  nodeCount: number;
}

/** Thread profiles as one model (see above), and where each thread is in it. */
export function mergedThreads(parts: ThreadPart[], source: string): { model: ProfileModel; spans: ThreadSpan[] } {
  const { raw, threadNodes, sampleStarts } = mergeRawProfiles(parts);
  const model = modelFromRaw(raw, source, ALL_THREADS);
  // A thread's frame is structure, like the root: never a hotspot, drawn as quietly as the root.
  for (const v of threadNodes) model.functions[model.nodes.func[v]].category = 'root';
  const spans = parts.map((p, k): ThreadSpan => ({
    thread: p.thread, source: p.source, node: threadNodes[k], sampleStart: sampleStarts[k], sampleEnd: k + 1 < parts.length ? sampleStarts[k + 1] : model.samples.length, nodeCount: p.raw.nodeCount,
  }));
  return { model, spans };
}

/** Thread profiles as one model (see above); each part's model alone is what `loadProfile` gives. */
export function mergedThreadModel(parts: ThreadPart[], source: string): ProfileModel {
  return mergedThreads(parts, source).model;
}

/** Which threads each function ran in (thread labels, in the order given), from a merged model's frames. */
export function threadsOfFunctions(model: ProfileModel): Map<number, string[]> {
  const { nodes } = model;
  const threadOf = new Int32Array(model.nodeCount).fill(-1);
  const labels: string[] = [];
  const out = new Map<number, string[]>();
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const p = nodes.parent[v];
    if (p < 0) continue;
    if (p === model.rootIndex) { threadOf[v] = labels.length; labels.push(model.functions[nodes.func[v]].name); continue; }
    threadOf[v] = threadOf[p];
    if (nodes.selfUs[v] <= 0 && nodes.totalUs[v] <= 0) continue;
    const f = nodes.func[v];
    const label = labels[threadOf[v]];
    const list = out.get(f);
    if (!list) out.set(f, [label]);
    else if (!list.includes(label)) list.push(label);
  }
  return out;
}

/** `worker 1 (pool.js)`, or `worker 1 (pool.js), worker 2 (pool.js)`, or `5 threads`: where a function ran (hotspot rows). */
export function threadSummary(threads: readonly string[]): string {
  if (threads.length === 0) return ALL_THREADS;
  const joined = threads.join(', ');
  return threads.length === 1 || joined.length <= 60 ? joined : `${threads.length} threads`;
}

/** Short note for a CodeLens or status bar: `worker 1 (pool.js)`, `2 worker threads`; nothing for the main thread alone. */
export function threadNote(threads: readonly string[] | undefined): string | undefined {
  if (!threads?.length || (threads.length === 1 && threads[0] === 'main')) return undefined;
  if (threads.length === 1) return threads[0];
  return threads.every((t) => t.startsWith('worker ')) ? `${threads.length} worker threads` : `${threads.length} threads`;
}

export interface ThreadFile {
  thread: string;
  path: string;
}

/**
 * Reads thread profiles of one run and builds their merged model, source-mapped with every thread's
 * runtime source maps. Throws like loadProfile when a file is not a usable profile.
 */
export async function loadThreadsModel(files: ThreadFile[], options: { source: string; token?: CancellationToken; fs?: FileReader } ): Promise<ProfileModel> {
  const token = options.token ?? neverCancelled;
  const parts: ThreadPart[] = [];
  const mapUrls: Record<string, string> = {};
  for (const f of files) {
    throwIfCancelled(token, 'Reading the profiles');
    const { buf, length } = await readPadded(f.path, token);
    parts.push({ thread: f.thread, raw: scanProfile(buf, length, f.path), source: f.path });
    Object.assign(mapUrls, await readSourceMapSidecar(f.path, token));
  }
  const model = mergedThreadModel(parts, options.source);
  await applySourceMaps(model, options.fs ?? boundedTextReader({ token }), mapUrls, token);
  return model;
}
