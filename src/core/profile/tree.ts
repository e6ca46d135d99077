/**
 * The call tree from a scanned profile: node ids → indices, parent links, children (CSR), a pre-order,
 * depths, and self/total time from the samples. Validates what JSON cannot: dangling child ids, nodes
 * with two parents, cycles, samples naming unknown nodes.
 */
import { notAProfile } from './errors';
import type { RawProfile } from './scanner';

export interface CallTree {
  rootIndex: number;
  parent: Int32Array;
  depth: Int32Array;
  childOffsets: Int32Array;
  childIndex: Int32Array;
  preorder: Int32Array;
  /** Node index per sample (the raw samples array, rewritten in place). */
  samples: Int32Array;
  selfUs: Float64Array;
  totalUs: Float64Array;
  durationUs: number;
}

/** Maps node ids to indices: a dense table when ids are compact (they are in V8 output), else a Map. */
class IdIndex {
  private readonly table: Int32Array | null = null;
  private readonly map: Map<number, number> | null = null;

  constructor(ids: Int32Array, source: string) {
    const n = ids.length;
    let min = 0;
    let max = -1;
    for (let i = 0; i < n; i++) {
      const id = ids[i];
      if (id < min) min = id;
      if (id > max) max = id;
    }
    if (min >= 0 && max < 4 * n + 1024) {
      const table = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < n; i++) {
        if (table[ids[i]] !== -1) throw duplicateId(source, ids[i]);
        table[ids[i]] = i;
      }
      this.table = table;
    } else {
      const map = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        if (map.has(ids[i])) throw duplicateId(source, ids[i]);
        map.set(ids[i], i);
      }
      this.map = map;
    }
  }

  /** Index of `id`, or -1. */
  get(id: number): number {
    if (this.table !== null) return id >= 0 && id < this.table.length ? this.table[id] : -1;
    return this.map!.get(id) ?? -1;
  }

  /** The dense id → index table, or null when ids are sparse (then use get()). */
  get dense(): Int32Array | null {
    return this.table;
  }
}

function duplicateId(source: string, id: number) {
  return notAProfile(source, `node id ${id} appears more than once in "nodes"`);
}

export interface TreeLimits {
  /** Longest sum of sample durations accepted, µs (default 30 days: more means a damaged recording). */
  absurdUs?: number;
}

export function buildTree(raw: RawProfile, source: string, limits: TreeLimits = {}): CallTree {
  const n = raw.nodeCount;
  if (n === 0) throw notAProfile(source, '"nodes" is empty');
  const index = new IdIndex(raw.id, source);

  // Parents from children lists (CDP) or, failing that, from per-node `parent` fields (trace style).
  const parent = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const start = raw.childStart[i];
    const end = start + raw.childCount[i];
    for (let k = start; k < end; k++) {
      const childId = raw.childIds[k];
      const c = index.get(childId);
      if (c < 0) throw notAProfile(source, `node ${raw.id[i]} lists child ${childId}, which is not in "nodes"`);
      if (c === i) throw notAProfile(source, `node ${raw.id[i]} lists itself as its child`);
      if (parent[c] !== -1 && parent[c] !== i) {
        throw notAProfile(source, `node ${childId} is a child of both node ${raw.id[parent[c]]} and node ${raw.id[i]}`);
      }
      parent[c] = i;
    }
  }
  for (let i = 0; i < n; i++) {
    const pid = raw.parentId[i];
    if (parent[i] !== -1 || Number.isNaN(pid)) continue;
    const p = index.get(pid);
    if (p < 0) throw notAProfile(source, `node ${raw.id[i]} names parent ${pid}, which is not in "nodes"`);
    parent[i] = p;
  }

  let rootIndex = -1;
  for (let i = 0; i < n; i++) {
    if (parent[i] !== -1) continue;
    if (rootIndex !== -1) throw notAProfile(source, `it has more than one root node (nodes ${raw.id[rootIndex]} and ${raw.id[i]} have no parent)`);
    rootIndex = i;
  }
  if (rootIndex === -1) throw notAProfile(source, 'its call tree has no root: every node has a parent, so the tree contains a cycle');

  // Children in CSR form, in node order (V8 writes nodes depth-first, so this is call order).
  const childOffsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (parent[i] >= 0) childOffsets[parent[i] + 1]++;
  for (let i = 0; i < n; i++) childOffsets[i + 1] += childOffsets[i];
  const childIndex = new Int32Array(Math.max(0, n - 1));
  const fill = childOffsets.slice(0, n);
  for (let i = 0; i < n; i++) if (parent[i] >= 0) childIndex[fill[parent[i]]++] = i;

  // Depth-first pre-order with an explicit stack (profiles can be thousands of frames deep).
  const preorder = new Int32Array(n);
  const depth = new Int32Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  let visited = 0;
  stack[top++] = rootIndex;
  while (top > 0) {
    const v = stack[--top];
    preorder[visited++] = v;
    // Push in reverse so the first child is visited first.
    for (let k = childOffsets[v + 1] - 1; k >= childOffsets[v]; k--) {
      const c = childIndex[k];
      depth[c] = depth[v] + 1;
      stack[top++] = c;
    }
  }
  if (visited !== n) {
    throw notAProfile(source, `${n - visited} node(s) are not reachable from the root: the call tree contains a cycle`);
  }

  const samples = raw.samples;
  const absurdUs = limits.absurdUs ?? ABSURD_US;
  checkClock(raw, source, absurdUs);
  const { selfUs, durationUs, badSample, negatives, mostNegative, sumDeltas } = sampleTimes(index, samples, raw.timeDeltas, raw.startTime, raw.endTime, n);
  if (badSample >= 0) {
    throw notAProfile(source, `samples[${badSample}] refers to node id ${samples[badSample]}, which is not in "nodes"`);
  }
  checkTimes(source, { durationUs, negatives, mostNegative, sumDeltas }, absurdUs);
  const totalUs = Float64Array.from(selfUs);
  for (let k = n - 1; k > 0; k--) {
    const v = preorder[k];
    totalUs[parent[v]] += totalUs[v];
  }

  return { rootIndex, parent, depth, childOffsets, childIndex, preorder, samples, selfUs, totalUs, durationUs };
}

