/**
 * Gzip, bounded: pprof files are gzip-compressed protobuf ("On-disk, the serialized proto must be
 * gzip-compressed"), and a few kilobytes of gzip can expand to gigabytes. The output is capped (the
 * stream stops as soon as it passes the cap), a damaged or cut-off stream is a clear error, and the
 * caller's cancellation stops it between chunks.
 */
import * as zlib from 'node:zlib';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { cancelledError } from '../common/errors';
import { pprofInvalid } from './decode';

/** Far above any real profile's protobuf (a 200 MB .cpuprofile exports to ~20 MB); far below "fills the heap". */
export const MAX_DECOMPRESSED_BYTES = 1024 * 1024 * 1024;

export const isGzip = (buf: Uint8Array): boolean => buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;

const mb = (n: number) => `${Math.round(n / 1048576)} MB`;

export function gunzipBounded(input: Uint8Array, source: string, options: { maxBytes?: number; token?: CancellationToken } = {}): Promise<Buffer> {
  const max = options.maxBytes ?? MAX_DECOMPRESSED_BYTES;
  const token = options.token ?? neverCancelled;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 });
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      sub.dispose();
      if (err) {
        gunzip.destroy();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    };
    const sub = token.onCancellationRequested(() => finish(cancelledError('Reading the profile')));
    gunzip.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > max) {
        finish(pprofInvalid(source, `it decompresses to more than ${mb(max)} (stopped there: a gzip bomb, or not a profile)`, 'Open the profile as its profiler wrote it; a real profile is far smaller.'));
        return;
      }
      chunks.push(chunk);
    });
    gunzip.on('error', (err: NodeJS.ErrnoException) => {
      const cut = err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message);
      finish(cut
        ? pprofInvalid(source, `its gzip stream is truncated (${err.message})`, 'The file was probably cut off while being written or copied; fetch or record it again.')
        : pprofInvalid(source, `its gzip data is damaged (${err.message})`, 'Fetch or record the profile again.'));
    });
    gunzip.on('end', () => finish(null));
    // In slices, so a cancellation or the cap stops a large input early.
    const SLICE = 4 << 20;
    let offset = 0;
    const feed = () => {
      while (!done && offset < input.length) {
        const slice = input.subarray(offset, Math.min(input.length, offset + SLICE));
        offset += slice.length;
        if (!gunzip.write(slice)) {
          gunzip.once('drain', feed);
          return;
        }
      }
      if (!done && offset >= input.length) gunzip.end();
    };
    feed();
  });
}
