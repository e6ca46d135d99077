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
  const span = model.functions.length + 1;
  const parent = new Int32Array(nodeCount);
  const func = new Int32Array(nodeCount);
  const self = new Float64Array(nodeCount);
  const mergedOf = new Int32Array(nodeCount);
  const key = new Map<number, number>();
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
      const id = into * span + f;
      const found = key.get(id);
      if (found === undefined) {
        target = m++;
        key.set(id, target);
        parent[target] = into;
        func[target] = f;
      } else {
        target = found;
      }
    }
    mergedOf[v] = target;
    self[target] += nodes.selfUs[v];
  }
  const { tree, newIndex } = normalizeTree(m, parent, func, self);
  for (let v = 0; v < nodeCount; v++) mergedOf[v] = newIndex[mergedOf[v]];
  return { tree, nodeToFrame: mergedOf };
}
