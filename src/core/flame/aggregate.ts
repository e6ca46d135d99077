/**
 * The aggregated flamegraph: the profile's call tree with every call path merged (V8 may emit several
 * nodes for one function under one parent), children ordered heaviest first. Also remembers which
 * merged frame each profile node went to, for the flame chart.
 */
import type { ProfileModel } from '../profile/types';
import { type FrameTree, normalizeTree } from '../../shared/flame/tree';

export interface Aggregated {
  tree: FrameTree;
  /** Per model node index: its frame in `tree`. */
  nodeToFrame: Int32Array;
}

export function aggregate(model: ProfileModel): Aggregated {
  const { nodes, nodeCount, rootIndex } = model;
  const parent = new Int32Array(nodeCount);
  const func = new Int32Array(nodeCount);
  const self = new Float64Array(nodeCount);
  const mergedOf = new Int32Array(nodeCount);
  // (merged parent, function) → merged frame: a typed open-addressing table (a Map keyed by
  // parent × functions + function leaves the small-integer range on big profiles and slows down).
  let size = 1024;
  while (size < nodeCount * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  parent[0] = -1;
  func[0] = nodes.func[rootIndex];
  let m = 1;
  for (let k = 0; k < nodeCount; k++) {
    const v = nodes.preorder[k];
    let target: number;
    if (v === rootIndex) {
      target = 0;
    } else {
      const into = mergedOf[nodes.parent[v]];
      const f = nodes.func[v];
      let h = Math.imul(into, 0x9e3779b1) ^ Math.imul(f, 0x85ebca77);
      h ^= h >>> 15;
      let slot = h & mask;
      target = slots[slot];
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
    }
    mergedOf[v] = target;
    self[target] += nodes.selfUs[v];
  }
  const { tree, newIndex } = normalizeTree(m, parent, func, self);
  for (let v = 0; v < nodeCount; v++) mergedOf[v] = newIndex[mergedOf[v]];
  return { tree, nodeToFrame: mergedOf };
}
