/**
 * Joins what a run collected (V8RawSignals) to the profile's functions. The key is the function's
 * script and the position of its `(` — the same position V8's profiler, natives and traces report —
 * never the name alone and never the line ticks: V8 charges an inlined callee's ticks to its caller's
 * frame (with the callee's line numbers), so line-based attribution would give the caller's tier and
 * deopts to the callee's lines. Deopt positions and function references are mapped through source maps.
 */
import { boundedTextReader } from '../common/boundedRead';
import { pathToFileURL } from 'node:url';
import type { TraceMap } from '@jridgewell/trace-mapping';
import { displayPosition } from '../profile/hotspots';
import { loadMap, mapPoint } from '../profile/sourceMaps';
import type { FileReader, ProfileModel } from '../profile/types';
import { explainDeopt, explainNotInlined, explainNotOptimized } from './explain';
import { normalizeFile } from './raw';
import type { NotOptimizedCause, RawDeopt, RawV8Function, V8Deopt, V8Finding, V8FunctionRef, V8FunctionSignals, V8RawSignals, V8Tier } from './types';

export interface JoinOptions {
  /** Runtime source-map URLs per script URL (the profile's `.sourcemaps.json` sidecar). */
  sourceMapUrls?: Record<string, string>;
  fs?: FileReader;
  /** A function below this share of the profile is not called out as "not optimized" (default 1%). */
  hotShare?: number;
}

const key = (file: string, line: number, column: number) => `${file}\n${line}\n${column}`;

/**
 * Marked for optimization this often without one compile: V8 refuses to compile it (a breakpoint).
 * A function under a breakpoint is marked thousands of times a second under load; an ordinary one a
 * few times while its compile is queued.
 */
const NEVER_COMPILED_MARKS = 20;

/** Maps generated positions of any script through its source map, loading each map once. */
class Mapper {
  private readonly maps = new Map<string, Promise<TraceMap | null>>();
  constructor(private readonly options: JoinOptions, private readonly urlOfFile: Map<string, string>) {}

  async map(file: string, line: number, column: number): Promise<{ file: string; line: number; column: number }> {
    if (!file.startsWith('/') || line <= 0) return { file, line, column };
    const url = this.urlOfFile.get(file) ?? pathToFileURL(file).href;
    let map = this.maps.get(url);
    if (!map) {
      const reader = this.options.fs ?? boundedTextReader();
      this.maps.set(url, (map = loadMap(url, reader, [], this.options.sourceMapUrls?.[url]).catch(() => null)));
    }
    const m = await map;
    const found = m ? mapPoint(m, line, Math.max(0, column - 1)) : null;
    return found ?? { file, line, column };
  }
}

const isOptimizedTier = (t: V8Tier) => t === 'TurboFan' || t === 'Maglev';

function tierOf(raw: RawV8Function): V8Tier {
  if (raw.tier && raw.tier !== 'unknown') return raw.tier;
  if (raw.lastTraced === 'Maglev' || raw.lastTraced === 'TurboFan') return raw.lastTraced;
  return 'unknown';
}

