/**
 * The sandwich view of one function: its callers (an inverted tree: the function at the root, who
 * called it above) and its callees (every call of the function merged into one tree). Recursion is
 * counted once: only the outermost frames of the function contribute, as in functionTotalUs.
 *
 * A tree's companion values (extraUs: the differential view's before-profile self time) travel along,
 * with the same meaning as the tree's own self times: in the callees tree, the before self time of the
 * merged frames; in the callers tree, the before time of the function reached through that call path.
 */
import { type FrameTree, normalizeTree, outermostFramesOf } from './tree';

export interface Sandwich {
  func: number;
  /** Time of the function's outermost frames, µs (its total time, recursion counted once). */
  totalUs: number;
  /**
   * Root = the function; children = its callers; their children = the callers' callers, … A frame's
   * total is the function's time reached through that call path, and its self time is the part for
   * which it is the outermost caller: colour and describe callers by totalUs, not selfUs.
   */
  callers: FrameTree;
  /** Root = the function; below it, everything it called. */
  callees: FrameTree;
}

/**
 * `canonical` maps a function to the one it counts as (an inlined frame's function to the function it is
 * a frame of): every frame of that function is a root, and the callees tree keeps the inlined frames apart.
 */
export function sandwich(tree: FrameTree, func: number, canonical?: (func: number) => number): Sandwich {
  const roots = canonical ? outermostOf(tree, func, canonical) : outermostFramesOf(tree, func);
  let totalUs = 0;
  for (const r of roots) totalUs += tree.totalUs[r];
  return { func, totalUs, callers: callersTree(tree, func, roots), callees: calleesTree(tree, func, roots) };
}

class Builder {
  parent: number[] = [-1];
  func: number[] = [];
  self: number[] = [0];
  /** Companion values (null when the source tree has none). */
  extra: number[] | null;
  private readonly keys = new Map<string, number>();
  constructor(rootFunc: number, withExtra: boolean) {
    this.func.push(rootFunc);
    this.extra = withExtra ? [0] : null;
  }
  child(of: number, func: number): number {
    const k = `${of}:${func}`;
    let c = this.keys.get(k);
    if (c === undefined) {
      c = this.parent.length;
      this.keys.set(k, c);
      this.parent.push(of);
      this.func.push(func);
      this.self.push(0);
      this.extra?.push(0);
    }
    return c;
  }
  build(): FrameTree {
    const extra = this.extra ? Float64Array.from(this.extra) : undefined;
    return normalizeTree(this.parent.length, Int32Array.from(this.parent), Int32Array.from(this.func), Float64Array.from(this.self), extra).tree;
  }
}

function calleesTree(tree: FrameTree, func: number, roots: number[]): FrameTree {
  const extra = tree.extraUs;
  const b = new Builder(func, extra !== undefined);
  const map = new Map<number, number>();
  for (const r of roots) {
    map.set(r, 0);
    b.self[0] += tree.selfUs[r];
    if (extra) b.extra![0] += extra[r];
    for (let i = r + 1; i < tree.end[r]; i++) {
      const c = b.child(map.get(tree.parent[i])!, tree.func[i]);
      map.set(i, c);
      b.self[c] += tree.selfUs[i];
      if (extra) b.extra![c] += extra[i];
    }
  }
  return b.build();
}

function callersTree(tree: FrameTree, func: number, roots: number[]): FrameTree {
  const extra = tree.extraUs;
  const b = new Builder(func, extra !== undefined);
  for (const r of roots) {
    const weight = tree.totalUs[r];
    let at = 0;
    // Walk up to (not including) the profile's root; the last caller keeps the weight as "self".
    for (let p = tree.parent[r]; p > 0; p = tree.parent[p]) at = b.child(at, tree.func[p]);
    b.self[at] += weight;
    if (extra) {
      // The before-profile's time of this frame's whole subtree (its "total" in the older profile).
      let before = 0;
      for (let i = r; i < tree.end[r]; i++) before += extra[i];
      b.extra![at] += before;
    }
  }
  return b.build();
}

/** Outermost frames whose function counts as `func` (see sandwich). */
function outermostOf(tree: FrameTree, func: number, canonical: (func: number) => number): number[] {
  const out: number[] = [];
  for (let i = 0; i < tree.count; ) {
    if (canonical(tree.func[i]) === func) {
      out.push(i);
      i = tree.end[i];
    } else {
      i++;
    }
  }
  return out;
}
