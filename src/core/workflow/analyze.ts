import type { CancellationToken } from '../common/cancellation';
import type { Warning } from '../common/warnings';
import { attributedLines, attributeProfile, packageRows, plainAttribution, rankAttributedHotspots, type AttributedHotLine, type AttributedHotspot, type Attribution, type PackageRow } from '../attribution';
import { loadProfile, readSourceMapSidecar, type ProfileModel } from '../profile';
import { hotpathOverhead, withoutHotpathRows } from '../profile/selfFrames';
import { formatMs, formatPct } from '../../shared/text/numbers';
import { type InlinedOnlyFunction, joinInlinedOnly, joinV8Signals } from '../v8/join';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8Collection, V8FunctionSignals, V8RawSignals } from '../v8/types';
import type { PreflightCheck } from './preflight';
import type { SavedProfile } from './profileStore';

export interface ThreadHotspot extends AttributedHotspot {
  thread: string;
  /** V8's view of this function in the run (main thread, when signals were collected). */
  v8?: V8FunctionSignals;
}
export interface ThreadHotLine extends AttributedHotLine { thread: string }
export interface ThreadPackage extends PackageRow { thread: string }

export interface Analysis {
  /** Ranked by the time the user can act on: own cost for user code, self time for the rest. */
  hotspots: ThreadHotspot[];
  /** Placed lines ranked by own time (self + non-user code called there), with inclusive time and calls. */
  lines: ThreadHotLine[];
  /** Per npm package: self time and time with the package anywhere on the stack. */
  packages: ThreadPackage[];
  warnings: Warning[];
  /**
   * The main thread's model (the first profile), kept so front ends (flamegraph HTML, VS Code) draw
   * from it instead of reading and parsing the profile again. Not part of the JSON output.
   */
  model: ProfileModel;
  /** The main thread's attribution (lines, own cost, call sites), for the editor. Not in the JSON. */
  attribution: Attribution;
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
  /** The worker threads' signals of this run by thread label; otherwise read from each profile's sidecar. */
  workerV8?: ReadonlyMap<string, V8RawSignals>;
  token?: CancellationToken;
}

/** Joins V8's signals to the main model and returns what the analysis carries of them, and the raw signals. */
export async function attachV8(model: ProfileModel, profilePath: string, given: V8RawSignals | undefined, sourceMapUrls?: Record<string, string>): Promise<Pick<Analysis, 'v8' | 'v8Functions'> & { raw?: V8RawSignals }> {
  const raw = given ?? await readV8Sidecar(profilePath);
  if (!raw) return {};
  const joined = await joinV8Signals(model, raw, { sourceMapUrls: sourceMapUrls ?? await readSourceMapSidecar(profilePath) });
  const v8: V8Collection = { ...raw.collection };
  if (joined.findings.length) v8.findings = joined.findings;
  else delete v8.findings;
  return { v8, v8Functions: joined.functions, raw };
}

/**
 * Puts each hotspot's V8 signals on it: a function with a frame by its model index (hotspot ids are
 * attribution ids, the model's index for functions with a frame). A function whose time ran only or
 * mostly inlined, in the frames attribution placed it in, gets the tier of that optimized code
 * (`TurboFan (inlined into X)`, v8/join.ts joinInlinedOnly) — its own copy's tier would describe code
 * that hardly ran — in every thread.
 */
export async function annotateHotspots(
  hotspots: ThreadHotspot[], attribution: Attribution, model: ProfileModel,
  v8: { v8Functions?: ReadonlyMap<number, V8FunctionSignals>; raw?: V8RawSignals } | undefined, thread = 'main', sourceMapUrls?: Record<string, string>,
): Promise<void> {
  const byFunction = v8?.v8Functions;
  if (!byFunction?.size) return;
  const inlinedOnly = new Map<number, InlinedOnlyFunction>();
  for (const h of hotspots) {
    if (h.thread !== thread) continue;
    const info = attribution.functions[h.id];
    const f = info?.model ?? -1;
    const signals = f >= 0 ? byFunction.get(f) : undefined;
    if (signals) h.v8 = signals;
    const share = attribution.selfUs[h.id] > 0 ? attribution.inlinedUs[h.id] / attribution.selfUs[h.id] : 0;
    if (info && (f < 0 || share > 0.5)) {
      const hosts = (attribution.inlinedInto.get(h.id) ?? []).map((x) => attribution.functions[x.frame]?.model ?? -1).filter((m) => m >= 0);
      if (hosts.length) inlinedOnly.set(h.id, { name: info.name, generated: info.generated, hosts, own: signals, share: f < 0 ? 1 : share });
    }
  }
  if (!inlinedOnly.size || !v8?.raw) return;
  const joined = await joinInlinedOnly(model, v8.raw, inlinedOnly, { sourceMapUrls });
  for (const h of hotspots) if (h.thread === thread) { const s = joined.get(h.id); if (s) h.v8 = s; }
}

