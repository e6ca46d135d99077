import * as path from 'node:path';
import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import { loadProfile, type ProfileModel } from '../profile';
import { diffProfiles, type ProfileDiff } from '../profileDiff/functions';
import { analyzeModel, analyzeProfiles, annotateHotspots, attachV8, type Analysis } from './analyze';
import { threadProfilesOf, type SavedProfile } from './profileStore';

export interface ReportResult extends Analysis {
  kind: 'report';
  profilePath: string;
  durationMs: number;
  sampleCount: number;
  /** A run with worker threads: every thread's profile (main first), analysed together. */
  profiles?: SavedProfile[];
  /** `report --diff BEFORE AFTER`: per function, matched by identity between the two profiles. */
  diff?: ProfileDiff & { beforePath: string; before: ProfileModel };
}

/**
 * `hotpath report FILE`: the same ranking as after a run, for any .cpuprofile on disk; `diffWith`: the profile before.
 * `attribution: false` (`--no-attribution`) reports the profile as V8 charged it, without reading sources.
 */
export async function reportProfile(file: string, options: { limit?: number; attribution?: boolean; diffWith?: string; token?: CancellationToken } = {}): Promise<ReportResult> {
  const profilePath = path.resolve(file);
  // Cancellable while it reads (the profile, its source maps, the files they name).
  const model = await loadProfile(profilePath, { sourceMaps: true, thread: 'main', token: options.token });
  if (model.sampleCount === 0 || model.durationUs <= 0) {
    // Nothing to rank: saying "the time goes to dependencies" (or exiting 0) would be a claim without data.
    throw new HotpathError(ErrorCode.ProfileInvalid,
      `${profilePath} holds no sampled time (${model.sampleCount} samples): the program ended, or profiling stopped, before the first sample. Profile a longer run, or a smaller --sampling-interval.`,
      { file: profilePath });
  }
  const limit = options.limit ?? 20;
  // A run that profiled worker threads: all of them, as the run itself reported them.
  const threads = options.diffWith || options.attribution === false ? [] : await threadProfilesOf(profilePath, options.token);
  if (threads.length > 1) {
    const analysis = await analyzeProfiles(threads, { limit, token: options.token });
    return { kind: 'report', profilePath, durationMs: model.durationUs / 1000, sampleCount: model.sampleCount, ...analysis, profiles: threads };
  }
  // V8 signals saved by the run that recorded the profile (`<profile>.v8.json`), when there are any.
  const { raw, ...v8 } = await attachV8(model, profilePath, undefined);
  const analysis = await analyzeModel(model, { thread: 'main', limit, profilePath, v8Raw: raw, attribution: options.attribution, token: options.token });
  annotateHotspots(analysis.hotspots, analysis.attribution, v8.v8Functions);
  const warnings = [...model.warnings, ...(analysis.overhead ? [analysis.overhead] : [])];
  const { overhead: _overhead, ...rest } = analysis;
  const result: ReportResult = { kind: 'report', profilePath, durationMs: model.durationUs / 1000, sampleCount: model.sampleCount, ...rest, warnings, model, ...v8 };
  if (options.diffWith) {
    const beforePath = path.resolve(options.diffWith);
    const before = await loadProfile(beforePath, { sourceMaps: true, thread: 'main', token: options.token });
    const { raw: _beforeRaw, ...beforeV8 } = await attachV8(before, beforePath, undefined);
    result.diff = { ...diffProfiles({ model: before, v8Functions: beforeV8.v8Functions }, { model, v8Functions: v8.v8Functions }), beforePath, before };
  }
  return result;
}
