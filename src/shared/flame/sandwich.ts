/**
 * The sandwich view of one function: its callers (an inverted tree: the function at the root, who
 * called it above) and its callees (every call of the function merged into one tree). Recursion is
 * counted once: only the outermost frames of the function contribute, as in functionTotalUs.
 */
import { type FrameTree, normalizeTree, outermostFramesOf } from './tree';

export interface Sandwich {
  func: number;
  /** Time of the function's outermost frames, µs (its total time, recursion counted once). */
  totalUs: number;
  /** Root = the function; children = its callers; their children = the callers' callers, … */
  callers: FrameTree;
  /** Root = the function; below it, everything it called. */
  callees: FrameTree;
}

export function sandwich(tree: FrameTree, func: number): Sandwich {
  const roots = outermostFramesOf(tree, func);
  let totalUs = 0;
  for (const r of roots) totalUs += tree.totalUs[r];
  return { func, totalUs, callers: callersTree(tree, func, roots), callees: calleesTree(tree, func, roots) };
}

class Builder {
  parent: number[] = [-1];
  func: number[] = [];
  self: number[] = [0];
  private readonly keys = new Map<string, number>();
  constructor(rootFunc: number) {
    this.func.push(rootFunc);
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
    }
    return c;
  }
  build(): FrameTree {
    return normalizeTree(this.parent.length, Int32Array.from(this.parent), Int32Array.from(this.func), Float64Array.from(this.self)).tree;
  }
}

function calleesTree(tree: FrameTree, func: number, roots: number[]): FrameTree {
  const b = new Builder(func);
  const map = new Map<number, number>();
  for (const r of roots) {
    map.set(r, 0);
    b.self[0] += tree.selfUs[r];
    for (let i = r + 1; i < tree.end[r]; i++) {
      const c = b.child(map.get(tree.parent[i])!, tree.func[i]);
      map.set(i, c);
      b.self[c] += tree.selfUs[i];
    }
  }
  return b.build();
}

function callersTree(tree: FrameTree, func: number, roots: number[]): FrameTree {
  const b = new Builder(func);
  for (const r of roots) {
    const weight = tree.totalUs[r];
    let at = 0;
    // Walk up to (not including) the profile's root; the last caller keeps the weight as "self".
    for (let p = tree.parent[r]; p > 0; p = tree.parent[p]) at = b.child(at, tree.func[p]);
    b.self[at] += weight;
  }
  return b.build();
}
