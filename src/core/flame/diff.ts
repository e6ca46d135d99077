/**
 * The differential flamegraph's data: for every frame of the newer profile, the self time the same call
 * path had in the older one. A call path is matched by the (function name, file) of each frame from the
 * root down — not by line, since the fix being verified usually moves lines. Where the newer profile has
 * several frames with one key path (e.g. two anonymous functions of one file), the older time is shared
 * among them in proportion to their own self time.
 */
import type { FrameTree } from '../../shared/flame/tree';

export interface KeyedTree {
  tree: Pick<FrameTree, 'count' | 'parent' | 'func' | 'selfUs'>;
  /** A matching key per function index, e.g. `${name}\0${file}`. */
  funcKey: string[];
}

export function beforeSelfTimes(before: KeyedTree, after: KeyedTree): Float64Array {
  const keyIds = new Map<string, number>();
  const keyId = (k: string) => {
    let id = keyIds.get(k);
    if (id === undefined) keyIds.set(k, (id = keyIds.size));
    return id;
  };
  const paths = new Map<string, number>();
  const pathsOf = (t: KeyedTree): Int32Array => {
    const funcIds = t.funcKey.map(keyId);
    const path = new Int32Array(t.tree.count);
    path[0] = 0; // the roots match each other
    for (let i = 1; i < t.tree.count; i++) {
      const k = `${path[t.tree.parent[i]]}:${funcIds[t.tree.func[i]]}`;
      let p = paths.get(k);
      if (p === undefined) paths.set(k, (p = paths.size + 1));
      path[i] = p;
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
