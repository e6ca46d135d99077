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
 * Signals per function of `model`; functions V8 said nothing about are absent. Also finds hot code the
 * profile cannot show: a function under a breakpoint runs in the interpreter and V8's CPU profiler
 * charges its time to the line calling it, so it is no frame of the profile at all.
 */
export async function joinV8Signals(model: ProfileModel, raw: V8RawSignals, options: JoinOptions = {}): Promise<V8Join> {
  const result = new Map<number, V8FunctionSignals>();
  const findings: V8Finding[] = [...(raw.collection.findings ?? [])];
  const byKey = new Map<string, RawV8Function>();
  const byName = new Map<string, RawV8Function[]>();
  for (const r of raw.functions) {
    if (r.line > 0) byKey.set(key(r.file, r.line, r.column), r);
    const k = `${r.file}\n${r.name}`;
    byName.set(k, [...(byName.get(k) ?? []), r]);
  }
  const urlOfFile = new Map<string, string>();
  const modelAt = new Map<string, number>();
  model.functions.forEach((info, f) => {
    if (!info.url) return;
    const file = normalizeFile(info.url);
    urlOfFile.set(file, info.url);
    if (info.line !== null) modelAt.set(key(file, info.line, info.column ?? 0), f);
  });
  const mapper = new Mapper(options, urlOfFile);
  const recursive = directlyRecursive(model);
  const hotUs = (options.hotShare ?? 0.01) * model.durationUs;

  // A reference shown to people: the model's own (already mapped) position when it is a profiled function.
  const describe = async (ref: V8FunctionRef): Promise<string> => {
    const f = modelAt.get(key(ref.file, ref.line, ref.column));
    if (f !== undefined) {
      const pos = displayPosition(model.functions[f]);
      return displayRef(ref.name || model.functions[f].name, { file: pos.file, line: pos.line ?? 0 });
    }
    return displayRef(ref.name, await mapper.map(ref.file, ref.line, ref.column));
  };
  // The function a position lies in: declared nearest above it (and ending below it, when known).
  const enclosing = (file: string, line: number): V8FunctionRef | undefined => {
    let best: V8FunctionRef | undefined;
    for (const r of raw.functions) {
      if (r.file !== file || r.line <= 0 || r.line > line || (r.endLine !== undefined && r.endLine < line)) continue;
      if (!best || r.line > best.line) best = r;
    }
    return best;
  };
  const deoptOf = async (d: RawDeopt, self: RawV8Function): Promise<V8Deopt> => {
    const at = d.frames[0];
    const pos = at ? await mapper.map(at.file, at.line, at.column) : { file: '', line: 0, column: 0 };
    const out: V8Deopt = { kind: d.kind, reason: d.reason, file: pos.file, line: pos.line, column: pos.column, count: d.count, osr: d.osr };
    if (at && d.frames.length > 1) {
      const callee = enclosing(at.file, at.line);
      if (callee && !(callee.file === self.file && callee.line === self.line && callee.column === self.column)) out.inlinedFrom = await describe(callee);
    }
    if (d.inlinedIn) out.inlinedInto = await describe(d.inlinedIn);
    const explanation = explainDeopt(d.reason);
    if (explanation) out.explanation = explanation;
    return out;
  };

  for (let f = 0; f < model.functions.length; f++) {
    const info = model.functions[f];
    if (!info.url || info.line === null) continue;
    const file = normalizeFile(info.url);
    let r = byKey.get(key(file, info.line, info.column ?? 0));
    if (!r) {
      const named = (byName.get(`${file}\n${info.name}`) ?? []).filter((x) => x.line === 0);
      if (named.length === 1) r = named[0];
    }
    if (!r) continue;
    const tier = tierOf(r);
    const deopts = await Promise.all(r.deopts.map((d) => deoptOf(d, r!)));
    deopts.sort((a, b) => Number(a.osr) - Number(b.osr) || b.count - a.count);
    const signals: V8FunctionSignals = {
      tier,
      optimizations: r.optimizations,
      deopts,
      inlinedInto: await Promise.all(r.inlinedInto.map(describe)),
      inlined: await Promise.all(r.inlined.map(describe)),
    };
    if (tier === 'unknown') {
      // No code of its own at the end (V8 flushes the bytecode of a function that only runs inlined), but
      // V8 inlined it into optimized code: its hot code ran at that caller's tier.
      const host = r.inlinedInto.map((ref) => byKey.get(key(ref.file, ref.line, ref.column))).find((c) => c !== undefined && isOptimizedTier(tierOf(c)));
      if (host) {
        signals.tier = tierOf(host);
        signals.ranInlinedIn = await describe(host);
      } else signals.tierUnknown = tierUnknownOf(r, raw);
    }
    const notInlined = r.notInlinable ?? (recursive.has(f) ? 'it calls itself (direct recursion)' : undefined);
    if (notInlined) signals.notInlined = { reason: notInlined, explanation: explainNotInlined(notInlined) };
    if (model.functionSelfUs[f] >= hotUs && signals.inlinedInto.length === 0) {
      const notOptimized = notOptimizedOf(r, tier, info.deoptReason, raw.optimizerDisabled, raw.mode);
      if (notOptimized) signals.notOptimized = notOptimized;
    }
    result.set(f, signals);
  }

  if (raw.optimizerDisabled) {
    findings.push({ id: 'V8_OPTIMIZER_OFF', title: 'No optimizing compiler in this process', text: `The app runs without V8's optimizing compilers (${raw.optimizerDisabled}): every function stays in the interpreter (or Sparkplug), so this profile shows costs production does not have.`, fix: 'Remove the flag from the app\'s command line (or NODE_OPTIONS) unless production runs with it too.' });
  }
  for (const r of raw.functions) {
    if (modelAt.has(key(r.file, r.line, r.column)) || r.optimizations > 0 || r.marked < NEVER_COMPILED_MARKS || !r.file.startsWith('/')) continue;
    const tier = tierOf(r);
    if (tier !== 'Ignition' && tier !== 'Sparkplug' && tier !== 'unknown') continue;
    const where = await describe(r);
    findings.push({
      id: 'V8_HOT_FUNCTION_NEVER_COMPILED',
      title: `${r.name || '(anonymous)'} stayed in the interpreter`,
      text: `V8 marked ${where} for optimization ${r.marked} times and never compiled it${tier !== 'unknown' ? ` (it ended the run in ${tier})` : ''}. V8 does this for a function under a debugger breakpoint or logpoint${r.notInlinable ? ` (TurboFan: ${r.notInlinable})` : ''}. Such a function is not in the CPU profile at all: V8's profiler charges its time to the line that calls it.`,
      fix: 'Remove breakpoints and logpoints from hot code (or detach the debugger) and profile again.',
    });
  }
  return { functions: result, findings };
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
