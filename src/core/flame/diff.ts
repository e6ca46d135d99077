/**
 * The differential flamegraph's data: for every frame of the newer profile, the self time the same call
 * path had in the older one. Frames are matched by function identity (profileDiff/identity.ts: name,
 * file relative to the project or package, line — never an absolute path), so profiles of two checkouts
 * or two Node versions line up. Node-internal and native frames are transparent in a path: a frame's
 * path is its own function under the path of its nearest non-transparent ancestor, so loader frames
 * that differ between Node versions (or builtins that one version inlines) do not split the paths of
 * the user code above and below them. Where the newer profile has several frames with one path, the
 * older time is shared among them in proportion to their own self time.
 */
import type { FrameTree } from '../../shared/flame/tree';

export interface KeyedTree {
  tree: Pick<FrameTree, 'count' | 'parent' | 'func' | 'selfUs'>;
  /** The matched function id per function index (equal ids on both sides = the same function). */
  funcId: Int32Array;
  /** 1 for functions left out of call paths (Node internals, natives). */
  transparent: Uint8Array;
}

export function beforeSelfTimes(before: KeyedTree, after: KeyedTree): Float64Array {
  const paths = new Map<string, number>();
  const pathsOf = (t: KeyedTree): Int32Array => {
    const path = new Int32Array(t.tree.count);
    // The path a frame's children hang from: its own, or (transparent frames) its parent's.
    const anchor = new Int32Array(t.tree.count);
    path[0] = 0; // the roots match each other
    anchor[0] = 0;
    for (let i = 1; i < t.tree.count; i++) {
      const f = t.tree.func[i];
      const k = `${anchor[t.tree.parent[i]]}:${t.funcId[f]}`;
      let p = paths.get(k);
      if (p === undefined) paths.set(k, (p = paths.size + 1));
      path[i] = p;
      anchor[i] = t.transparent[f] ? anchor[t.tree.parent[i]] : p;
    }
    return path;
  };
  const beforePath = pathsOf(before);
  const afterPath = pathsOf(after);
  const size = paths.size + 1;
  const beforeSelf = new Float64Array(size);
  for (let i = 0; i < before.tree.count; i++) beforeSelf[beforePath[i]] += before.tree.selfUs[i];
  const afterSelf = new Float64Array(size);
  const afterFrames = new Int32Array(size);
  for (let i = 0; i < after.tree.count; i++) {
    afterSelf[afterPath[i]] += after.tree.selfUs[i];
    afterFrames[afterPath[i]]++;
  }
  const out = new Float64Array(after.tree.count);
  for (let i = 0; i < after.tree.count; i++) {
    const p = afterPath[i];
    const share = afterSelf[p] > 0 ? after.tree.selfUs[i] / afterSelf[p] : 1 / afterFrames[p];
    out[i] = beforeSelf[p] * share;
  }
  return out;
}
