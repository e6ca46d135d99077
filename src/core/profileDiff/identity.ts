/**
 * Which function of one profile is which function of another, when the two ran on different Node
 * versions or from different checkouts: by identity (name + file relative to the project or to its npm
 * package + line), never by absolute path, and with Node's own frames — whose files, lines and even
 * names change between releases — matched by name alone and treated as transparent in call paths.
 */
import * as path from 'node:path';
import { displayName, displayPosition } from '../profile/hotspots';
import type { Category, FunctionInfo, ProfileModel } from '../profile/types';

export interface FunctionIdentity {
  /** Exact identity: category, name, relative file, line. */
  key: string;
  /** The same without the line (a fix moves lines): used when exactly one candidate is left on each side. */
  looseKey: string;
  name: string;
  /** Relative to the project (user code), `<package>/<path>` (dependencies), `node:…` (Node), '' (natives). */
  file: string;
  line: number | null;
  category: Category;
  package: string | null;
  /**
   * Node-internal and native frames: their presence in a call path differs between versions (loader
   * frames, builtins inlined or not), so call paths are matched without them.
   */
  transparent: boolean;
}

/** The folder all of a profile's own (user) files share: the project, when nothing better is known. */
export function inferProjectRoot(model: ProfileModel): string {
  const dirs = model.functions.filter((f) => f.category === 'user').map((f) => displayPosition(f).file).filter((f) => path.isAbsolute(f)).map((f) => path.dirname(f));
  if (dirs.length === 0) return '';
  let common = dirs[0].split(path.sep);
  for (const d of dirs.slice(1)) {
    const parts = d.split(path.sep);
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.join(path.sep) || path.sep;
}

/** `/x/node_modules/.pnpm/a@1/node_modules/@s/pkg/lib/i.js` → `@s/pkg/lib/i.js`. */
export function packageRelative(file: string, pkg: string): string {
  const normalized = file.replace(/\\/g, '/');
  const marker = `/node_modules/${pkg}/`;
  const at = normalized.lastIndexOf(marker);
  return at >= 0 ? `${pkg}/${normalized.slice(at + marker.length)}` : `${pkg}/${path.basename(file)}`;
}

/** `node:internal/modules/cjs/loader`, `internal/modules/cjs/loader.js` → `node:internal/modules/cjs/loader`. */
export function nodeModuleName(file: string): string {
  return `node:${file.replace(/^node:/, '').replace(/\.js$/, '')}`;
}

function relativeToRoot(file: string, root: string): string {
  if (!root || !path.isAbsolute(file)) return file;
  const rel = path.relative(root, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

export function functionIdentities(model: ProfileModel, projectRoot = inferProjectRoot(model)): FunctionIdentity[] {
  return identitiesOf(model.functions, projectRoot);
}

/** Identities of functions given one by one (functionIdentities' rule), e.g. those known only as inlined code. */
export function identitiesOf(functions: readonly FunctionInfo[], projectRoot: string): FunctionIdentity[] {
  return functions.map((info) => {
    const name = displayName(info);
    const pos = displayPosition(info);
    switch (info.category) {
      case 'user': {
        const file = relativeToRoot(pos.file, projectRoot);
        return { key: `u\0${name}\0${file}\0${pos.line}`, looseKey: `u\0${name}\0${file}`, name, file, line: pos.line, category: info.category, package: null, transparent: false };
      }
      case 'dependency': {
        const file = info.package ? packageRelative(pos.file, info.package) : relativeToRoot(pos.file, projectRoot);
        return { key: `d\0${name}\0${file}\0${pos.line}`, looseKey: `d\0${name}\0${file}`, name, file, line: pos.line, category: info.category, package: info.package, transparent: false };
      }
      case 'node': {
        const file = nodeModuleName(pos.file);
        return { key: `n\0${name}\0${file}`, looseKey: `n\0${name}`, name, file, line: pos.line, category: info.category, package: null, transparent: true };
      }
      case 'root': {
        // A thread's frame in a model of several threads: worker threads running one script are
        // interchangeable from run to run (a pool hands work to whichever is free), and so are other
        // processes of one command: matched as one, whatever their number or PID.
        const role = name.replace(/\b(worker|process) \d+\b/g, '$1');
        return { key: `root\0${role}`, looseKey: `root\0${role}`, name, file: '', line: null, category: info.category, package: null, transparent: false };
      }
      default:
        // Natives, GC, (program), (idle): by name.
        return { key: `${info.category}\0${name}`, looseKey: `${info.category}\0${name}`, name, file: '', line: null, category: info.category, package: null, transparent: info.category === 'native' };
    }
  });
}

export interface FunctionMatch {
  /** Canonical id per function index of each model; equal ids are the same function. */
  idsA: Int32Array;
  idsB: Int32Array;
  /** Number of distinct ids. */
  count: number;
}

/**
 * Matches the functions of two profiles: first by exact identity; then, among what is left, by identity
 * without the line when exactly one candidate remains on each side (the function moved). Several
 * functions of one profile with the same identity (V8 reports one per script instance) share an id.
 */
export function matchFunctions(a: readonly FunctionIdentity[], b: readonly FunctionIdentity[]): FunctionMatch {
  const ids = new Map<string, number>();
  const idOf = (key: string) => { let id = ids.get(key); if (id === undefined) ids.set(key, (id = ids.size)); return id; };
  const keysA = new Set(a.map((f) => f.key));
  const keysB = new Set(b.map((f) => f.key));
  // Keys on one side only, grouped by their loose key.
  const onlyA = new Map<string, Set<string>>();
  const onlyB = new Map<string, Set<string>>();
  for (const f of a) if (!keysB.has(f.key)) (onlyA.get(f.looseKey) ?? onlyA.set(f.looseKey, new Set()).get(f.looseKey)!).add(f.key);
  for (const f of b) if (!keysA.has(f.key)) (onlyB.get(f.looseKey) ?? onlyB.set(f.looseKey, new Set()).get(f.looseKey)!).add(f.key);
  const alias = new Map<string, string>(); // a B-only key → the A-only key it matches
  for (const [loose, inB] of onlyB) {
    const inA = onlyA.get(loose);
    if (inA?.size === 1 && inB.size === 1) alias.set([...inB][0], [...inA][0]);
  }
  const idsA = Int32Array.from(a, (f) => idOf(f.key));
  const idsB = Int32Array.from(b, (f) => idOf(alias.get(f.key) ?? f.key));
  return { idsA, idsB, count: ids.size };
}
