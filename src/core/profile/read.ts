/**
 * Reads a profile file straight into a buffer with the scanner's zero padding, so the bytes are never
 * copied or decoded into a JS string (that alone would double memory on a 500 MB profile).
 */
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { profileNotFound } from './errors';
import { PADDING } from './scanner';

export async function readPadded(file: string): Promise<{ buf: Buffer; length: number }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw notFound(file, err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw profileNotFound(file, stat.isDirectory() ? 'it is a directory, not a file' : 'it is not a regular file');
    let buf = Buffer.allocUnsafe(stat.size + PADDING);
    let length = 0;
    for (;;) {
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
      const { bytesRead } = await handle.read(buf, length, buf.length - PADDING - length, length);
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

function notFound(file: string, err: unknown) {
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