/** Longer than any profile a person records (30 days, in µs): such a duration means a damaged file. */
const ABSURD_US = 30 * 24 * 3600 * 1e6;
/** A gap this far backwards is no clock adjustment: the sample order or the deltas are wrong. */
const NEGATIVE_LIMIT_US = 1e6;

const DAMAGED = 'The timing data is damaged; re-record the profile.';

function checkClock(raw: RawProfile, source: string, absurdUs: number): void {
  if (!Number.isFinite(raw.startTime) || !Number.isFinite(raw.endTime)) {
    throw notAProfile(source, `"startTime" (${raw.startTime}) or "endTime" (${raw.endTime}) is not a finite number`, DAMAGED);
  }
  if (raw.endTime < raw.startTime) throw notAProfile(source, `"endTime" (${raw.endTime}) is before "startTime" (${raw.startTime})`, DAMAGED);
  if (raw.endTime - raw.startTime > absurdUs) {
    throw notAProfile(source, `it claims to span more than 30 days ("endTime" − "startTime" = ${(raw.endTime - raw.startTime).toExponential(2)} µs)`, DAMAGED);
  }
}

function checkTimes(source: string, t: { durationUs: number; negatives: number; mostNegative: number; sumDeltas: number }, absurdUs: number): void {
  if (!Number.isFinite(t.sumDeltas) || !Number.isFinite(t.durationUs)) throw notAProfile(source, '"timeDeltas" holds a value that is not a finite number', DAMAGED);
  if (t.durationUs > absurdUs || Math.abs(t.sumDeltas) > absurdUs) {
    throw notAProfile(source, `its "timeDeltas" add up to more than 30 days (${Math.max(t.durationUs, Math.abs(t.sumDeltas)).toExponential(2)} µs)`, DAMAGED);
  }
  if (t.mostNegative < -NEGATIVE_LIMIT_US) {
    throw notAProfile(source, `"timeDeltas" goes back in time by ${Math.round(-t.mostNegative / 1000)} ms between two samples (${t.negatives} negative value(s))`, DAMAGED);
  }
}

/**
 * Rewrites sample ids to node indices in place and sums self time per node, DevTools convention:
 * sample i lasts until sample i+1 arrives (timeDeltas[i+1] later); the last one lasts until endTime.
 * Negative gaps (clock adjustments) count as 0. Deopt samples (v8-signals §1.4) get their tiny real
 * gaps, so they barely weigh. One pass: this loop runs once per sample (tens of millions).
 */
function sampleTimes(
  index: IdIndex,
  samples: Int32Array,
  deltas: Int32Array | Float64Array,
  startTime: number,
  endTime: number,
  n: number,
) {
  const selfUs = new Float64Array(n);
  const count = samples.length;
  const dense = index.dense ?? new Int32Array(0);
  const sparse = index.dense === null;
  let durationUs = 0;
  let sumDeltas = 0;
  let negatives = 0;
  let mostNegative = 0;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const id = samples[i];
    const node = sparse ? index.get(id) : id >= 0 && id < dense.length ? dense[id] : -1;
    if (node < 0) return { selfUs, durationUs, badSample: i, negatives, mostNegative, sumDeltas };
    samples[i] = node;
    const d = deltas[i];
    sumDeltas += d;
    // Sample i's arrival ends sample i-1.
    if (previous >= 0 && d > 0) {
      selfUs[previous] += d;
      durationUs += d;
    } else if (d < 0) {
      negatives++;
      if (d < mostNegative) mostNegative = d;
    }
    previous = node;
  }
  if (previous >= 0) {
    const last = endTime - (startTime + sumDeltas);
    if (last > 0) {
      selfUs[previous] += last;
      durationUs += last;
    }
  }
  return { selfUs, durationUs, badSample: -1, negatives, mostNegative, sumDeltas };
}
