/**
 * The profile model: parse a .cpuprofile into a call tree, functions, per-line time and ranked
 * hotspots, with positions mapped through source maps. Plain Node; no `vscode` here.
 */
import { readProfileModel } from './formats';
import { threadFromFileName } from './read';
import { applySourceMaps, readSourceMapSidecar } from './sourceMaps';
import type { ModelOptions, ProfileModel } from './types';
import { boundedTextReader } from '../common/boundedRead';

export { buildProfileModel } from './model';
export { applySourceMaps, readSourceMapSidecar, sourceMapSidecarPath } from './sourceMaps';
export { rankHotspots, displayName, displayPosition } from './hotspots';
export { rankLines } from './lines';
export { classify, packageName } from './categories';
export type * from './types';

/**
 * Read, parse and build the model of a profile file — a .cpuprofile, a pprof profile or a 0x capture
 * (formats.ts) — then map positions through source maps unless `sourceMaps: false`. Throws HotpathError
 * ProfileNotFound (unreadable) or ProfileInvalid (not a usable profile); source-map problems never throw
 * (see model.sourceMaps / model.warnings).
 */
export async function loadProfile(path: string, options: ModelOptions = {}): Promise<ProfileModel> {
  const model = await readProfileModel(path, { ...options, thread: options.thread ?? threadFromFileName(path) });
  if (options.sourceMaps !== false) {
    const reader = options.fs ?? boundedTextReader({ token: options.token });
    await applySourceMaps(model, reader, options.sourceMapUrls ?? await readSourceMapSidecar(path, options.token), options.token);
  }
  return model;
}