/** Why V8 could not tell a function's tier, from how the end-of-run query went and whether it found the function. */
export function tierUnknownOf(r: RawV8Function, signals: Pick<V8RawSignals, 'tiersRead' | 'functions' | 'collection'>): NonNullable<V8FunctionSignals['tierUnknown']> {
  const read = signals.tiersRead ?? (signals.functions.some((f) => f.status !== undefined) ? 'ok' : 'failed');
  switch (read) {
    case 'unknown-layout':
      return { cause: 'layout', short: 'status unreadable', reason: `this V8 (Node ${signals.collection.nodeVersion}) reports optimization states Hotpath cannot decode (see the V8 limitation).` };
    case 'process-exited':
      return { cause: 'not-read', short: 'process exited first', reason: 'the process had exited before V8 could be asked for the tiers, and V8 traced no optimization of this function.' };
    case 'failed':
      return { cause: 'not-read', short: 'not read', reason: 'V8 could not be asked for the tiers at the end of the run (see the V8 limitation), and it traced no optimization of this function.' };
    case 'ok':
      if (r.status === undefined) {
        return { cause: 'gone', short: 'gone by the end', reason: 'no copy of the function existed any more when Hotpath asked V8 at the end of the run, and V8 can only be asked about functions that exist. A callback created on each call (an arrow function passed to map or filter, a closure) lives only while its request runs; code compiled per request (new Function, eval, a template compiled on every call) is new code each time and starts in the interpreter.' };
      }
      return { cause: 'no-code', short: 'no compiled code', reason: 'V8 held no compiled code for it at the end of the run (its bytecode is flushed when a function goes cold).' };
  }
}

function notOptimizedOf(raw: RawV8Function, tier: V8Tier, disabledReason: string | undefined, optimizerOff: string | undefined, mode: V8RawSignals['mode']): V8FunctionSignals['notOptimized'] {
  if (tier !== 'Ignition' && tier !== 'Sparkplug') return undefined;
  const realDeopts = raw.deopts.filter((d) => !d.osr).length;
  let cause: NotOptimizedCause;
  let reason: string;
  let detail = '';
  if (optimizerOff) { cause = 'disabled'; detail = `the whole process runs without optimizing compilers: ${optimizerOff}`; reason = `optimization off in this process (${optimizerOff})`; }
  else if (disabledReason) { cause = 'disabled'; detail = disabledReason; reason = `optimization disabled: ${disabledReason}`; }
  else if (raw.marked >= NEVER_COMPILED_MARKS && raw.optimizations === 0) { cause = 'breakpoint'; detail = String(raw.marked); reason = `marked for optimization ${raw.marked} times, never compiled (a breakpoint or debugger?)`; }
  else if (raw.aborted.length) { cause = 'aborted'; detail = raw.aborted.join('; '); reason = `optimization aborted: ${detail}`; }
  else if ((raw.sourceLength ?? 0) >= 60 * 1024) { cause = 'too-large'; detail = `${Math.round(raw.sourceLength! / 1024)} KB`; reason = `too large to optimize (${detail} of source)`; }
  else if (realDeopts > 0 && raw.optimizations > 0) { cause = 'deoptimized'; reason = 'deoptimized and not re-optimized'; }
  else { cause = 'never-marked'; reason = 'never optimized'; }
  return { reason, cause, explanation: explainNotOptimized(cause, detail, mode) };
}

/** `name (file:line)`; code without a script name comes from eval or new Function. */
const displayRef = (name: string, pos: { file: string; line: number }) => `${name || '(anonymous)'} (${pos.file ? `${pos.file}${pos.line > 0 ? `:${pos.line}` : ''}` : 'eval'})`;

export interface V8Join {
  /** Per function index of the model (and of the flamegraph payload's function table, which follows it). */
  functions: Map<number, V8FunctionSignals>;
  /** Run-wide findings: the collection's (protectors) plus what only the join can tell. */
  findings: V8Finding[];
}

/**
 * What a join reads and how it describes: the raw functions by position and by name, references shown
 * as the profile shows them (source-mapped), deopts mapped to source. Shared by the join of the model's
 * functions and that of functions which only ran inlined.
 */
class JoinContext {
  readonly byKey = new Map<string, RawV8Function>();
  private readonly byName = new Map<string, RawV8Function[]>();
  readonly modelAt = new Map<string, number>();
  private readonly mapper: Mapper;