/** A warning naming the sources attribution could not read (once per analysis). */
function skippedWarning(attribution: Attribution): Warning[] {
  const skipped = [...attribution.skippedSources].filter(([, why]) => why !== 'not found');
  if (!skipped.length) return [];
  const list = skipped.slice(0, 3).map(([file, why]) => `${file} (${why})`).join(', ');
  return [{ code: 'SOURCES_SKIPPED', message: `${skipped.length} source file(s) were not read to place time on lines: ${list}${skipped.length > 3 ? ', …' : ''}. Their functions are still ranked; their call sites and inlined code are not placed.` }];
}

export interface ThreadAnalysis {
  hotspots: ThreadHotspot[];
  lines: ThreadHotLine[];
  packages: ThreadPackage[];
  attribution: Attribution;
  /** How much time Hotpath's own frames (preload, probes, exit hook) took; they are never ranked. */
  overhead?: Warning;
}

/**
 * Attribution and rankings of one thread's model, without Hotpath's own frames (its preload, probes
 * and exit hook); how much time those took is said once, in a warning.
 */
export async function analyzeModel(model: ProfileModel, options: { thread: string; limit: number; profilePath: string; v8Raw?: V8RawSignals; token?: CancellationToken; attribution?: boolean; sourceMapUrls?: Record<string, string> }): Promise<ThreadAnalysis> {
  const attribution = options.attribution === false
    ? plainAttribution(model)
    : await attributeProfile(model, { v8: options.v8Raw, sourceMapUrls: options.sourceMapUrls ?? await readSourceMapSidecar(options.profilePath, options.token), token: options.token });
  const { thread, limit } = options;
  const overhead = hotpathOverhead(model);
  const extra = overhead.functions.size;
  const result: ThreadAnalysis = {
    attribution,
    hotspots: withoutHotpathRows(model, rankAttributedHotspots(model, attribution, limit + extra), overhead).slice(0, limit).map((h) => ({ ...h, thread })),
    lines: withoutHotpathRows(model, attributedLines(model, attribution, { limit: limit + extra }), overhead).slice(0, limit).map((l) => ({ ...l, thread })),
    packages: packageRows(model, attribution, limit).map((p) => ({ ...p, thread })),
  };
  if (overhead.us > 0 && model.durationUs > 0) {
    const where = thread === 'main' ? '' : ` (${thread})`;
    result.overhead = { code: 'HOTPATH_OVERHEAD', message: `Hotpath's own frames${where} (its preload, probes and event-loop monitor, e.g. waiting for the profiler to attach) took ${formatMs(overhead.us / 1000)} (${formatPct((overhead.us / model.durationUs) * 100)} of the profile); they are left out of the hotspots and hot lines.` };
  }
  return result;
}

/**
 * Builds the model of every saved thread profile and ranks hotspots and hot lines across threads
 * (percentages stay relative to each thread's own profile duration).
 */
export async function analyzeProfiles(saved: SavedProfile[], options: AnalyzeOptions = {}): Promise<Analysis> {
  const limit = options.limit ?? 20;
  const hotspots: ThreadHotspot[] = [];
  const lines: ThreadHotLine[] = [];
  const packages: ThreadPackage[] = [];
  const warnings: Warning[] = [];
  let main: { model: ProfileModel; attribution: Attribution } | undefined;
  let v8: Awaited<ReturnType<typeof attachV8>> = {};
  for (const s of saved) {
    const model = await loadProfile(s.path, { sourceMaps: options.sourceMaps ?? true, thread: s.thread });
    const first = !main;
    // Every thread with its own isolate's signals: tiers, deopts, and the inlining that places its time.
    const own = await attachV8(model, s.path, first ? options.v8 : options.workerV8?.get(s.thread));
    if (first) v8 = own;
    const analysis = await analyzeModel(model, { thread: s.thread, limit, profilePath: s.path, v8Raw: own.raw, token: options.token });
    await annotateHotspots(analysis.hotspots, analysis.attribution, model, own, s.thread, await readSourceMapSidecar(s.path));
    if (first) main = { model, attribution: analysis.attribution };
    hotspots.push(...analysis.hotspots);
    lines.push(...analysis.lines);
    packages.push(...analysis.packages);
    for (const w of [...model.warnings, ...skippedWarning(analysis.attribution)]) if (!warnings.some((x) => x.code === w.code)) warnings.push(w);
    if (analysis.overhead) warnings.push(analysis.overhead);
    if (s.partial) {
      warnings.push({ code: 'PROFILE_PARTIAL', message: `The ${s.thread} thread ended before profiling stopped; its profile (${s.path}) holds what was captured until then.` });
    }
  }
  const actionable = (h: ThreadHotspot) => (h.category === 'user' ? h.ownMs : h.selfMs);
  hotspots.sort((a, b) => actionable(b) - actionable(a));
  lines.sort((a, b) => b.ownMs - a.ownMs || b.totalMs - a.totalMs);
  packages.sort((a, b) => b.totalMs - a.totalMs);
  hotspots.splice(limit);
  lines.splice(limit);
  packages.splice(limit);
  hotspots.forEach((h, i) => { h.rank = i + 1; });
  const { raw: _raw, ...v8Out } = v8;
  return { hotspots, lines, packages, warnings, model: main!.model, attribution: main!.attribution, ...v8Out };
}
