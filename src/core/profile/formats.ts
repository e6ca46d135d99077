/**
 * Which format a profile file is, read into the model (before source maps): a .cpuprofile (JSON, also
 * gzipped), a pprof profile (protobuf, raw or gzipped: `.pb.gz`, `.pprof`), or a 0x capture (its output
 * folder, or the `--prof-process --preprocess` JSON inside it). Sniffed from the bytes, not the name.
 */
import * as fs from 'node:fs';
import { neverCancelled, throwIfCancelled } from '../common/cancellation';
import { pprofBytes, pprofModel } from '../pprof/load';
import { isGzip } from '../pprof/gunzip';
import { isZeroXJson, readZeroXFolder, zeroXModel } from '../zeroX/load';
import { modelFromBuffer } from './model';
import { readPadded } from './read';
import { PADDING } from './scanner';
import type { ModelOptions, ProfileModel } from './types';

/** The first byte that is not JSON whitespace, or -1. */
function firstByte(buf: Uint8Array, length: number): number {
  for (let i = 0; i < length && i < 4096; i++) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
  }
  return -1;
}

const looksLikeJson = (buf: Uint8Array, length: number) => {
  const b = firstByte(buf, length);
  return b === 0x7b /* { */ || b === 0x5b /* [ */ || b === -1;
};

export async function readProfileModel(file: string, options: ModelOptions): Promise<ProfileModel> {
  const source = options.sourceName ?? file;
  let stat: fs.Stats | undefined;
  try { stat = fs.statSync(file); } catch { /* readPadded says why */ }
  if (stat?.isDirectory()) {
    const folder = await readZeroXFolder(file, options.token);
    return zeroXModel(folder.json, { source, thread: options.thread, pathMap: options.pathMap, meta: folder.meta });
  }
  const { buf, length } = await readPadded(file, options.token);
  let bytes: Uint8Array = buf.subarray(0, length);
  if (isGzip(bytes)) {
    bytes = await pprofBytes(bytes, source, options.token);
    throwIfCancelled(options.token ?? neverCancelled, 'Reading the profile');
    if (looksLikeJson(bytes, bytes.length)) {
      // A gzipped .cpuprofile: into a padded buffer for the scanner.
      const padded = Buffer.allocUnsafe(bytes.length + PADDING);
      padded.set(bytes, 0);
      return jsonModel(padded, bytes.length, source, options);
    }
    return pprofModel(bytes, { source, thread: options.thread, sampleType: options.sampleType, labels: options.labels, pathMap: options.pathMap, token: options.token });
  }
  if (looksLikeJson(buf, length)) return jsonModel(buf, length, source, options);
  return pprofModel(bytes, { source, thread: options.thread, sampleType: options.sampleType, labels: options.labels, pathMap: options.pathMap, token: options.token });
}

function jsonModel(buf: Buffer, length: number, source: string, options: ModelOptions): Promise<ProfileModel> | ProfileModel {
  if (isZeroXJson(buf, length)) return zeroXModel(JSON.parse(buf.toString('utf8', 0, length)), { source, thread: options.thread, pathMap: options.pathMap });
  return modelFromBuffer(buf, length, source, options.thread);
}
