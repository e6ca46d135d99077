import * as path from 'node:path';
import { loadProfile } from '../profile';
import { analyzeModel, annotateHotspots, attachV8, type Analysis } from './analyze';

export interface ReportResult extends Analysis {
  kind: 'report';
  profilePath: string;
  durationMs: number;
  sampleCount: number;
}

/** `hotpath report FILE`: the same ranking as after a run, for any .cpuprofile on disk. */
/** `attribution: false` (`--no-attribution`) reports the profile as V8 charged it, without reading sources. */
export async function reportProfile(file: string, options: { limit?: number; attribution?: boolean } = {}): Promise<ReportResult> {
  const profilePath = path.resolve(file);
  const model = await loadProfile(profilePath, { sourceMaps: true, thread: 'main' });
  const limit = options.limit ?? 20;
  // V8 signals saved by the run that recorded the profile (`<profile>.v8.json`), when there are any.
  const { raw, ...v8 } = await attachV8(model, profilePath, undefined);
  const analysis = await analyzeModel(model, { thread: 'main', limit, profilePath, v8Raw: raw, attribution: options.attribution });
  annotateHotspots(analysis.hotspots, analysis.attribution, v8.v8Functions);
  const warnings = [...model.warnings];
  return { kind: 'report', profilePath, durationMs: model.durationUs / 1000, sampleCount: model.sampleCount, ...analysis, warnings, model, ...v8 };
}
