import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import type { Warning } from '../common/warnings';
import { allocationSites, type AllocationSite } from '../memory/sites';
import type { LabelFilter } from '../pprof/labels';
import type { WrittenPprof } from '../pprof/write';
import { loadProfile, readSourceMapSidecar, type ProfileModel } from '../profile';
import type { PathMapOptions } from '../profile/pathMap';
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
  /** A heap profile (pprof): allocation sites by the sample type shown, instead of time hotspots. */
  allocations?: { sampleType: string; unit: 'bytes' | 'objects'; total: number; sites: AllocationSite[] };
  /** `--pprof OUT`: what was written. */
  pprofExport?: WrittenPprof;
}

export interface ReportReadOptions {
  /** pprof: the sample type to show. */
  sampleType?: string;
  /** pprof: keep the samples with these labels. */
  labels?: LabelFilter[];
  /** pprof, 0x: another machine's paths → this workspace. */
  pathMap?: PathMapOptions;
}

/**
 * `hotpath report FILE`: the same ranking as after a run, for any profile on disk (.cpuprofile, pprof, 0x);
 * `diffWith`: the profile before (production, say, against a local one). `attribution: false`
 * (`--no-attribution`) reports the profile as V8 charged it, without reading sources. `pprofOut`: also
 * export it as pprof.
 */
export async function reportProfile(file: string, options: { limit?: number; attribution?: boolean; diffWith?: string; token?: CancellationToken; read?: ReportReadOptions; pprofOut?: string; cwd?: string } = {}): Promise<ReportResult> {
  const profilePath = path.resolve(file);
  const read = options.read ?? {};
  const load = (p: string) => loadProfile(p, { sourceMaps: true, thread: 'main', token: options.token, sampleType: read.sampleType, labels: read.labels, pathMap: read.pathMap });
  // Cancellable while it reads (the profile, its source maps, the files they name).
  const model = await load(profilePath);
  if (model.sampleCount === 0 || model.durationUs <= 0) {
    // Nothing to rank: saying "the time goes to dependencies" (or exiting 0) would be a claim without data.
    throw new HotpathError(ErrorCode.ProfileInvalid,
      `${profilePath} holds no sampled ${model.origin && model.origin.unit !== 'us' ? 'allocations' : 'time'} (${model.sampleCount} samples): the program ended, or profiling stopped, before the first sample. Profile a longer run, or a smaller --sampling-interval.`,
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
  await annotateHotspots(analysis.hotspots, analysis.attribution, model, { v8Functions: v8.v8Functions, raw }, 'main', await readSourceMapSidecar(profilePath));
  const warnings: Warning[] = [...model.warnings, ...(analysis.overhead ? [analysis.overhead] : []), ...optionsNotApplied(model, read)];
  const { overhead: _overhead, ...rest } = analysis;
  const result: ReportResult = { kind: 'report', profilePath, durationMs: model.durationUs / 1000, sampleCount: model.sampleCount, ...rest, warnings, model, ...v8 };
  if (model.origin && model.origin.unit !== 'us') {
    // Bytes or objects: the time rankings would print them as milliseconds.
    const unit = model.origin.unit;
    result.allocations = { sampleType: model.origin.sampleType?.type ?? unit, unit, total: model.durationUs, sites: allocationSites(model, analysis.attribution, null, limit) };
    result.hotspots = [];
    result.lines = [];
    result.packages = [];
    result.durationMs = 0;
  }
  if (options.diffWith) {
    const beforePath = path.resolve(options.diffWith);
    const before = await load(beforePath);
    if ((before.origin?.unit ?? 'us') !== (model.origin?.unit ?? 'us')) {
      throw new HotpathError(ErrorCode.InvalidOption, `${beforePath} holds ${unitWord(before)} and ${profilePath} ${unitWord(model)}: compare profiles of the same kind (choose the sample type with --sample-type).`);
    }
    const { raw: _beforeRaw, ...beforeV8 } = await attachV8(before, beforePath, undefined);
    result.diff = { ...diffProfiles({ model: before, v8Functions: beforeV8.v8Functions }, { model, v8Functions: v8.v8Functions }), beforePath, before };
    result.warnings.push(...before.warnings.filter((w) => w.code === 'PATHS_NOT_FOUND' || w.code === 'PPROF_DATA_SKIPPED'));
  }
  if (options.pprofOut) {
    let startedAtMs: number | undefined;
    // A .cpuprofile's clock is monotonic: the file was written when profiling stopped.
    try { startedAtMs = model.origin?.timeMs ?? fs.statSync(profilePath).mtimeMs - (model.endTime - model.startTime) / 1000; } catch { /* a folder */ }
    // Loaded only when asked for: the encoder is not needed by a report that writes no pprof.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { writePprof } = require('../pprof/write') as typeof import('../pprof/write');
    result.pprofExport = writePprof(options.pprofOut, model, analysis.attribution, { startedAtMs, source: profilePath, cwd: options.cwd ?? path.dirname(profilePath) });
  }
  return result;
}

const unitWord = (m: ProfileModel) => (m.origin?.unit === 'bytes' ? 'bytes' : m.origin?.unit === 'objects' ? 'object counts' : 'time');

function optionsNotApplied(model: ProfileModel, read: ReportReadOptions): Warning[] {
  if (model.origin?.format === 'pprof') return [];
  const given = [read.sampleType !== undefined ? '--sample-type' : '', read.labels?.length ? '--label' : ''].filter(Boolean);
  return given.length ? [{ code: 'OPTION_NOT_APPLIED', message: `${given.join(' and ')} apply to pprof profiles; ${model.source} is ${model.origin?.format === '0x' ? 'a 0x capture' : 'a .cpuprofile'}, shown whole.` }] : [];
}