  constructor(readonly model: ProfileModel, readonly raw: V8RawSignals, options: JoinOptions) {
    for (const r of raw.functions) {
      if (r.line > 0) this.byKey.set(key(r.file, r.line, r.column), r);
      const k = `${r.file}\n${r.name}`;
      this.byName.set(k, [...(this.byName.get(k) ?? []), r]);
    }
    const urlOfFile = new Map<string, string>();
    model.functions.forEach((info, f) => {
      if (!info.url) return;
      const file = normalizeFile(info.url);
      urlOfFile.set(file, info.url);
      if (info.line !== null) this.modelAt.set(key(file, info.line, info.column ?? 0), f);
    });
    this.mapper = new Mapper(options, urlOfFile);
  }

  /** V8's record of the function at (file, line, column), else the one function of that name V8 knows only by name in that file. */
  find(file: string, line: number, column: number, name: string): RawV8Function | undefined {
    const r = this.byKey.get(key(file, line, column));
    if (r) return r;
    const named = (this.byName.get(`${file}\n${name}`) ?? []).filter((x) => x.line === 0);
    return named.length === 1 ? named[0] : undefined;
  }

  /** V8's record of a model function. */
  ofModel(f: number): RawV8Function | undefined {
    const info = this.model.functions[f];
    if (!info.url || info.line === null) return undefined;
    return this.find(normalizeFile(info.url), info.line, info.column ?? 0, info.name);
  }

  /** A reference shown to people: the model's own (already mapped) position when it is a profiled function. */
  async describe(ref: V8FunctionRef): Promise<string> {
    const f = this.modelAt.get(key(ref.file, ref.line, ref.column));
    if (f !== undefined) {
      const pos = displayPosition(this.model.functions[f]);
      return displayRef(ref.name || this.model.functions[f].name, { file: pos.file, line: pos.line ?? 0 });
    }
    return displayRef(ref.name, await this.mapper.map(ref.file, ref.line, ref.column));
  }

  /** The function a position lies in: declared nearest above it (and ending below it, when known). */
  private enclosing(file: string, line: number): V8FunctionRef | undefined {
    let best: V8FunctionRef | undefined;
    for (const r of this.raw.functions) {
      if (r.file !== file || r.line <= 0 || r.line > line || (r.endLine !== undefined && r.endLine < line)) continue;
      if (!best || r.line > best.line) best = r;
    }
    return best;
  }

  private async deoptOf(d: RawDeopt, self: RawV8Function): Promise<V8Deopt> {
    const at = d.frames[0];
    const pos = at ? await this.mapper.map(at.file, at.line, at.column) : { file: '', line: 0, column: 0 };
    const out: V8Deopt = { kind: d.kind, reason: d.reason, file: pos.file, line: pos.line, column: pos.column, count: d.count, osr: d.osr };
    if (at && d.frames.length > 1) {
      const callee = this.enclosing(at.file, at.line);
      if (callee && !(callee.file === self.file && callee.line === self.line && callee.column === self.column)) out.inlinedFrom = await this.describe(callee);
    }
    if (d.inlinedIn) out.inlinedInto = await this.describe(d.inlinedIn);
    const explanation = explainDeopt(d.reason);
    if (explanation) out.explanation = explanation;
    return out;
  }

  /** V8's record as signals: tier, compiles, deopts (mapped, real ones first), inlining both ways. */
  async signalsOf(r: RawV8Function): Promise<V8FunctionSignals> {
    const deopts = await Promise.all(r.deopts.map((d) => this.deoptOf(d, r)));
    deopts.sort((a, b) => Number(a.osr) - Number(b.osr) || b.count - a.count);
    return {
      tier: tierOf(r),
      optimizations: r.optimizations,
      deopts,
      inlinedInto: await Promise.all(r.inlinedInto.map((ref) => this.describe(ref))),
      inlined: await Promise.all(r.inlined.map((ref) => this.describe(ref))),
    };
  }

