/**
 * The frame tree every view draws: a merged call tree (one frame per call path of a function) in
 * depth-first pre-order with children ordered heaviest first ("left heavy"). Parallel typed arrays
 * indexed by frame; frame 0 is the root. Pure: used by the host/CLI (core/flame) to build the payload
 * and by the webview to re-merge under filters and to build sandwich trees.
 */

export interface FrameTree {
  count: number;
  /** Parent frame, -1 for the root (frame 0). */
  parent: Int32Array;
  /** Function index (into the payload's function table). */
  func: Int32Array;
  selfUs: Float64Array;
  totalUs: Float64Array;
  depth: Int32Array;
  /** Frames of i's subtree are i .. end[i]-1 (pre-order). */
  end: Int32Array;
  /** Left edge of the frame in µs from the root's left edge: the flamegraph's x axis. */
  startUs: Float64Array;
  maxDepth: number;
  /** Optional per-frame companion values re-merged with the tree (the diff's before-profile self time). */
  extraUs?: Float64Array;
}

/**
 * Normalise a tree given by parent links (any node order) into a FrameTree: totals, left-heavy
 * pre-order, depths, extents and x offsets. `parent[root] = -1` for exactly one node. `extra` travels
 * with the frames. Returns the tree and, per input node, its index in the tree.
 */
export function normalizeTree(
  count: number,
  parent: Int32Array,
  func: Int32Array,
  selfUs: Float64Array,
  extra?: Float64Array,
): { tree: FrameTree; newIndex: Int32Array } {
  // Totals bottom-up: needs a topological order; build children lists (CSR) first.
  const childCount = new Int32Array(count + 1);
  let root = -1;
  for (let i = 0; i < count; i++) {
    const p = parent[i];
    if (p < 0) root = i;
    else childCount[p + 1]++;
  }
  if (root < 0) throw new Error('frame tree has no root');
  for (let i = 0; i < count; i++) childCount[i + 1] += childCount[i];
  const offsets = childCount; // offsets[i]..offsets[i+1]
  const children = new Int32Array(Math.max(0, count - 1));
  const fill = offsets.slice(0, count);
  for (let i = 0; i < count; i++) if (parent[i] >= 0) children[fill[parent[i]]++] = i;

  // Any pre-order (stack), then totals in reverse.
  const order = new Int32Array(count);
  const stack = new Int32Array(count);
  let top = 0;
  let n = 0;
  stack[top++] = root;
  while (top > 0) {
    const v = stack[--top];
    order[n++] = v;
    for (let k = offsets[v]; k < offsets[v + 1]; k++) stack[top++] = children[k];
  }
  const total = Float64Array.from(selfUs.subarray(0, count));
  for (let k = n - 1; k > 0; k--) total[parent[order[k]]] += total[order[k]];

  // Sort each child list heaviest first (ties: lower function index, then original index: a total
  // order, so the result does not depend on the algorithm). Most lists are short: insertion sort in
  // place, no allocation; long ones go through Array.prototype.sort.
  const before = (x: number, y: number) => total[y] - total[x] || func[x] - func[y] || x - y;
  for (let v = 0; v < count; v++) {
    const a = offsets[v];
    const b = offsets[v + 1];
    if (b - a < 2) continue;
    if (b - a <= 16) {
      for (let i = a + 1; i < b; i++) {
        const x = children[i];
        const tx = total[x];
        let j = i - 1;
        for (; j >= a; j--) {
          const y = children[j];
          const ty = total[y];
          // y stays before x unless x is heavier, or as heavy with a lower function or index.
          if (ty > tx || (ty === tx && (func[y] < func[x] || (func[y] === func[x] && y < x)))) break;
          children[j + 1] = y;
        }
        children[j + 1] = x;
      }
    } else {
      const list = Array.from(children.subarray(a, b));
      list.sort(before);
      children.set(list, a);
    }
  }

  // Final pre-order with the sorted children: new index per node.
  const out = {
    parent: new Int32Array(count),
    func: new Int32Array(count),
    selfUs: new Float64Array(count),
    totalUs: new Float64Array(count),
    depth: new Int32Array(count),
    end: new Int32Array(count),
    startUs: new Float64Array(count),
    extraUs: extra ? new Float64Array(count) : undefined,
  };
  const newIndex = new Int32Array(count);
  top = 0;
  n = 0;
  stack[top++] = root;
  let maxDepth = 0;
  while (top > 0) {
    const v = stack[--top];
    const i = n++;
    newIndex[v] = i;
    const p = parent[v];
    out.parent[i] = p < 0 ? -1 : newIndex[p];
    out.func[i] = func[v];
    out.selfUs[i] = selfUs[v];
    out.totalUs[i] = total[v];
    if (out.extraUs) out.extraUs[i] = extra![v];
    const d = p < 0 ? 0 : out.depth[newIndex[p]] + 1;
    out.depth[i] = d;
    if (d > maxDepth) maxDepth = d;
    // Push in reverse so the heaviest child comes first.
    for (let k = offsets[v + 1] - 1; k >= offsets[v]; k--) stack[top++] = children[k];
  }
  // Extents and x offsets: children start at the parent's left edge, heaviest first.
  const nextX = new Float64Array(count);
  for (let i = count - 1; i >= 0; i--) out.end[i] = i + 1;
  for (let i = count - 1; i > 0; i--) {
    const p = out.parent[i];
    if (out.end[i] > out.end[p]) out.end[p] = out.end[i];
  }
  for (let i = 0; i < count; i++) {
    const p = out.parent[i];
    if (p >= 0) {
      out.startUs[i] = out.startUs[p] + nextX[p];
      nextX[p] += out.totalUs[i];
    }
  }
  return { tree: { count, maxDepth, ...out }, newIndex };
}

