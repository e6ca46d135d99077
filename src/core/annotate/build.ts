import { functionLabel, whereLabel, type Attribution, type CallSiteResult } from '../attribution';
import type { AttributedHotspot } from '../attribution/rank';
import type { ProfileModel } from '../profile';
import { roundMs, roundPct } from '../profile/units';
import type { V8FunctionSignals } from '../v8/types';
import { MIN_LABEL_SAMPLES } from '../profile/samplingInterval';
import type { Annotations, CalleeShare, CallerShare, FileAnnotations, FunctionAnnotation, LineAnnotation } from './types';

export interface AnnotationOptions {
  profilePath: string;
  /** CodeLens candidates: the user functions with the most own cost (default 15)… */
  maxFunctions?: number;
  /** …with at least this own share in % (default 0.5). */
  minFunctionOwnPct?: number;
  /** Hot lines: at most this many (default 150), each with at least `minLinePct` % of self, own or total time (default 0.1). */
  maxLines?: number;
  minLinePct?: number;
  /** …and at least this many samples' worth of time (default MIN_LABEL_SAMPLES, 5): fewer is noise. */
  minLineSamples?: number;
  /** Callers listed per function (default 3). */
  maxCallers?: number;
  /** V8 signals per function, from the analysis' hotspots (matched by attribution id). */
  hotspots?: readonly (AttributedHotspot & { v8?: V8FunctionSignals })[];
  /** A profile of several threads: the threads each model function ran in (profile/threads.ts). */
  threadsOf?: ReadonlyMap<number, string[]>;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

function siteOf(result: CallSiteResult | undefined): Pick<CallerShare, 'line' | 'callSite' | 'candidateLines'> & { file?: string } {
  if (result?.status === 'placed') return { file: result.site.file, line: result.site.line, callSite: true };
  if (result?.status === 'ambiguous') return { line: null, callSite: false, candidateLines: result.lines.map((l) => l.line) };
  return { line: null, callSite: false };
}

/**
 * Callers of each wanted function (attribution ids), by the share of its total time they account for:
 * frames above it (outermost frames only — a recursive call's caller is the function itself, which tells
 * nothing), and the frames it ran inlined into. Named by the line that makes the call where it is known.
 */
export function callersOf(model: ProfileModel, attr: Attribution, wanted: ReadonlySet<number>, maxCallers: number): Map<number, CallerShare[]> {
  const { nodes } = model;
  const byFunction = new Map<number, Map<number, number>>();
  for (let v = 0; v < model.nodeCount; v++) {
    const func = nodes.func[v];
    if (!wanted.has(func)) continue;
    const p = nodes.parent[v];
    if (p < 0 || p === model.rootIndex) continue;
    let outermost = true;
    for (let a = p; a >= 0; a = nodes.parent[a]) {
      if (nodes.func[a] === func) { outermost = false; break; }
    }
    if (!outermost) continue;
    let byCaller = byFunction.get(func);
    if (!byCaller) byFunction.set(func, (byCaller = new Map()));
    byCaller.set(nodes.func[p], (byCaller.get(nodes.func[p]) ?? 0) + nodes.totalUs[v]);
  }
  const out = new Map<number, CallerShare[]>();
  for (const f of wanted) {
    const total = attr.totalUs[f] || 1;
    const rows: CallerShare[] = [];
    for (const [caller, us] of byFunction.get(f) ?? []) {
      const info = attr.functions[caller];
      const site = siteOf(attr.callSites.get(`${caller}:${f}`));
      rows.push({ function: functionLabel(info), file: site.file ?? info.file, line: site.line ?? info.line, callSite: site.callSite, ...(site.candidateLines ? { candidateLines: site.candidateLines } : {}), sharePct: round1((us * 100) / total) });
    }
    for (const { frame, us } of attr.inlinedInto.get(f) ?? []) {
      const info = attr.functions[frame];
      rows.push({ function: functionLabel(info), file: info.file, line: info.line, callSite: false, inlined: true, sharePct: round1((us * 100) / total) });
    }
    out.set(f, rows.sort((x, y) => y.sharePct - x.sharePct).slice(0, maxCallers));
  }
  return out;
}

function fileEntry(files: Map<string, FileAnnotations>, file: string): FileAnnotations {
  let entry = files.get(file);
  if (!entry) files.set(file, (entry = { file, functions: [], lines: [], deopts: [] }));
  return entry;
}

/**
 * The threads a function's code ran in: those of its own frames and of the frames V8 inlined it into
 * (code inlined everywhere has no frame of its own). `byModel`: threads per model function.
 */
export function threadsOfFunction(attr: Attribution, byModel: ReadonlyMap<number, string[]>, id: number): string[] {
  const out = new Set<string>(attr.functions[id].model >= 0 ? byModel.get(attr.functions[id].model) ?? [] : []);
  for (const { frame } of attr.inlinedInto.get(id) ?? []) for (const t of byModel.get(attr.functions[frame].model) ?? []) out.add(t);
  // Main first, then workers by number.
  return [...out].sort((a, b) => Number(b === 'main') - Number(a === 'main') || a.localeCompare(b, 'en', { numeric: true }));
}

/** A file an editor can open and the user can read: an absolute path (not node:, not a URL). */
const paintable = (file: string) => file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file);

