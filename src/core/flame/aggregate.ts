/**
 * The aggregated flamegraph: the profile's call tree with every call path merged (V8 may emit several
 * nodes for one function under one parent), children ordered heaviest first. Also remembers which
 * merged frame each profile node went to, for the flame chart. With an inline split (inlined.ts), the
 * line ticks attribution placed in inlined callees leave their frame's self time for a child frame of
 * the callee's inlined twin.
 */
import type { ProfileModel } from '../profile/types';
import { type FrameTree, normalizeTree } from '../../shared/flame/tree';
import type { InlineSplit } from './inlined';

export interface Aggregated {
  tree: FrameTree;
  /** Per model node index: its frame in `tree`. */
  nodeToFrame: Int32Array;
}

export function aggregate(model: ProfileModel, split?: InlineSplit): Aggregated {
  const { nodes, nodeCount, rootIndex, lines } = model;
  // Inlined frames: at most one per line record that goes to a twin.
  let extra = 0;
  if (split) for (let r = 0; r < lines.nodeEntry.length; r++) if (split.entryFunc[lines.nodeEntry[r]] >= 0) extra++;
  // An allocation profile's frames whose bytes are an inlined callee's: one inlined frame per node at most.
  const frameFunc = split?.frameFunc ?? null;
  if (frameFunc) extra += nodeCount;
  const capacity = nodeCount + extra;
  const parent = new Int32Array(capacity);
  const func = new Int32Array(capacity);
  const self = new Float64Array(capacity);
  const mergedOf = new Int32Array(nodeCount);
  // (merged parent, function) → merged frame: a typed open-addressing table (a Map keyed by
  // parent × functions + function leaves the small-integer range on big profiles and slows down).
  let size = 1024;
  while (size < capacity * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  parent[0] = -1;
  func[0] = nodes.func[rootIndex];
  let m = 1;
  for (let k = 0; k < nodeCount; k++) {
    const v = nodes.preorder[k];
    let target = 0;
    if (v !== rootIndex) {
      const into = mergedOf[nodes.parent[v]];
      const f = nodes.func[v];
      target = probe(slots, mask, parent, func, into, f);
      if (target < 0) {
        slots[-target - 1] = target = m++;
        parent[target] = into;
        func[target] = f;
      }
    }
    mergedOf[v] = target;
    self[target] += nodes.selfUs[v];
  }
  // The inlined frames: children of the merged frames, keyed by twin functions no profile node has, so
  // adding them after the merge changes no merged frame.
  for (let v = 0; extra > 0 && v < nodeCount; v++) {
    const target = mergedOf[v];
    let moved = 0;
    const end = lines.nodeStart[v + 1];
    for (let r = lines.nodeStart[v]; r <= end; r++) {
      // The line records, then (r === end) what is left of the node's self time.
      const t = r < end ? split!.entryFunc[lines.nodeEntry[r]] : frameFunc ? frameFunc[nodes.func[v]] : -1;
      const us = r < end ? lines.nodeUs[r] : Math.max(0, nodes.selfUs[v] - moved);
      if (t < 0 || us <= 0) continue;
      let child = probe(slots, mask, parent, func, target, t);
      if (child < 0) {
        slots[-child - 1] = child = m++;
        parent[child] = target;
        func[child] = t;
      }
      self[child] += us;
      self[target] -= us;
      moved += us;
    }
  }
  // Subtraction leaves rounding dust on frames whose time all moved.
  if (extra > 0) for (let i = 0; i < m; i++) if (self[i] < 1e-6) self[i] = 0;
  const { tree, newIndex } = normalizeTree(m, parent, func, self);
  for (let v = 0; v < nodeCount; v++) mergedOf[v] = newIndex[mergedOf[v]];
  return { tree, nodeToFrame: mergedOf };
}

/**
 * The merged frame with parent `into` and function `f`, or -(slot + 1) for the free slot where it goes
 * (the caller adds it there). Open addressing with linear probing.
 */
function probe(slots: Int32Array, mask: number, parent: Int32Array, func: Int32Array, into: number, f: number): number {
  let h = Math.imul(into, 0x9e3779b1) ^ Math.imul(f, 0x85ebca77);
  h ^= h >>> 15;
  let slot = h & mask;
  let target = slots[slot];
  while (target >= 0 && (parent[target] !== into || func[target] !== f)) {
    slot = (slot + 1) & mask;
    target = slots[slot];
  }
  return target >= 0 ? target : -(slot + 1);
}
