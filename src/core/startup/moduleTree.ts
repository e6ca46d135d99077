/**
 * The module-load tree of a start, from the startup preload's records of every timed run: which module
 * was loaded by which, from which line, and what it cost — its own top-level work (self) and with the
 * modules it loaded first (total) — averaged over the runs, grouped by npm package. Pure.
 *
 * CommonJS modules are measured (the loader's `load` call, timed in the process). ES modules are not
 * loaded through a call that can be timed: their evaluation time is read from the merged CPU profile
 * (the module's top-level frame) and passed in; `timing` says which is which.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageName } from '../profile/categories';
import type { ModulesFile } from './reports';

export interface ModuleRow {
  /** What the code asked for (`./lib/config`, `express`); the entry point as a path. */
  module: string;
  package: string | null;
  /** Absolute path (or URL, for modules that are not files). */
  file: string;
  /** The line that asked for it first (1-based); null for the entry point or when not known. */
  requiredFrom: { file: string; line: number | null } | null;
  /** Its own top-level work (reading, compiling and running it, without the modules it loaded). */
  selfMs: number;
  /** With the modules it loaded first (what removing or deferring this require would save). */
  totalMs: number;
  /** Modules in its subtree, itself included: `+38 ms (12 modules)`. */
  modules: number;
  format: 'commonjs' | 'esm';
  /** `measured`: timed in the process; `sampled`: read from the merged CPU profile (ES modules). */
  timing: 'measured' | 'sampled';
  /** In how many of the timed runs it was loaded during startup. */
  runs: number;
  /** The module it was loaded under (file), for the tree. */
  parent: string | null;
}

export interface PackageRow {
  package: string;
  /** Sum of its modules' own time. */
  selfMs: number;
  /** Loading it, its own dependencies included (its entry modules' totals). */
  totalMs: number;
  modules: number;
  /** Where the app (or another package) first asked for it. */
  requiredFrom: { file: string; line: number | null } | null;
}

export interface ModuleTree {
  modules: ModuleRow[];
  packages: PackageRow[];
  /** The hooks' own bookkeeping per run, ms (the cost of measuring modules). */
  hookMs: number;
  /** Why ES module edges are missing, when they are. */
  esmUnavailable?: string;
}

export interface ModuleTreeInput {
  runs: ModulesFile[];
  cwd: string;
  /** Mean evaluation time per run of an ES module (by path), from the merged profile; undefined when not sampled. */
  esmSelfMs?: (file: string) => number | undefined;
  /** The text of a file (for the line of an `import`); undefined when it cannot be read. */
  sourceOf?: (file: string) => string | undefined;
}

/** file:// URLs as paths; other URLs (data:, node:) as they are. */
export function fileOf(urlOrPath: string): string {
  if (!urlOrPath.startsWith('file:')) return urlOrPath;
  try { return fileURLToPath(urlOrPath); } catch { return urlOrPath; }
}

interface Acc {
  file: string;
  request: string | null;
  parents: Map<string | null, number>;
  from: Map<string, { file: string; line: number | null; count: number }>;
  total: number[];
  self: number[];
  format: 'commonjs' | 'esm';
}