/**
 * Per-file CodeLens and hot-line data from a profile model and its attribution: CodeLens on the user
 * functions with the most own cost, line labels wherever time was placed (self, inclusive call-site time,
 * inlined code in its own file). Never on a line where the code did not run.
 */
export function buildAnnotations(model: ProfileModel, attr: Attribution, options: AnnotationOptions): Annotations {
  const maxFunctions = options.maxFunctions ?? 15;
  const minFunctionOwnPct = options.minFunctionOwnPct ?? 0.5;
  const maxLines = options.maxLines ?? 150;
  const minLinePct = options.minLinePct ?? 0.1;
  // A sample's worth of time: the profile's length over its samples (the mean interval).
  const meanIntervalUs = model.sampleCount > 0 ? model.durationUs / model.sampleCount : 1000;
  const minLineUs = (options.minLineSamples ?? MIN_LABEL_SAMPLES) * meanIntervalUs;
  const maxCallers = options.maxCallers ?? 3;
  const duration = model.durationUs || 1;
  const files = new Map<string, FileAnnotations>();
  const pct = (us: number) => roundPct(us, duration);
  const ms = (us: number) => roundMs(us);

  // User functions by own cost: the CodeLens candidates and their rank.
  const users: number[] = [];
  for (let f = 0; f < attr.functions.length; f++) if (attr.functions[f].category === 'user' && attr.ownUs[f] > 0) users.push(f);
  users.sort((a, b) => attr.ownUs[b] - attr.ownUs[a] || a - b);
  const rankOf = new Map(users.map((f, i) => [f, i + 1]));
  const hotFunctions: number[] = [];
  for (const f of users) {
    if (hotFunctions.length >= maxFunctions) break;
    if ((attr.ownUs[f] * 100) / duration < minFunctionOwnPct) break;
    const info = attr.functions[f];
    if (info.line !== null && paintable(info.file)) hotFunctions.push(f);
  }

  // Lines: wherever placed time is visible (self, own or inclusive share above the threshold), on
  // enough samples to mean something: a 1-sample line of a sparse profile is as likely chance as cost.
  const hotLines = attr.lines
    .filter((l) => paintable(l.file) && Math.max(pct(l.totalUs), pct(l.ownUs), pct(l.selfUs)) >= minLinePct && Math.max(l.totalUs, l.ownUs, l.selfUs) >= minLineUs)
    .slice(0, maxLines);
  const lineFunctions = hotLines.map((l) => l.fn).filter((f) => f >= 0);
  const callers = callersOf(model, attr, new Set([...hotFunctions, ...lineFunctions]), maxCallers);

  const callee = (id: number, us: number, callLine?: number | null, ranIn?: string): CalleeShare => {
    const info = attr.functions[id];
    return { function: functionLabel(info), where: whereLabel(info, ranIn), file: info.file, line: info.line, ms: ms(us), pct: pct(us), ...(callLine !== undefined ? { callLine } : {}) };
  };

  const threadsOf = (id: number | undefined): { threads?: string[] } => {
    if (id === undefined || id < 0 || !options.threadsOf) return {};
    const list = threadsOfFunction(attr, options.threadsOf, id);
    return list.length ? { threads: list } : {};
  };

  for (const f of hotFunctions) {
    const info = attr.functions[f];
    const hotspot = options.hotspots?.find((h) => h.id === f);
    const notPlaced = attr.notPlaced.get(f);
    const unplaced = (attr.unplacedCalls.get(f) ?? []).slice(0, 4);
    const annotation: FunctionAnnotation = {
      function: functionLabel(info), file: info.file, line: info.line!,
      selfMs: ms(attr.selfUs[f]), selfPct: pct(attr.selfUs[f]), totalMs: ms(attr.totalUs[f]), totalPct: pct(attr.totalUs[f]),
      ownMs: ms(attr.ownUs[f]), ownPct: pct(attr.ownUs[f]),
      ownParts: (attr.ownParts.get(f) ?? []).slice(0, 3).map((p) => {
        const site = attr.callSites.get(`${f}:${p.callee}`);
        return callee(p.callee, p.us, site?.status === 'placed' ? site.site.line : null, p.ranIn);
      }),
      rank: rankOf.get(f)!, callers: callers.get(f) ?? [],
      ...(notPlaced && pct(notPlaced.us) >= 0.05 ? { notPlaced: { ms: ms(notPlaced.us), pct: pct(notPlaced.us), reasons: notPlaced.reasons } } : {}),
      ...(unplaced.length ? { unplacedCalls: unplaced.map((c) => ({ function: functionLabel(attr.functions[c.callee]), ms: ms(c.us), pct: pct(c.us), candidateLines: c.site.status === 'ambiguous' ? c.site.lines.map((l) => l.line) : [] })) } : {}),
      ...(attr.inlinedUs[f] > 0 ? { inlinedMs: ms(attr.inlinedUs[f]), inlinedInto: (attr.inlinedInto.get(f) ?? []).map((x) => functionLabel(attr.functions[x.frame])) } : {}),
      ...(hotspot?.v8 ? { v8: hotspot.v8 } : {}),
      ...threadsOf(f),
    };
    fileEntry(files, info.file).functions.push(annotation);
  }

  for (const l of hotLines) {
    const fn = l.fn >= 0 ? attr.functions[l.fn] : undefined;
    const line: LineAnnotation = {
      file: l.file, line: l.line,
      selfMs: ms(l.selfUs), selfPct: pct(l.selfUs), totalMs: ms(l.totalUs), totalPct: pct(l.totalUs), ownMs: ms(l.ownUs), ownPct: pct(l.ownUs),
      samples: l.selfUs > 0 ? Math.max(1, Math.round(l.selfUs / meanIntervalUs)) : 0,
      function: fn ? functionLabel(fn) : '(unknown)', placement: l.placement,
      ...(l.inlinedInto !== undefined ? { inlinedInto: functionLabel(attr.functions[l.inlinedInto]) } : {}),
      calls: l.calls.slice(0, 5).map((c) => callee(c.callee, c.us)),
      callers: l.fn >= 0 ? callers.get(l.fn) ?? [] : [],
      ...threadsOf(l.inlinedInto ?? l.fn),
    };
    fileEntry(files, l.file).lines.push(line);
  }

  // Deopt positions of every hotspot V8 described (also dependencies': the failed check may sit in user code).
  for (const h of options.hotspots ?? []) {
    for (const d of h.v8?.deopts ?? []) {
      if (d.osr || !d.file || d.line <= 0) continue;
      fileEntry(files, d.file).deopts.push({
        file: d.file, line: d.line, column: d.column, function: h.function, kind: d.kind, reason: d.reason, count: d.count,
        ...(d.inlinedFrom ? { inlinedFrom: d.inlinedFrom } : {}), ...(d.explanation ? { explanation: d.explanation } : {}),
      });
    }
  }
  return {
    profilePath: options.profilePath, durationMs: Math.round(model.durationUs / 10) / 100, sampleCount: model.sampleCount, files,
    ...(model.origin?.granularity === 'functions' ? { granularity: 'functions' as const } : {}),
  };
}
