/**
 * Paths from another machine to this workspace. A production profile names `/app/dist/server.js` or
 * `/usr/src/app/src/orders.ts`; the code is in the workspace under another root. In order:
 * 1. a path that exists here as it is stays (a profile recorded on this machine);
 * 2. `--map-path FROM=TO` / `hotpath.pathMappings`: the longest FROM that is a prefix of the path;
 * 3. the longest suffix of the path that exists under a workspace root (`/app/dist/server.js` →
 *    `<root>/dist/server.js`). A match on the file name alone is taken only when the same directory prefix
 *    already mapped another file to that root with two or more components in common: a file that merely
 *    has the same name is never used. Several roots matching equally well is ambiguous: not mapped.
 * Source maps then take mapped built code to its sources (applySourceMaps). What could not be found is
 * reported with why, and its functions keep the production path, which names no file here: nothing is
 * painted on them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { invalidOption } from '../common/errors';

export interface PathMapping {
  from: string;
  to: string;
}

export interface PathMapOptions {
  /** Workspace roots (the CLI's cwd; VS Code's workspace folders). */
  roots: string[];
  mappings?: PathMapping[];
}

export type PathMatch = 'as-is' | 'mapping' | 'suffix';

export interface PathMapReport {
  /** Distinct files the profile names (code with a path). */
  files: number;
  mapped: number;
  /** How the mapped files were found, and a few examples. */
  how: Record<PathMatch, number>;
  examples: { from: string; to: string; how: PathMatch }[];
  /** What could not be found, and why (at most MAX_LISTED; `notFoundCount` counts them all). */
  notFound: { file: string; reason: string }[];
  notFoundCount: number;
}

const MAX_LISTED = 50;
const MAX_SUFFIX_COMPONENTS = 16;
const CONCURRENCY = 16;

export function parsePathMapping(text: string): PathMapping {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw invalidOption(`--map-path ${text}: expected FROM=TO, e.g. --map-path /app=.`);
  return { from: text.slice(0, eq), to: text.slice(eq + 1) };
}

/** Paths a profile names that could be on disk: absolute or relative file paths, file:// urls; not node:, not natives. */
export function isMappablePath(file: string): boolean {
  if (!file || file.startsWith('node:') || file.startsWith('internal/')) return false;
  if (/^[a-zA-Z]:[\\/]/.test(file) || file.startsWith('/') || file.startsWith('./') || file.startsWith('../') || file.startsWith('file://')) return true;
  return false;
}

const slashes = (p: string) => p.replace(/\\/g, '/');

function toPath(file: string): string {
  if (file.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(file).pathname);
    } catch {
      return file.slice(7);
    }
  }
  return file;
}

const existing = new Map<string, Promise<boolean>>();
function isFile(p: string): Promise<boolean> {
  let known = existing.get(p);
  if (!known) {
    known = fs.promises.stat(p).then((s) => s.isFile(), () => false);
    existing.set(p, known);
    // A long-lived extension host must not keep every path it ever checked.
    if (existing.size > 50_000) existing.clear();
  }
  return known;
}

async function inBatches<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => { while (next < items.length) await work(items[next++]); };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

interface SuffixHit { local: string; k: number; root: string; prefix: string }

/**
 * Maps each file (the profile's spelling) to a local path, or leaves it out with a reason.
 * The result maps only files that were found; `report` says what happened to all of them.
 */
export async function mapPaths(files: Iterable<string>, options: PathMapOptions): Promise<{ map: Map<string, string>; report: PathMapReport }> {
  existing.clear(); // the workspace may have changed since the last profile
  const roots = [...new Set(options.roots.map((r) => path.resolve(r)))];
  const base = roots[0] ?? process.cwd();
  const mappings = (options.mappings ?? [])
    .map((m) => ({ from: slashes(m.from).replace(/\/+$/, ''), to: path.resolve(base, m.to) }))
    .sort((a, b) => b.from.length - a.from.length);
  const list = [...new Set(files)].filter(isMappablePath);
  const map = new Map<string, string>();
  const how: Record<PathMatch, number> = { 'as-is': 0, mapping: 0, suffix: 0 };
  const examples: PathMapReport['examples'] = [];
  const notFound: { file: string; reason: string }[] = [];
  const found = (file: string, local: string, kind: PathMatch) => {
    map.set(file, local);
    how[kind]++;
    if (kind !== 'as-is' && examples.length < 5) examples.push({ from: file, to: local, how: kind });
  };
  const suffixHits = new Map<string, SuffixHit[]>();

  await inBatches(list, async (file) => {
    const p = slashes(toPath(file));
    const relative = p.startsWith('./') || p.startsWith('../');
    if (!relative && await isFile(toPath(file))) return found(file, path.resolve(toPath(file)), 'as-is');
    const mapping = mappings.find((m) => p === m.from || p.startsWith(`${m.from}/`));
    if (mapping) {
      const local = path.join(mapping.to, p.slice(mapping.from.length));
      if (await isFile(local)) return found(file, local, 'mapping');
      notFound.push({ file, reason: `--map-path ${mapping.from}=… maps it to ${local}, which does not exist` });
      return;
    }
    if (relative) {
      // The Pyroscope SDK and others write paths relative to the app's working directory.
      for (const root of roots) {
        const local = path.resolve(root, p);
        if (await isFile(local)) return found(file, local, 'suffix');
      }
      notFound.push({ file, reason: `not under ${roots.length > 1 ? 'any workspace folder' : base}` });
      return;
    }
    const parts = p.split('/').filter((c) => c !== '' && c !== '.');
    const hits: SuffixHit[] = [];
    for (const root of roots) {
      for (let k = Math.min(parts.length, MAX_SUFFIX_COMPONENTS); k >= 1; k--) {
        const local = path.join(root, ...parts.slice(parts.length - k));
        if (await isFile(local)) {
          hits.push({ local, k, root, prefix: parts.slice(0, parts.length - k).join('/') });
          break;
        }
      }
    }
    suffixHits.set(file, hits);
  });

  // Directory prefixes confirmed by a match of two or more components: (production prefix, root).
  const confirmed = new Set<string>();
  for (const hits of suffixHits.values()) {
    const best = Math.max(0, ...hits.map((h) => h.k));
    const top = hits.filter((h) => h.k === best);
    if (best >= 2 && top.length === 1) confirmed.add(`${top[0].prefix}\n${top[0].root}`);
  }
  for (const [file, hits] of suffixHits) {
    if (!hits.length) {
      notFound.push({ file, reason: `no file under ${roots.length > 1 ? 'the workspace folders' : base} ends with any part of this path; give --map-path FROM=TO` });
      continue;
    }
    const best = Math.max(...hits.map((h) => h.k));
    const top = hits.filter((h) => h.k === best);
    if (top.length > 1) {
      notFound.push({ file, reason: `ambiguous: ${top.map((h) => h.local).join(' and ')} match equally well; give --map-path FROM=TO` });
      continue;
    }
    const hit = top[0];
    if (hit.k >= 2 || confirmed.has(`${hit.prefix}\n${hit.root}`)) found(file, hit.local, 'suffix');
    else notFound.push({ file, reason: `only its file name matches ${hit.local}; give --map-path ${path.posix.dirname(slashes(toPath(file)))}=DIR if that is the file` });
  }
  notFound.sort((a, b) => a.file.localeCompare(b.file));
  return {
    map,
    report: { files: list.length, mapped: map.size, how, examples, notFound: notFound.slice(0, MAX_LISTED), notFoundCount: notFound.length },
  };
}