function mostCommon<K>(counts: Map<K, number>): K | undefined {
  let best: K | undefined;
  let n = -1;
  for (const [k, c] of counts) if (c > n) { best = k; n = c; }
  return best;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/**
 * The line of a static `import … from 'x'` / `export … from 'x'` / `import 'x'` / `import('x')` /
 * `require('x')` of `specifier` in `source` (1-based), or null when the text does not show it
 * (a computed specifier).
 */
export function importLine(source: string, specifier: string): number | null {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*|\\brequire\\s*\\(\\s*)(['"\`])${quoted}\\1`);
  const m = re.exec(source);
  if (!m) return null;
  let line = 1;
  for (let i = 0; i < m.index + m[0].length - specifier.length - 1; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

export function buildModuleTree(input: ModuleTreeInput): ModuleTree {
  const acc = new Map<string, Acc>();
  const get = (file: string, format: Acc['format'], request: string | null) => {
    let a = acc.get(file);
    if (!a) acc.set(file, (a = { file, request, parents: new Map(), from: new Map(), total: [], self: [], format }));
    if (!a.request && request) a.request = request;
    return a;
  };
  let hookMs = 0;
  let esmUnavailable: string | undefined;
  for (const run of input.runs) {
    hookMs += run.hookMs;
    if (run.esmUnavailable) esmUnavailable = run.esmUnavailable;
    const seen = new Set<string>();
    for (const r of run.cjs) {
      const file = fileOf(r.file);
      if (seen.has(file)) continue; // loaded twice in one run (a cleared require cache): the first load is startup's
      seen.add(file);
      const a = get(file, 'commonjs', r.request);
      a.total.push(r.totalMs);
      a.self.push(Math.max(0, r.totalMs - r.childMs));
      const parent = r.parent ? fileOf(r.parent) : null;
      a.parents.set(parent, (a.parents.get(parent) ?? 0) + 1);
      if (r.from) {
        const from = fileOf(r.from);
        const key = `${from}:${r.line}`;
        const f = a.from.get(key) ?? { file: from, line: r.line, count: 0 };
        f.count++;
        a.from.set(key, f);
      }
    }
    for (const e of run.esm) {
      const file = fileOf(e.url);
      const parent = e.parentUrl ? fileOf(e.parentUrl) : null;
      if (seen.has(`esm:${file}`)) continue;
      seen.add(`esm:${file}`);
      const known = acc.get(file);
      // The resolver often leaves the format open (a package's .js is decided at load): what the CommonJS loader loaded is CommonJS.
      const a = known ?? get(file, e.format === 'commonjs' ? 'commonjs' : 'esm', e.specifier);
      // An ES module importing CommonJS: the CommonJS loader timed it, with no CommonJS parent on its
      // stack; the import is its parent and its line.
      if (known && known.format === 'commonjs') {
        if (known.parents.has(null) && parent) { known.parents.set(parent, (known.parents.get(parent) ?? 0) + (known.parents.get(null) ?? 0)); known.parents.delete(null); }
        // The ES module loader hands CommonJS the resolved path; what the code asked for is the specifier.
        if (!known.request || path.isAbsolute(known.request) || known.request.startsWith('file:')) known.request = e.specifier;
      } else if (a.format === 'esm') {
        a.parents.set(parent, (a.parents.get(parent) ?? 0) + 1);
      }
      if (parent && ![...a.from.values()].some((f) => f.file === parent)) {
        const line = input.sourceOf ? (() => { const text = input.sourceOf!(parent); return text === undefined ? null : importLine(text, e.specifier); })() : null;
        a.from.set(`${parent}:${line}`, { file: parent, line, count: 1 });
      }
    }
  }
  const runs = Math.max(1, input.runs.length);

  // ES modules: evaluation from the profile, averaged over the profiled runs by the caller.
  for (const a of acc.values()) {
    if (a.format !== 'esm') continue;
    const ms = input.esmSelfMs?.(a.file);
    a.self = ms === undefined ? [] : [ms];
  }

  const parentOf = new Map<string, string | null>();
  for (const a of acc.values()) {
    const p = mostCommon(a.parents) ?? null;
    parentOf.set(a.file, p !== null && acc.has(p) && p !== a.file ? p : null);
  }
  const children = new Map<string | null, string[]>();
  for (const [file, p] of parentOf) {
    const list = children.get(p) ?? [];
    list.push(file);
    children.set(p, list);
  }
  // Totals and subtree sizes, bottom-up (iteratively: deep trees must not overflow the stack).
  const totals = new Map<string, number>();
  const counts = new Map<string, number>();
  const order: string[] = [];
  const visiting = [...(children.get(null) ?? [])];
  const visited = new Set<string>();
  while (visiting.length) {
    const f = visiting.pop()!;
    if (visited.has(f)) continue;
    visited.add(f);
    order.push(f);
    for (const c of children.get(f) ?? []) visiting.push(c);
  }
  for (const f of acc.keys()) if (!visited.has(f)) order.push(f); // a cycle among parents: keep the rows
  for (let i = order.length - 1; i >= 0; i--) {
    const f = order[i];
    const a = acc.get(f)!;
    const kids = (children.get(f) ?? []).filter((c) => c !== f);
    const count = 1 + kids.reduce((n, c) => n + (counts.get(c) ?? 1), 0);
    counts.set(f, count);
    // Measured totals include the children; sampled ES modules add theirs up.
    const total = a.format === 'commonjs' && a.total.length ? a.total.reduce((s, x) => s + x, 0) / runs : mean(a.self) + kids.reduce((s, c) => s + (totals.get(c) ?? 0), 0);
    totals.set(f, total);
  }

  const modules: ModuleRow[] = [...acc.values()].map((a) => {
    const from = [...a.from.values()].sort((x, y) => y.count - x.count)[0];
    const parent = parentOf.get(a.file) ?? null;
    const measured = a.format === 'commonjs' && a.total.length > 0;
    return {
      module: parent === null && !from ? displayEntry(a.file, input.cwd) : a.request ?? path.basename(a.file),
      package: packageName(a.file),
      file: a.file,
      requiredFrom: from ? { file: from.file, line: from.line } : null,
      selfMs: measured ? a.self.reduce((s, x) => s + x, 0) / runs : mean(a.self),
      totalMs: totals.get(a.file) ?? 0,
      modules: counts.get(a.file) ?? 1,
      format: a.format,
      timing: measured ? 'measured' : 'sampled',
      runs: a.format === 'commonjs' ? a.total.length : input.runs.length,
      parent,
    };
  });
  modules.sort((x, y) => y.selfMs - x.selfMs || y.totalMs - x.totalMs);
  return { modules, packages: packageRows(modules), hookMs: hookMs / runs, ...(esmUnavailable ? { esmUnavailable } : {}) };
}

function displayEntry(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

/** Per package: its modules' own time, and its entry modules' totals (what loading it costs). */
export function packageRows(modules: readonly ModuleRow[]): PackageRow[] {
  const byFile = new Map(modules.map((m) => [m.file, m]));
  const rows = new Map<string, PackageRow & { entryAt: number }>();
  for (const m of modules) {
    if (!m.package) continue;
    const row = rows.get(m.package) ?? { package: m.package, selfMs: 0, totalMs: 0, modules: 0, requiredFrom: null, entryAt: Infinity };
    row.selfMs += m.selfMs;
    row.modules++;
    const parent = m.parent ? byFile.get(m.parent) : undefined;
    if (!parent || parent.package !== m.package) {
      row.totalMs += m.totalMs;
      // The first place that asked for the package: the entry with the largest cost.
      if (m.requiredFrom && (row.requiredFrom === null || m.totalMs > row.entryAt)) { row.requiredFrom = m.requiredFrom; row.entryAt = m.totalMs; }
    }
    rows.set(m.package, row);
  }
  return [...rows.values()].map(({ entryAt: _e, ...r }) => r).sort((a, b) => b.totalMs - a.totalMs);
}
