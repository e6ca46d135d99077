import type { Warning } from '../common/warnings';
import { loadProfile, rankHotspots, rankLines, type Hotspot, type HotLine, type ProfileModel } from '../profile';
import type { SavedProfile } from './profileStore';

export interface ThreadHotspot extends Hotspot { thread: string }
export interface ThreadHotLine extends HotLine { thread: string }

export interface Analysis {
  hotspots: ThreadHotspot[];
  lines: ThreadHotLine[];
  warnings: Warning[];
  /**
   * The main thread's model (the first profile), kept so front ends (flamegraph HTML, VS Code) draw
   * from it instead of reading and parsing the profile again. Not part of the JSON output.
   */
  model: ProfileModel;
}

export interface AnalyzeOptions {
  limit?: number;
  sourceMaps?: boolean;
}

/**
 * Builds the model of every saved thread profile and ranks hotspots and hot lines across threads
 * (percentages stay relative to each thread's own profile duration).
 */
export async function analyzeProfiles(saved: SavedProfile[], options: AnalyzeOptions = {}): Promise<Analysis> {
  const limit = options.limit ?? 20;
  const hotspots: ThreadHotspot[] = [];
  const lines: ThreadHotLine[] = [];
  const warnings: Warning[] = [];
  let main: ProfileModel | undefined;
  for (const s of saved) {
    const model = await loadProfile(s.path, { sourceMaps: options.sourceMaps ?? true, thread: s.thread });
    main ??= model;
    for (const h of rankHotspots(model, { limit })) hotspots.push({ ...h, thread: s.thread });
    for (const l of rankLines(model, { limit })) lines.push({ ...l, thread: s.thread });
    for (const w of model.warnings) if (!warnings.some((x) => x.code === w.code)) warnings.push(w);
    if (s.partial) {
      warnings.push({ code: 'PROFILE_PARTIAL', message: `The ${s.thread} thread ended before profiling stopped; its profile (${s.path}) holds what was captured until then.` });
    }
  }
  hotspots.sort((a, b) => b.selfMs - a.selfMs);
  lines.sort((a, b) => b.selfMs - a.selfMs);
  hotspots.splice(limit);
  lines.splice(limit);
  hotspots.forEach((h, i) => { h.rank = i + 1; });
  return { hotspots, lines, warnings, model: main! };
}
