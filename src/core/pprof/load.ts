/**
 * Reading a pprof profile into the model: gunzip (bounded), decode (strict), map the paths it names to
 * this workspace, convert (toModel.ts). Source maps are applied afterwards by the caller, as for a
 * .cpuprofile, so mapped built code lands in its sources.
 */
import type { CancellationToken } from '../common/cancellation';
import { throwIfCancelled } from '../common/cancellation';
import { mapPaths, type PathMapOptions } from '../profile/pathMap';
import type { ProfileModel } from '../profile/types';
import { decodePprof, type DecodedPprof } from './decode';
import { gunzipBounded, isGzip } from './gunzip';
import type { LabelFilter } from './labels';
import { granularityFromSource } from './granularity';
import { frameName } from './names';
import { findStartLines } from './startLines';
import { pprofToModel } from './toModel';

export interface PprofLoadOptions {
  source: string;
  thread?: string;
  sampleType?: string;
  labels?: LabelFilter[];
  pathMap?: PathMapOptions;
  token?: CancellationToken;
}

/** The protobuf bytes of a pprof file: gunzipped when compressed (the usual case), else as they are. */
export async function pprofBytes(bytes: Uint8Array, source: string, token?: CancellationToken): Promise<Uint8Array> {
  return isGzip(bytes) ? gunzipBounded(bytes, source, { token }) : bytes;
}

export async function pprofModel(protobuf: Uint8Array, options: PprofLoadOptions): Promise<ProfileModel> {
  const decoded = decodePprof(protobuf, options.source);
  if (options.token) throwIfCancelled(options.token, 'Reading the profile');
  const files = new Set<string>();
  for (let f = 0; f < decoded.functionCount; f++) files.add(decoded.string(decoded.functionFilename[f], `function ${decoded.functionId[f]}`));
  const { map, report } = await mapPaths(files, options.pathMap ?? { roots: [process.cwd()] });
  const granularity = hasStartLines(decoded) ? undefined : await granularityFromSource(sourceFrames(decoded, map));
  const model = pprofToModel(decoded, { source: options.source, thread: options.thread, sampleType: options.sampleType, labels: options.labels, paths: map, pathReport: report, granularity });
  // Caller lines without start lines (@datadog/pprof `lineNumbers`): the workspace's source places the functions.
  if (model.origin?.granularity === 'lines') await findStartLines(model);
  return model;
}

const hasStartLines = (d: DecodedPprof) => d.functionStartLine.some((l) => l > 0);

/** Distinct (named function, line) frames in files found here, for granularityFromSource. */
function* sourceFrames(d: DecodedPprof, local: Map<string, string>): Generator<{ name: string; file: string; line: number }> {
  const index = new Map<number, number>();
  for (let f = 0; f < d.functionCount; f++) index.set(d.functionId[f], f);
  const seen = new Set<string>();
  for (let k = 0; k < d.lineFunction.length; k++) {
    const f = index.get(d.lineFunction[k]);
    if (f === undefined) continue;
    const filename = d.string(d.functionFilename[f], 'a function');
    const file = local.get(filename);
    const line = d.lineLine[k];
    if (!file || !(line > 0)) continue;
    const key = `${f}:${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    yield { name: frameName(d.string(d.functionName[f], 'a function'), filename, false).name, file, line };
  }
}