/**
 * Re-merge a tree with some functions hidden: a hidden frame's time becomes self time of its nearest
 * visible ancestor and its children are lifted to that ancestor, merging with siblings of the same
 * function. Returns the new tree and, per old frame, the new frame it maps to. The root is never hidden.
 */
export function filterTree(tree: FrameTree, hidden: (func: number) => boolean): { tree: FrameTree; mapTo: Int32Array } {
  const n = tree.count;
  // Fast path, the default view's case: the hidden frames are all leaves (idle, program, GC), so the
  // rest of the tree and its order stay as they are — O(n), no re-merge, no sort.
  let leavesOnly = true;
  for (let i = 1; i < n && leavesOnly; i++) if (tree.end[i] !== i + 1 && hidden(tree.func[i])) leavesOnly = false;
  if (leavesOnly) return dropLeaves(tree, hidden);
  return remerge(tree, (f) => (hidden(f) ? -1 : f));
}

/**
 * Fold runs of frames that belong to one group (an npm package) into one frame: a frame whose group's
 * frame is its parent merges into that parent (its self time and children go there); the first frame
 * of a run becomes the group's frame (`groupFunc(f)`, a function index standing for the group). Code
 * the package calls back (the user's callbacks) stays a child of the package's frame. Returns the new
 * tree and, per old frame, the new frame it maps to.
 */
export function collapseTree(tree: FrameTree, groupFunc: (func: number) => number): { tree: FrameTree; mapTo: Int32Array } {
  return remerge(tree, (f, parentFunc) => {
    const g = groupFunc(f);
    return g < 0 ? f : g === parentFunc ? -1 : g;
  });
}

/**
 * The re-merge both transforms share: in pre-order, `functionOf(func, parentFunc)` gives the function
 * a frame becomes (siblings with the same one merge), or -1 to fold the frame into its parent (its
 * self time and children move up). The root stays.
 */
function remerge(tree: FrameTree, functionOf: (func: number, parentFunc: number) => number): { tree: FrameTree; mapTo: Int32Array } {
  const n = tree.count;
  const mapTo = new Int32Array(n);
  const parent = new Int32Array(n);
  const func = new Int32Array(n);
  const self = new Float64Array(n);
  const extra = tree.extraUs ? new Float64Array(n) : undefined;
  const key = new Map<number, number>();
  let span = maxFunc(tree) + 1;
  for (let i = 1; i < n; i++) span = Math.max(span, functionOf(tree.func[i], tree.func[i]) + 1);
  let m = 1;
  parent[0] = -1;
  func[0] = tree.func[0];
  self[0] = tree.selfUs[0];
  if (extra) extra[0] = tree.extraUs![0];
  for (let i = 1; i < n; i++) {
    const into = mapTo[tree.parent[i]];
    const f = functionOf(tree.func[i], func[into]);
    let target: number;
    if (f < 0) {
      target = into;
    } else {
      const k = into * span + f;
      const found = key.get(k);
      if (found === undefined) {
        target = m++;
        key.set(k, target);
        parent[target] = into;
        func[target] = f;
      } else {
        target = found;
      }
    }
    mapTo[i] = target;
    self[target] += tree.selfUs[i];
    if (extra) extra[target] += tree.extraUs![i];
  }
  const { tree: normalized, newIndex } = normalizeTree(m, parent, func, self, extra);
  for (let i = 0; i < n; i++) mapTo[i] = newIndex[mapTo[i]];
  return { tree: normalized, mapTo };
}

