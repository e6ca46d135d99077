/**
 * Reading files whose names come from a profile (script URLs, source-map references, sidecars beside a
 * profile someone sent): such a name may point at a FIFO (opening it blocks until someone writes),
 * `/dev/stdin`, `/dev/zero` (never ends), or a multi-gigabyte file. So: regular files only (checked
 * before opening and again on the open descriptor, which is opened non-blocking), a size cap, a time
 * limit and the caller's cancellation — and at most two reads on libuv's thread pool at a time, since
 * that pool (four threads) is shared with the whole process, which in VS Code is the extension host.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { type CancellationToken, neverCancelled } from './cancellation';
import { cancelledError } from './errors';

export interface BoundedReadOptions {
  /** Larger files are refused without being read. */
  maxBytes: number;
  /** The whole read, open to close; default 10 s. */
  timeoutMs?: number;
  token?: CancellationToken;
}

/** Profile-named scripts, source maps and sidecars: far above any real one, far below "fills the heap". */
export const PROFILE_NAMED_FILE_MAX_BYTES = 128 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const CHUNK = 1 << 20;

/** The file was not read: not a regular file, too large, too slow. `code` is set like a Node error's. */
export class FileRefused extends Error {
  constructor(readonly file: string, readonly reason: string, readonly code = 'EHOTPATHREFUSED') {
    super(`${file}: ${reason}`);
  }
}

/** Permits for the thread pool: a hung read (a stalled network mount) can hold at most these. */
class Permits {
  private waiting: Array<() => void> = [];
  constructor(private free: number) {}
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); else this.free++;
    }
  }
}
const pool = new Permits(2);

// O_NONBLOCK: should a FIFO be swapped in after the stat, opening it still returns at once.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);

function describeKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function check(file: string, stat: fs.Stats, maxBytes: number): void {
  if (!stat.isFile()) throw new FileRefused(file, `it is ${describeKind(stat)}, not a regular file`);
  if (stat.size > maxBytes) throw new FileRefused(file, `it is ${stat.size} bytes, over the ${maxBytes}-byte limit`);
}

/**
 * Files read in the last minute, by identity (device, inode, size, change times): the source-map pass
 * reads every script of a profile and attribution then re-reads the hot ones, so the second read costs
 * one stat instead of five file operations on the shared thread pool. Bounded in bytes and age, so a
 * long-lived extension host keeps no stale texts around.
 */
const RECENT_MAX_BYTES = 32 * 1024 * 1024;
const RECENT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const RECENT_TTL_MS = 60_000;
const recent = new Map<string, { identity: string; bytes: Buffer; at: number }>();
let recentBytes = 0;

const identityOf = (stat: fs.Stats): string => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;

function dropRecent(file: string): void {
  const entry = recent.get(file);
  if (!entry) return;
  recent.delete(file);
  recentBytes -= entry.bytes.length;
}

function recall(file: string, stat: fs.Stats): Buffer | undefined {
  const entry = recent.get(file);
  if (!entry) return undefined;
  if (entry.identity !== identityOf(stat) || Date.now() - entry.at > RECENT_TTL_MS) {
    dropRecent(file);
    return undefined;
  }
  return entry.bytes;
}

function rememberRead(file: string, stat: fs.Stats, bytes: Buffer): void {
  if (bytes.length > RECENT_MAX_FILE_BYTES || bytes.length !== stat.size) return;
  dropRecent(file);
  const now = Date.now();
  for (const [key, entry] of recent) {
    if (recentBytes + bytes.length <= RECENT_MAX_BYTES && now - entry.at <= RECENT_TTL_MS) break;
    dropRecent(key); // oldest first (insertion order)
  }
  recent.set(file, { identity: identityOf(stat), bytes, at: now });
  recentBytes += bytes.length;
}

/**
 * Reads a regular file of at most `maxBytes`, within the time limit, unless cancelled. The returned
 * buffer may be shared with other readers of the same file: do not write to it.
 */
export async function readBoundedFile(file: string, options: BoundedReadOptions): Promise<Buffer> {
  const token = options.token ?? neverCancelled;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (token.isCancellationRequested) throw cancelledError();
  const deadline = Date.now() + timeoutMs;
  const step = <T>(work: () => Promise<T>): Promise<T> => {
    if (token.isCancellationRequested) throw cancelledError();
    const left = deadline - Date.now();
    if (left <= 0) throw new FileRefused(file, `reading it took longer than ${timeoutMs} ms`, 'ETIMEDOUT');
    let timer: NodeJS.Timeout | undefined;
    let sub: { dispose(): void } | undefined;
    const bounded = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FileRefused(file, `reading it took longer than ${timeoutMs} ms`, 'ETIMEDOUT')), left);
      sub = token.onCancellationRequested(() => reject(cancelledError()));
    });
    return Promise.race([pool.run(work), bounded]).finally(() => { clearTimeout(timer); sub?.dispose(); });
  };
  const before = await step(() => fsp.stat(file));
  check(file, before, options.maxBytes);
  const known = recall(file, before);
  if (known) return known;
  const handle = await step(() => fsp.open(file, OPEN_FLAGS));
  try {
    const stat = await step(() => handle.stat());
    check(file, stat, options.maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, options.maxBytes + 1 - total));
      if (buf.length === 0) throw new FileRefused(file, `it grew over the ${options.maxBytes}-byte limit while being read`);
      const { bytesRead } = await step(() => handle.read(buf, 0, buf.length, null));
      if (bytesRead === 0) break;
      chunks.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    const bytes = Buffer.concat(chunks, total);
    rememberRead(file, stat, bytes);
    return bytes;
  } finally {
    // Closing may wait for a read the deadline gave up on: not awaited, the caller has its answer.
    void handle.close().catch(() => undefined);
  }
}

/** The same checks for a synchronous read (no time limit: a regular local file either reads or fails). */
export function readBoundedFileSync(file: string, maxBytes: number): Buffer {
  check(file, fs.statSync(file), maxBytes);
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    check(file, fs.fstatSync(fd), maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      if (buf.length === 0) throw new FileRefused(file, `it grew over the ${maxBytes}-byte limit while being read`);
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A text reader (FileReader-shaped) with these bounds, for source maps, scripts and sidecars; `exists`
 * says whether a path is a regular file (a stat, never an open).
 */
export function boundedTextReader(options: Partial<BoundedReadOptions> = {}): { readFile(file: string): Promise<string>; exists(file: string): Promise<boolean> } {
  const bounds = { maxBytes: PROFILE_NAMED_FILE_MAX_BYTES, ...options };
  return {
    readFile: async (file) => (await readBoundedFile(file, bounds)).toString('utf8'),
    exists: (file) => fsp.stat(file).then((s) => s.isFile(), () => false),
  };
}
