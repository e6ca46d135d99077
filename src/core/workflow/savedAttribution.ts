/**
 * The attribution of a profile saved by an earlier run, with what that run saved beside it (V8's
 * inlining facts, the runtime source-map URLs): what the editor showed for it, for the side of a
 * differential flamegraph that was read from disk rather than analysed in this process.
 */
import { attributeProfile, type Attribution } from '../attribution';
import type { CancellationToken } from '../common/cancellation';
import { readSourceMapSidecar, type ProfileModel } from '../profile';
import { readV8Sidecar } from '../v8/sidecar';

export async function savedAttribution(model: ProfileModel, profilePath: string, token?: CancellationToken): Promise<Attribution> {
  const v8 = await readV8Sidecar(profilePath);
  return attributeProfile(model, { v8, sourceMapUrls: await readSourceMapSidecar(profilePath, token), token });
}
