/**
 * What attribution learnt of a source file (its hot functions, their calls and code lines), saved by
 * the file's content hash, so the next report or profile of the same code parses nothing again. Lives
 * beside the test toolchain in the user's cache directory; a missing, unwritable or corrupt cache only
 * costs a parse.
 */
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SavedSourceFile } from './sourceFile';

/** Entries kept: beyond this, the oldest are removed (each is a few KB). */
const MAX_ENTRIES = 4000;
/** A saved entry larger than this is not read back (it was written by us, but the cache is a shared directory). */
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/** The cache directory, or null when switched off (HOTPATH_SOURCE_CACHE=off). */
export function parseCacheDirectory(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.HOTPATH_SOURCE_CACHE === 'off') return null;
  const root = env.HOTPATH_CACHE || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hotpath');
  return path.join(root, 'sources-v1');
}

export async function loadSaved(dir: string, hash: string): Promise<SavedSourceFile | undefined> {
  const file = path.join(dir, `${hash}.json`);
  try {
    const s = await stat(file);
    if (!s.isFile() || s.size > MAX_ENTRY_BYTES) return undefined;
    return JSON.parse(await readFile(file, 'utf8')) as SavedSourceFile;
  } catch {
    return undefined;
  }
}

export async function save(dir: string, entries: [string, SavedSourceFile][]): Promise<void> {
  if (!entries.length) return;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await Promise.all(entries.map(async ([hash, saved]) => {
      const file = path.join(dir, `${hash}.json`);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(saved), { mode: 0o600 });
      await rename(tmp, file); // atomic: a reader never sees half an entry
    }));
    await prune(dir);
  } catch {
    // A cache that cannot be written is only a slower next run.
  }
}

async function prune(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  if (names.length <= MAX_ENTRIES) return;
  const aged = await Promise.all(names.map(async (n) => ({ n, t: (await stat(path.join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
  aged.sort((a, b) => a.t - b.t);
  await Promise.all(aged.slice(0, names.length - Math.floor(MAX_ENTRIES * 0.8)).map(({ n }) => unlink(path.join(dir, n)).catch(() => undefined)));
}
