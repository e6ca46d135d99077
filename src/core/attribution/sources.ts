/**
 * Source files for attribution: read only when they are regular files below a size cap (a path comes
 * from the profile, so it may name a FIFO, a device or a huge bundle), indexed once per content. The
 * cache is keyed by the content's hash, so re-opening a profile or profiling again after an edit to
 * another file parses nothing twice.
 */
import { createHash } from 'node:crypto';
import { FileRefused, readBoundedFile } from '../common/boundedRead';
import type { CancellationToken } from '../common/cancellation';
import { loadSaved, parseCacheDirectory, save } from './parseCache';
import { restoreSourceFile, saveSourceFile, SourceFile } from './sourceFile';

/** Larger files are bundles or generated code: parsing them would cost more than the answer is worth. */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** A read that takes longer than this (network file system, a stuck disk) is given up. */
const READ_TIMEOUT_MS = 2000;
/** Indexes kept across profiles (by content hash). */
const CACHE_LIMIT = 256;

export interface SourceProvider {
  /** `file` ready to be read by attribution, or undefined when it cannot be read (missing, not regular, too large, too slow). */
  file(path: string): Promise<SourceFile | undefined>;
  /** Files asked for that could not be read, with why (for a warning that names them). */
  readonly skipped: Map<string, string>;
  /** Saves what was learnt of the files to the parse cache (after an attribution). */
  flush?(): Promise<void>;
}

const byContent = new Map<string, SourceFile>();
const hashOf = new WeakMap<SourceFile, string>();

function remember(hash: string, index: SourceFile): void {
  if (byContent.size >= CACHE_LIMIT) byContent.delete(byContent.keys().next().value as string);
  byContent.set(hash, index);
}

/**
 * Reads `file` through the one reader for profile-named files (boundedRead.ts: regular files only,
 * opened non-blocking, size-capped, time-limited, a bounded share of the thread pool), as text or a reason.
 */
export async function readBoundedText(file: string, maxBytes = MAX_SOURCE_BYTES, timeoutMs = READ_TIMEOUT_MS, token?: CancellationToken): Promise<{ text: string } | { error: string }> {
  try {
    return { text: (await readBoundedFile(file, { maxBytes, timeoutMs, token })).toString('utf8') };
  } catch (err) {
    if (err instanceof FileRefused) return { error: /not a regular file/.test(err.reason) ? 'not a regular file' : /limit/.test(err.reason) ? `larger than ${Math.round(maxBytes / 1024)} KB` : err.reason };
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { error: 'not found' };
    if ((err as Error).name === 'HotpathError') throw err; // cancelled: the caller stops
    return { error: `cannot read (${code ?? 'error'})` };
  }
}

/**
 * A provider over the local disk with the shared content cache; one per attribution run. Cached files
 * keep what was parsed of them (functions, the whole-file index), so the next profile of the same code
 * parses only what it did not need before.
 */
export function diskSources(read: (file: string) => Promise<{ text: string } | { error: string }> = (f) => readBoundedText(f), cacheDir: string | null = parseCacheDirectory()): SourceProvider {
  const pending = new Map<string, Promise<SourceFile | undefined>>();
  const skipped = new Map<string, string>();
  return {
    skipped,
    file(file) {
      let p = pending.get(file);
      if (!p) {
        p = (async () => {
          if (!file.startsWith('/') && !/^[a-zA-Z]:[\\/]/.test(file)) return undefined;
          const got = await read(file);
          if ('error' in got) {
            skipped.set(file, got.error);
            return undefined;
          }
          const hash = createHash('sha1').update(file).update('\0').update(got.text).digest('hex');
          const cached = byContent.get(hash);
          if (cached) return cached;
          const saved = cacheDir ? loadSaved(cacheDir, hash) : undefined;
          const source = (saved && restoreSourceFile(file, got.text, saved)) || new SourceFile(file, got.text);
          hashOf.set(source, hash);
          remember(hash, source);
          return source;
        })();
        pending.set(file, p);
      }
      return p;
    },
    async flush() {
      if (!cacheDir) return;
      const dirty: [string, ReturnType<typeof saveSourceFile>][] = [];
      for (const p of pending.values()) {
        const source = await p.catch(() => undefined);
        const hash = source && hashOf.get(source);
        if (!source?.dirty || !hash) continue;
        dirty.push([hash, saveSourceFile(source)]);
        source.dirty = false;
      }
      await save(cacheDir, dirty);
    },
  };
}
