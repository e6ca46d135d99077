import * as path from 'node:path';
import { loadProfile, rankHotspots, rankLines, type ProfileModel } from '../profile';
import { diffProfiles, type ProfileDiff } from '../profileDiff/functions';
import { annotateHotspots, attachV8, type Analysis, type ThreadHotLine, type ThreadHotspot } from './analyze';

export interface ReportResult extends Analysis {
  kind: 'report';
  profilePath: string;
  durationMs: number;
  sampleCount: number;
  /** `report --diff BEFORE AFTER`: per function, matched by identity between the two profiles. */
  diff?: ProfileDiff & { beforePath: string; before: ProfileModel };
}

/** `hotpath report FILE`: the same ranking as after a run, for any .cpuprofile on disk; `diffWith`: the profile before. */
export async function reportProfile(file: string, options: { limit?: number; diffWith?: string } = {}): Promise<ReportResult> {
  const profilePath = path.resolve(file);
  const model = await loadProfile(profilePath, { sourceMaps: true, thread: 'main' });
  const limit = options.limit ?? 20;
  const hotspots: ThreadHotspot[] = rankHotspots(model, { limit }).map((h) => ({ ...h, thread: 'main' }));
  const lines: ThreadHotLine[] = rankLines(model, { limit }).map((l) => ({ ...l, thread: 'main' }));
  // V8 signals saved by the run that recorded the profile (`<profile>.v8.json`), when there are any.
  const v8 = await attachV8(model, profilePath, undefined);
  annotateHotspots(hotspots, model, v8.v8Functions);
  const result: ReportResult = { kind: 'report', profilePath, durationMs: model.durationUs / 1000, sampleCount: model.sampleCount, hotspots, lines, warnings: [...model.warnings], model, ...v8 };
  if (options.diffWith) {
    const beforePath = path.resolve(options.diffWith);
    const before = await loadProfile(beforePath, { sourceMaps: true, thread: 'main' });
    const beforeV8 = await attachV8(before, beforePath, undefined);
    result.diff = { ...diffProfiles({ model: before, v8Functions: beforeV8.v8Functions }, { model, v8Functions: v8.v8Functions }), beforePath, before };
  }
  return result;
}
