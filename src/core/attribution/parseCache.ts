/**
 * What attribution learnt of a source file (its hot functions, their calls and code lines), saved by
 * the file's content hash, so the next report or profile of the same code parses nothing again. Lives
 * beside the test toolchain in the user's cache directory; a missing, unwritable or corrupt cache only
 * costs a parse.
 */
import { mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { readBoundedFileSync } from '../common/boundedRead';
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

/**
 * A saved entry, or undefined. Read synchronously: entries are small files in Hotpath's own cache
 * directory, and a warm report reads hundreds of them, where five thread-pool round trips per file
 * (stat, open, fstat, read, close) cost more than the reads (attribution runs off the UI thread).
 */
export function loadSaved(dir: string, hash: string): SavedSourceFile | undefined {
  try {
    return JSON.parse(readBoundedFileSync(path.join(dir, `${hash}.json`), MAX_ENTRY_BYTES).toString('utf8')) as SavedSourceFile;
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
