/**
 * Whether startup *uses* a module's code, or only loads it: the time the merged profile shows in a
 * package's (or app file's) functions outside its own loading — code called after its top-level ran,
 * e.g. `express()` or `app.listen()` at startup. A require whose code does not run at startup is the
 * one worth deferring. Sampled: a few µs of use can go unseen; the number says how much was seen. Pure.
 */
import type { ProfileModel } from '../profile/types';

export interface StartupUsage {
  /** ms per profiled start spent in the package's functions outside its own loading. */
  packageMs(name: string): number;
  /** The same for an app file (not under node_modules). */
  fileMs(file: string): number;
}

/** A module's top-level code in a profile: the anonymous function at line 1, column 1 of its script. */
const isTopLevel = (f: { name: string; line: number | null; column: number | null }) => f.name === '' && f.line === 1 && f.column === 1;

export function startupUsage(model: ProfileModel, runs: number): StartupUsage {
  const { nodes, functions } = model;
  const byPackage = new Map<string, number>();
  const byFile = new Map<string, number>();
  // Per node: which packages / files are loading on the path from the root (their top-level frame is
  // an ancestor), and which are already counted as used above (to count a subtree once).
  const loading: Array<Set<string>> = new Array(model.nodeCount);
  const counted: Array<Set<string>> = new Array(model.nodeCount);
  const empty = new Set<string>();
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const p = nodes.parent[v];
    const f = functions[nodes.func[v]];
    let load = p >= 0 ? loading[p] : empty;
    let done = p >= 0 ? counted[p] : empty;
    const key = f.package ? `pkg:${f.package}` : f.category === 'user' && f.file ? `file:${f.file}` : undefined;
    if (key) {
      if (isTopLevel(f)) {
        if (!load.has(key)) { load = new Set(load); load.add(key); }
      } else if (!load.has(key) && !done.has(key)) {
        // Code of this package running while it is not loading: startup uses it; the subtree counts once.
        const map = f.package ? byPackage : byFile;
        const name = f.package ?? f.file;
        map.set(name, (map.get(name) ?? 0) + nodes.totalUs[v]);
        done = new Set(done);
        done.add(key);
      }
    }
    loading[v] = load;
    counted[v] = done;
  }
  const per = (us: number | undefined) => (us ?? 0) / 1000 / Math.max(1, runs);
  return { packageMs: (name) => per(byPackage.get(name)), fileMs: (file) => per(byFile.get(file)) };
}