  /**
   * The optimized code a function's callees ran inlined in: its tier at the end, else the last one V8
   * traced compiling (it was deoptimized since), else its on-stack-replacement code's (a long loop
   * optimized while it ran; the function itself stayed in a lower tier).
   */
  static optimizedTier(r: RawV8Function): { tier: V8Tier; osr: boolean } | undefined {
    const end = tierOf(r);
    if (isOptimizedTier(end)) return { tier: end, osr: false };
    if (r.lastTraced === 'Maglev' || r.lastTraced === 'TurboFan') return { tier: r.lastTraced, osr: false };
    return r.osrTier ? { tier: r.osrTier, osr: true } : undefined;
  }
}

/**
 * Signals per function of `model`; functions V8 said nothing about are absent. Also finds hot code the
 * profile cannot show: a function under a breakpoint runs in the interpreter and V8's CPU profiler
 * charges its time to the line calling it, so it is no frame of the profile at all.
 */
export async function joinV8Signals(model: ProfileModel, raw: V8RawSignals, options: JoinOptions = {}): Promise<V8Join> {
  const result = new Map<number, V8FunctionSignals>();
  const findings: V8Finding[] = [...(raw.collection.findings ?? [])];
  const ctx = new JoinContext(model, raw, options);
  const recursive = directlyRecursive(model);
  const hotUs = (options.hotShare ?? 0.01) * model.durationUs;

  for (let f = 0; f < model.functions.length; f++) {
    const info = model.functions[f];
    const r = ctx.ofModel(f);
    if (!r) continue;
    const signals = await ctx.signalsOf(r);
    if (signals.tier === 'unknown') {
      // No code of its own at the end (V8 flushes the bytecode of a function that only runs inlined), but
      // V8 inlined it into optimized code: its hot code ran at that caller's tier.
      const host = r.inlinedInto.map((ref) => ctx.byKey.get(key(ref.file, ref.line, ref.column))).find((c) => c !== undefined && isOptimizedTier(tierOf(c)));
      if (host) {
        signals.tier = tierOf(host);
        signals.ranInlinedIn = await ctx.describe(host);
      } else signals.tierUnknown = tierUnknownOf(r, raw);
    }
    const notInlined = r.notInlinable ?? (recursive.has(f) ? 'it calls itself (direct recursion)' : undefined);
    if (notInlined) signals.notInlined = { reason: notInlined, explanation: explainNotInlined(notInlined) };
    if (model.functionSelfUs[f] >= hotUs && signals.inlinedInto.length === 0) {
      const notOptimized = notOptimizedOf(r, signals.tier, info.deoptReason, raw.optimizerDisabled, raw.mode);
      if (notOptimized) signals.notOptimized = notOptimized;
    }
    result.set(f, signals);
  }

  if (raw.optimizerDisabled) {
    findings.push({ id: 'V8_OPTIMIZER_OFF', title: 'No optimizing compiler in this process', text: `The app runs without V8's optimizing compilers (${raw.optimizerDisabled}): every function stays in the interpreter (or Sparkplug), so this profile shows costs production does not have.`, fix: 'Remove the flag from the app\'s command line (or NODE_OPTIONS) unless production runs with it too.' });
  }
  for (const r of raw.functions) {
    if (ctx.modelAt.has(key(r.file, r.line, r.column)) || r.optimizations > 0 || r.marked < NEVER_COMPILED_MARKS || !r.file.startsWith('/')) continue;
    const tier = tierOf(r);
    if (tier !== 'Ignition' && tier !== 'Sparkplug' && tier !== 'unknown') continue;
    const where = await ctx.describe(r);
    findings.push({
      id: 'V8_HOT_FUNCTION_NEVER_COMPILED',
      title: `${r.name || '(anonymous)'} stayed in the interpreter`,
      text: `V8 marked ${where} for optimization ${r.marked} times and never compiled it${tier !== 'unknown' ? ` (it ended the run in ${tier})` : ''}. V8 does this for a function under a breakpoint or logpoint${r.notInlinable ? ` (TurboFan: ${r.notInlinable})` : ''}. Such a function is not in the CPU profile at all: V8's profiler charges its time to the line that calls it.`,
      fix: 'Remove breakpoints and logpoints from hot code (or detach the debugger) and profile again.',
    });
  }
  return { functions: result, findings };
}

