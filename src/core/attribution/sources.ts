/**
 * Source files for attribution: read only when they are regular files below a size cap (a path comes
 * from the profile, so it may name a FIFO, a device or a huge bundle), indexed once per content. The
 * cache is keyed by the content's hash, so re-opening a profile or profiling again after an edit to
 * another file parses nothing twice.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
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

/** Reads `file` if it is a regular file of at most `maxBytes`; opening never blocks (O_NONBLOCK), so a FIFO cannot hang it. */
export async function readBoundedText(file: string, maxBytes = MAX_SOURCE_BYTES, timeoutMs = READ_TIMEOUT_MS): Promise<{ text: string } | { error: string }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : `cannot open (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { error: 'not a regular file' };
    if (stat.size > maxBytes) return { error: `larger than ${Math.round(maxBytes / 1024)} KB` };
    const buf = Buffer.alloc(stat.size);
    const read = (async () => {
      let at = 0;
      while (at < buf.length) {
        const { bytesRead } = await handle.read(buf, at, buf.length - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return at;
    })();
    const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
    const got = await Promise.race([read, timeout]);
    if (got === 'timeout') return { error: `read took longer than ${timeoutMs} ms` };
    return { text: buf.toString('utf8', 0, got) };
  } catch (err) {
    return { error: `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    if (timer) clearTimeout(timer);
    await handle.close().catch(() => undefined);
  }
}

/**
 * The same checks as readBoundedText, with synchronous calls: for a one-shot process (the CLI) reading
 * a few hundred small files, the thread-pool round trips of the async calls cost more than the reads.
 * Opening never blocks (O_NONBLOCK) and only regular files below the cap are read, so a FIFO or device
 * named by a profile cannot hang it.
 */
export function readBoundedTextSync(file: string, maxBytes = MAX_SOURCE_BYTES): { text: string } | { error: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : `cannot open (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { error: 'not a regular file' };
    if (stat.size > maxBytes) return { error: `larger than ${Math.round(maxBytes / 1024)} KB` };
    const buf = Buffer.allocUnsafe(stat.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return { text: buf.toString('utf8', 0, at) };
  } catch (err) {
    return { error: `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
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
          const saved = cacheDir ? await loadSaved(cacheDir, hash) : undefined;
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
