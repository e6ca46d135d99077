/**
 * Reads a profile file straight into a buffer with the scanner's zero padding, so the bytes are never
 * copied or decoded into a JS string (that alone would double memory on a 500 MB profile).
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { profileNotFound, tooLarge } from './errors';
import { PADDING } from './scanner';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';

/** Non-blocking open: a FIFO swapped in after the stat must not block (see common/boundedRead.ts). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Below this size a synchronous read is faster than the async round trips and blocks for < 10 ms. */
const SYNC_READ_MAX_BYTES = 16 << 20;

export async function readPadded(file: string, token: CancellationToken = neverCancelled): Promise<{ buf: Buffer; length: number }> {
  throwIfCancelled(token, 'Reading the profile');
  // Stat before opening: opening a FIFO or device would block (forever, if nothing writes to it).
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw profileNotFound(file, stat.isDirectory() ? 'it is a directory, not a file' : 'it is not a regular file');
    size = stat.size;
  } catch (err) {
    throw err instanceof Error && err.name === 'HotpathError' ? err : notFound(file, err);
  }
  if (size <= SYNC_READ_MAX_BYTES) {
    const small = readSmallSync(file, size);
    if (small !== null) return small;
  }
  let handle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (err) {
    throw notFound(file, err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw profileNotFound(file, stat.isDirectory() ? 'it is a directory, not a file' : 'it is not a regular file');
    let buf = Buffer.allocUnsafe(stat.size + PADDING);
    let length = 0;
    for (;;) {
      throwIfCancelled(token, 'Reading the profile');
      if (length === buf.length - PADDING) {
        // Filled what stat promised; the file may still be growing (a profiler writing it), so probe.
        const probe = Buffer.allocUnsafe(64 * 1024);
        const { bytesRead } = await handle.read(probe, 0, probe.length, length);
        if (bytesRead === 0) break;
        const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, length + bytesRead + PADDING));
        buf.copy(grown, 0, 0, length);
        probe.copy(grown, length, 0, bytesRead);
        buf = grown;
        length += bytesRead;
        continue;
      }
      // In slices, so cancellation is honoured between them on a large file.
      const { bytesRead } = await handle.read(buf, length, Math.min(64 << 20, buf.length - PADDING - length), length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { buf, length };
  } catch (err) {
    if (err instanceof Error && err.name === 'HotpathError') throw err;
    throw notFound(file, err);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A small regular file, read synchronously; null if it grew while read (the async path handles that). */
function readSmallSync(file: string, size: number): { buf: Buffer; length: number } | null {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (err) {
    throw notFound(file, err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw profileNotFound(file, 'it is not a regular file');
    const buf = Buffer.allocUnsafe(size + PADDING);
    let length = 0;
    while (length < size) {
      const n = readSync(fd, buf, length, size - length, length);
      if (n === 0) break; // shrank: the scanner will report the truncation
      length += n;
    }
    if (length === size && readSync(fd, Buffer.allocUnsafe(1), 0, 1, length) > 0) return null;
    return { buf, length };
  } catch (err) {
    if (err instanceof Error && err.name === 'HotpathError') throw err;
    throw notFound(file, err);
  } finally {
    closeSync(fd);
  }
}

function notFound(file: string, err: unknown) {
  if (err instanceof RangeError) return tooLarge(file, err.message); // e.g. over the maximum Buffer size
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return profileNotFound(file, 'the file does not exist. Check the path, or record a profile first');
    case 'EACCES':
    case 'EPERM':
      return profileNotFound(file, 'permission denied. Check the file\'s permissions');
    case 'EISDIR':
      return profileNotFound(file, 'it is a directory, not a file');
    default:
      return profileNotFound(file, `it could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** "main" / "worker N" from a `--cpu-prof` file name (CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile). */
export function threadFromFileName(file: string): string | undefined {
  const match = /^CPU\.\d{8}\.\d{6}\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file));
  if (!match) return undefined;
  return match[1] === '0' ? 'main' : `worker ${match[1]}`;
}
