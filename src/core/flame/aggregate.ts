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
  const frameOf = (into: number, f: number): number => {
    let h = Math.imul(into, 0x9e3779b1) ^ Math.imul(f, 0x85ebca77);
    h ^= h >>> 15;
    let slot = h & mask;
    let target = slots[slot];
    while (target >= 0 && (parent[target] !== into || func[target] !== f)) {
      slot = (slot + 1) & mask;
      target = slots[slot];
    }
    if (target < 0) {
      target = m++;
      slots[slot] = target;
      parent[target] = into;
      func[target] = f;
    }
    return target;
  };
  for (let k = 0; k < nodeCount; k++) {
    const v = nodes.preorder[k];
    const target = v === rootIndex ? 0 : frameOf(mergedOf[nodes.parent[v]], nodes.func[v]);
    mergedOf[v] = target;
    if (extra === 0) {
      self[target] += nodes.selfUs[v];
      continue;
    }
    let moved = 0;
    for (let r = lines.nodeStart[v]; r < lines.nodeStart[v + 1]; r++) {
      const t = split!.entryFunc[lines.nodeEntry[r]];
      if (t < 0) continue;
      self[frameOf(target, t)] += lines.nodeUs[r];
      moved += lines.nodeUs[r];
    }
    const rest = Math.max(0, nodes.selfUs[v] - moved);
    const t = frameFunc ? frameFunc[nodes.func[v]] : -1;
    if (t >= 0 && rest > 0) self[frameOf(target, t)] += rest;
    else self[target] += rest;
  }
  const { tree, newIndex } = normalizeTree(m, parent, func, self);
  for (let v = 0; v < nodeCount; v++) mergedOf[v] = newIndex[mergedOf[v]];
  return { tree, nodeToFrame: mergedOf };
}
