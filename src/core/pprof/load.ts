/**
 * Reading a pprof profile into the model: gunzip (bounded), decode (strict), map the paths it names to
 * this workspace, convert (toModel.ts). Source maps are applied afterwards by the caller, as for a
 * .cpuprofile, so mapped built code lands in its sources.
 */
import type { CancellationToken } from '../common/cancellation';
import { throwIfCancelled } from '../common/cancellation';
import { mapPaths, type PathMapOptions } from '../profile/pathMap';
import type { ProfileModel } from '../profile/types';
import { decodePprof } from './decode';
import { gunzipBounded, isGzip } from './gunzip';
import type { LabelFilter } from './labels';
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
  const model = pprofToModel(decoded, { source: options.source, thread: options.thread, sampleType: options.sampleType, labels: options.labels, paths: map, pathReport: report });
  // Caller lines without start lines (@datadog/pprof `lineNumbers`): the workspace's source places the functions.
  if (model.origin?.granularity === 'lines') await findStartLines(model);
  return model;
}