function maxFunc(tree: { count: number; func: Int32Array }): number {
  let max = 0;
  for (let i = 0; i < tree.count; i++) if (tree.func[i] > max) max = tree.func[i];
  return max;
}

function dropLeaves(tree: FrameTree, hidden: (func: number) => boolean): { tree: FrameTree; mapTo: Int32Array } {
  const n = tree.count;
  const mapTo = new Int32Array(n);
  const parent = new Int32Array(n);
  const func = new Int32Array(n);
  const self = new Float64Array(n);
  const extra = tree.extraUs ? new Float64Array(n) : undefined;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const p = i === 0 ? -1 : mapTo[tree.parent[i]];
    if (i > 0 && hidden(tree.func[i])) {
      mapTo[i] = p;
      self[p] += tree.selfUs[i];
      if (extra) extra[p] += tree.extraUs![i];
      continue;
    }
    mapTo[i] = m;
    parent[m] = p;
    func[m] = tree.func[i];
    self[m] += tree.selfUs[i];
    if (extra) extra[m] += tree.extraUs![i];
    m++;
  }
  const { tree: out, newIndex } = treeFromPreorder(parent.subarray(0, m), func.subarray(0, m), self.subarray(0, m), extra?.subarray(0, m));
  if (newIndex) for (let i = 0; i < n; i++) mapTo[i] = newIndex[mapTo[i]];
  return { tree: out, mapTo };
}

/** Frames in the subtree of `frame` (inclusive) whose function is `func`, outermost only. */
export function outermostFramesOf(tree: FrameTree, func: number, within = 0): number[] {
  const out: number[] = [];
  const end = tree.end[within];
  for (let i = within; i < end; ) {
    if (tree.func[i] === func) {
      out.push(i);
      i = tree.end[i];
    } else {
      i++;
    }
  }
  return out;
}

/**
 * A FrameTree from frames already in left-heavy pre-order (as a payload carries them): O(n), no
 * sorting. Falls back to normalizeTree when the order does not hold (a hand-made or foreign payload).
 */
export function treeFromPreorder(parent: Int32Array, func: Int32Array, selfUs: Float64Array, extra?: Float64Array): { tree: FrameTree; newIndex: Int32Array | null } {
  const count = parent.length;
  let ok = count > 0 && parent[0] === -1;
  for (let i = 1; ok && i < count; i++) ok = parent[i] >= 0 && parent[i] < i;
  if (!ok) return normalizeTree(count, parent, func, selfUs, extra);
  const totalUs = Float64Array.from(selfUs);
  for (let i = count - 1; i > 0; i--) totalUs[parent[i]] += totalUs[i];
  const depth = new Int32Array(count);
  const end = new Int32Array(count);
  const startUs = new Float64Array(count);
  const nextX = new Float64Array(count);
  let maxDepth = 0;
  // Pre-order means a frame's subtree is contiguous; check the children really are heaviest first.
  const lastChildTotal = new Float64Array(count).fill(Infinity);
  for (let i = 1; i < count; i++) {
    const p = parent[i];
    depth[i] = depth[p] + 1;
    if (depth[i] > maxDepth) maxDepth = depth[i];
    startUs[i] = startUs[p] + nextX[p];
    nextX[p] += totalUs[i];
    if (totalUs[i] > lastChildTotal[p] * (1 + 1e-9)) return normalizeTree(count, parent, func, selfUs, extra);
    lastChildTotal[p] = totalUs[i];
  }
  for (let i = count - 1; i >= 0; i--) {
    if (end[i] === 0) end[i] = i + 1;
    const p = parent[i];
    if (p >= 0 && end[i] > end[p]) end[p] = end[i];
  }
  // Pre-order also means contiguous subtrees: path[0..depth[i-1]] holds the ancestors of frame i-1,
  // and frame i must hang off that path.
  const path = new Int32Array(maxDepth + 1);
  for (let i = 1; i < count; i++) {
    const d = depth[i];
    if (d > depth[i - 1] + 1 || path[d - 1] !== parent[i]) return normalizeTree(count, parent, func, selfUs, extra);
    path[d] = i;
  }
  return { tree: { count, parent, func, selfUs, totalUs, depth, end, startUs, maxDepth, extraUs: extra }, newIndex: null };
}
