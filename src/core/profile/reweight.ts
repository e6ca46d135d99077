/**
 * The same profile with other weights per call-tree node: e.g. only the time that fell inside blocking
 * episodes of the event loop. Everything that depends on time (self and total per node and function,
 * line ticks, durations) is recomputed from the new weights; the tree, functions and source positions
 * are shared with the original. So attribution, rankings and the flamegraph run unchanged on a part
 * of a profile.
 */
import type { ProfileModel } from './types';

/**
 * `weightUs[v]`: the new self time of node v (µs). Line ticks keep their proportions within a node.
 * Samples and timeDeltas are the original ones (they are the time axis, not the weights).
 */
export function reweightModel(model: ProfileModel, weightUs: Float64Array, source = `${model.source} (part)`): ProfileModel {
  const n = model.nodeCount;
  const { nodes, lines, functions } = model;
  const selfUs = Float64Array.from(weightUs.subarray(0, n));
  const totalUs = Float64Array.from(selfUs);
  for (let k = n - 1; k > 0; k--) {
    const v = nodes.preorder[k];
    const p = nodes.parent[v];
    if (p >= 0) totalUs[p] += totalUs[v];
  }
  const F = functions.length;
  const functionSelfUs = new Float64Array(F);
  for (let v = 0; v < n; v++) functionSelfUs[nodes.func[v]] += selfUs[v];
  // Total per function: a subtree counts only under its outermost frame of that function (recursion).
  const functionTotalUs = new Float64Array(F);
  const onPath = new Int32Array(F);
  const path = new Int32Array(n);
  let pathLength = 0;
  for (let k = 0; k < n; k++) {
    const v = nodes.preorder[k];
    while (pathLength > nodes.depth[v]) onPath[nodes.func[path[--pathLength]]]--;
    const f = nodes.func[v];
    if (onPath[f] === 0) functionTotalUs[f] += totalUs[v];
    onPath[f]++;
    path[pathLength++] = v;
  }
  // Line ticks: each node's records scaled by its new/old self time.
  const nodeUs = new Float64Array(lines.nodeUs.length);
  const lineSelf = new Float64Array(lines.count);
  for (let v = 0; v < n; v++) {
    const old = nodes.selfUs[v];
    const ratio = old > 0 ? selfUs[v] / old : 0;
    for (let r = lines.nodeStart[v]; r < lines.nodeStart[v + 1]; r++) {
      const us = lines.nodeUs[r] * ratio;
      nodeUs[r] = us;
      lineSelf[lines.nodeEntry[r]] += us;
    }
  }
  let durationUs = 0;
  let idleUs = 0;
  let gcUs = 0;
  let programUs = 0;
  for (let f = 0; f < F; f++) {
    const us = functionSelfUs[f];
    durationUs += us;
    const c = functions[f].category;
    if (c === 'idle') idleUs += us;
    else if (c === 'gc') gcUs += us;
    else if (c === 'program') programUs += us;
  }
  return {
    ...model,
    source,
    durationUs,
    idleUs,
    gcUs,
    programUs,
    nodes: { ...nodes, selfUs, totalUs },
    functionSelfUs,
    functionTotalUs,
    lines: { ...lines, selfUs: lineSelf, nodeUs },
    warnings: [],
  };
}