/**
 * A function whose time ran (all or mostly) inlined in other functions' frames, where attribution placed
 * it: the profile has no frame of it, or frames with the lesser part of its time.
 */
export interface InlinedOnlyFunction {
  name: string;
  /** Its position in the script V8 ran (the key of V8's facts about it), when known. */
  generated?: { file: string; line: number; column: number };
  /** The model functions whose frames its code ran in, most time first. */
  hosts: number[];
  /** A function with frames of its own: its signals as joined to them. */
  own?: V8FunctionSignals;
  /** The part of its time that ran inlined (1: all of it). */
  share: number;
}

/**
 * V8's view of functions whose time ran inlined. The code of such a function that ran is its hosts'
 * optimized code, so its tier is the first host's optimized tier (`ranInlinedIn` names that host; its
 * own copy's tier, when V8 still had one, in `ownTier`; `ranInlinedShare` when some of its time ran in
 * frames of its own). Its own record supplies the rest: compiles, deopts inside it, where V8 inlined it.
 * Keys as given; functions neither V8 nor a host can speak for are absent (a function with frames of its
 * own and no optimized host keeps the signals of its frames).
 */
export async function joinInlinedOnly(model: ProfileModel, raw: V8RawSignals, fns: ReadonlyMap<number, InlinedOnlyFunction>, options: JoinOptions = {}): Promise<Map<number, V8FunctionSignals>> {
  const out = new Map<number, V8FunctionSignals>();
  if (fns.size === 0) return out;
  const ctx = new JoinContext(model, raw, options);
  for (const [id, fn] of fns) {
    const own = !fn.own && fn.generated ? ctx.find(fn.generated.file, fn.generated.line, fn.generated.column, fn.name) : undefined;
    let host: { f: number; tier: V8Tier; osr: boolean } | undefined;
    for (const f of fn.hosts) {
      const r = ctx.ofModel(f);
      const code = r ? JoinContext.optimizedTier(r) : undefined;
      if (code) { host = { f, ...code }; break; }
    }
    if (fn.own && !host) continue;
    if (!own && !host) continue;
    const signals: V8FunctionSignals = fn.own ? { ...fn.own, inlinedInto: [...fn.own.inlinedInto] }
      : own ? await ctx.signalsOf(own) : { tier: 'unknown', optimizations: 0, deopts: [], inlinedInto: [], inlined: [] };
    if (host) {
      const info = model.functions[host.f];
      const pos = displayPosition(info);
      const shown = displayRef(info.name, { file: pos.file, line: pos.line ?? 0 });
      if (signals.tier !== 'unknown') signals.ownTier = signals.tier;
      signals.tier = host.tier;
      signals.ranInlinedIn = shown;
      if (host.osr) signals.ranInlinedOsr = true;
      if (fn.share < 1) signals.ranInlinedShare = fn.share;
      delete signals.tierUnknown;
      delete signals.notOptimized;
      if (!signals.inlinedInto.includes(shown)) signals.inlinedInto.unshift(shown);
    } else if (signals.tier === 'unknown') signals.tierUnknown = tierUnknownOf(own!, raw);
    if (own?.notInlinable) signals.notInlined = { reason: own.notInlinable, explanation: explainNotInlined(own.notInlinable) };
    out.set(id, signals);
  }
  return out;
}

/** Functions with a frame whose parent frame is the same function: f calls f. */
function directlyRecursive(model: ProfileModel): Set<number> {
  const out = new Set<number>();
  const { parent, func } = model.nodes;
  for (let v = 0; v < model.nodeCount; v++) {
    const p = parent[v];
    if (p >= 0 && func[p] === func[v]) out.add(func[v]);
  }
  return out;
}
