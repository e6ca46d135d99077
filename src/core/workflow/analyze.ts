import type { Warning } from '../common/warnings';
import { displayName, displayPosition, loadProfile, rankHotspots, rankLines, readSourceMapSidecar, type Hotspot, type HotLine, type ProfileModel } from '../profile';
import { hotpathOverhead, withoutHotpathRows } from '../profile/selfFrames';
import { formatMs, formatPct } from '../../shared/text/numbers';
import { joinV8Signals } from '../v8/join';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8Collection, V8FunctionSignals, V8RawSignals } from '../v8/types';
import type { PreflightCheck } from './preflight';
import type { SavedProfile } from './profileStore';

export interface ThreadHotspot extends Hotspot {
  thread: string;
  /** V8's view of this function in the run (main thread, when signals were collected). */
  v8?: V8FunctionSignals;
}
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
  /** What V8 signals were collected for the main thread (absent when none were asked for or saved). */
  v8?: V8Collection;
  /** V8's signals per function of `model` (index as in model.functions and the flame payload). Not in the JSON. */
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** The production-parity checklist after the run (profile, script). */
  checks?: PreflightCheck[];
}

export interface AnalyzeOptions {
  limit?: number;
  sourceMaps?: boolean;
  /** The main thread's V8 signals of this run; otherwise read from the profile's `.v8.json` sidecar. */
  v8?: V8RawSignals;
}

/** Joins V8's signals to the main model and returns what the analysis carries of them. */
export async function attachV8(model: ProfileModel, profilePath: string, given: V8RawSignals | undefined): Promise<Pick<Analysis, 'v8' | 'v8Functions'>> {
  const raw = given ?? await readV8Sidecar(profilePath);
  if (!raw) return {};
  const joined = await joinV8Signals(model, raw, { sourceMapUrls: await readSourceMapSidecar(profilePath) });
  const v8: V8Collection = { ...raw.collection };
  if (joined.findings.length) v8.findings = joined.findings;
  else delete v8.findings;
  return { v8, v8Functions: joined.functions };
}

/** Puts each hotspot's V8 signals on it, matching hotspots to the model's functions by name and position. */
export function annotateHotspots(hotspots: ThreadHotspot[], model: ProfileModel, byFunction: ReadonlyMap<number, V8FunctionSignals> | undefined, thread = 'main'): void {
  if (!byFunction?.size) return;
  const keyOf = (name: string, file: string, line: number | null, column: number | null) => `${name}\0${file}\0${line}\0${column}`;
  const index = new Map<string, number>();
  for (const f of byFunction.keys()) {
    const info = model.functions[f];
    const pos = displayPosition(info);
    index.set(keyOf(displayName(info), pos.file, pos.line, pos.column), f);
  }
  for (const h of hotspots) {
    if (h.thread !== thread) continue;
    const f = index.get(keyOf(h.function, h.file, h.line, h.column));
    const signals = f === undefined ? undefined : byFunction.get(f);
    if (signals) h.v8 = signals;
  }
}

/**
 * Hotspots and hot lines of one thread's model, without Hotpath's own frames (its preload, probes and
 * exit hook); how much time those took is said once, in a warning.
 */
export function rankThread(model: ProfileModel, limit: number, thread: string): { hotspots: ThreadHotspot[]; lines: ThreadHotLine[]; overhead?: Warning } {
  const overhead = hotpathOverhead(model);
  const extra = overhead.functions.size;
  const hotspots = withoutHotpathRows(model, rankHotspots(model, { limit: limit + extra }), overhead).slice(0, limit).map((h) => ({ ...h, thread }));
  const lines = withoutHotpathRows(model, rankLines(model, { limit: limit + extra }), overhead).slice(0, limit).map((l) => ({ ...l, thread }));
  if (overhead.us <= 0 || model.durationUs <= 0) return { hotspots, lines };
  const where = thread === 'main' ? '' : ` (${thread})`;
  return {
    hotspots, lines,
    overhead: { code: 'HOTPATH_OVERHEAD', message: `Hotpath's own frames${where} (its preload and probes, e.g. waiting for the profiler to attach) took ${formatMs(overhead.us / 1000)} (${formatPct((overhead.us / model.durationUs) * 100)} of the profile); they are left out of the hotspots and hot lines.` },
  };
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
  let v8: Pick<Analysis, 'v8' | 'v8Functions'> = {};
  for (const s of saved) {
    const model = await loadProfile(s.path, { sourceMaps: options.sourceMaps ?? true, thread: s.thread });
    if (!main) {
      main = model;
      v8 = await attachV8(model, s.path, options.v8);
    }
    const ranked = rankThread(model, limit, s.thread);
    hotspots.push(...ranked.hotspots);
    lines.push(...ranked.lines);
    for (const w of model.warnings) if (!warnings.some((x) => x.code === w.code)) warnings.push(w);
    if (ranked.overhead) warnings.push(ranked.overhead);
    if (s.partial) {
      warnings.push({ code: 'PROFILE_PARTIAL', message: `The ${s.thread} thread ended before profiling stopped; its profile (${s.path}) holds what was captured until then.` });
    }
  }
  hotspots.sort((a, b) => b.selfMs - a.selfMs);
  lines.sort((a, b) => b.selfMs - a.selfMs);
  hotspots.splice(limit);
  lines.splice(limit);
  hotspots.forEach((h, i) => { h.rank = i + 1; });
  annotateHotspots(hotspots, main!, v8.v8Functions, saved[0]?.thread);
  return { hotspots, lines, warnings, model: main!, ...v8 };
}
