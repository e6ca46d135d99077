/**
 * One record per V8 function out of what a run collected: the code trace (keyed by SharedFunctionInfo
 * address and name), TurboFan's compiles (keyed by script offset), the end-of-run statuses (keyed by
 * script offset) and the profile's own functions (keyed by line and column). Functions are identified
 * by script and position — names are not unique (anonymous functions, same-named methods) — and a
 * trace entry without a position is placed by its deopt positions or by a unique (script, name).
 */
import { urlToFile } from '../profile/categories';
import type { InliningRefusal } from './inliningTrace';
import { higherTier } from './statusBits';
import { isOsrReason, type ParsedTrace, type SourceRecord, type TraceFunction } from './traceParser';
import type { RawDeopt, RawV8Function, V8FunctionRef, V8Tier } from './types';

export interface FunctionStatus {
  file: string;
  line: number;
  column: number;
  tier: V8Tier;
  status: number;
  /** Source length of an unoptimized function, else -1. */
  sourceLength: number;
  /** Set when the function was found by name (the trace knew it by name only). */
  name?: string;
}

export interface BuildInput {
  trace: ParsedTrace;
  statuses: FunctionStatus[];
  /** The profile's functions with a script (generated positions, 1-based). */
  profileFunctions: V8FunctionRef[];
  refusals: InliningRefusal[];
  /** Script offset → 1-based line/column, for a script as V8 names it; undefined when its source is unknown. */
  position(file: string, offset: number): { line: number; column: number } | undefined;
}

/** One spelling per script: V8 prints paths for CommonJS and file:// URLs for ES modules. */
export function normalizeFile(file: string): string {
  return file.startsWith('file://') ? urlToFile(file) : file;
}

const key = (file: string, line: number, column: number) => `${file}\n${line}\n${column}`;

class Registry {
  readonly byKey = new Map<string, RawV8Function>();
  /** (file, name) → distinct positions known for it (from compiles, statuses, the profile). */
  private readonly byName = new Map<string, Map<string, V8FunctionRef>>();

  note(ref: V8FunctionRef): void {
    if (!ref.line) return;
    const k = `${ref.file}\n${ref.name}`;
    let m = this.byName.get(k);
    if (!m) this.byName.set(k, (m = new Map()));
    m.set(key(ref.file, ref.line, ref.column), ref);
  }

  get(ref: V8FunctionRef): RawV8Function {
    const k = key(ref.file, ref.line, ref.column);
    let f = this.byKey.get(k);
    if (!f) {
      f = { ...ref, optimizations: 0, marked: 0, aborted: [], deopts: [], inlined: [], inlinedInto: [] };
      this.byKey.set(k, f);
    } else if (!f.name && ref.name) f.name = ref.name;
    this.note(ref);
    return f;
  }

  candidates(file: string, name: string): V8FunctionRef[] {
    return [...(this.byName.get(`${file}\n${name}`)?.values() ?? [])];
  }
}

function refOf(record: SourceRecord, input: BuildInput): V8FunctionRef {
  const file = normalizeFile(record.file);
  const at = input.position(record.file, record.start);
  return { name: record.name, file, line: at?.line ?? 0, column: at?.column ?? 0 };
}

/** Registers a compiled function, with its last line (V8 printed its source). */
function compiled(registry: Registry, record: SourceRecord, input: BuildInput): RawV8Function {
  const ref = refOf(record, input);
  const f = registry.get(ref);
  if (ref.line > 0 && record.lineSpan > 0) f.endLine = ref.line + record.lineSpan - 1;
  return f;
}

/** The function a position lies in: declared at or above it (and ending below it, when known), nearest first. */
function enclosing(functions: RawV8Function[], file: string, line: number): RawV8Function | undefined {
  let best: RawV8Function | undefined;
  for (const f of functions) {
    if (f.file !== file || f.line <= 0 || f.line > line || (f.endLine !== undefined && f.endLine < line)) continue;
    if (!best || f.line > best.line) best = f;
  }
  return best;
}

const refTo = (f: RawV8Function): V8FunctionRef => ({ name: f.name, file: f.file, line: f.line, column: f.column });

const sameRef = (a: V8FunctionRef, b: V8FunctionRef) => a.file === b.file && a.line === b.line && a.column === b.column && a.name === b.name;

function addRef(list: V8FunctionRef[], ref: V8FunctionRef): void {
  if (!list.some((r) => sameRef(r, ref))) list.push(ref);
}

/** Where a trace function (known by SFI and name) is: by its deopt positions, else a unique (file, name). */
function placeTraceFunction(fn: TraceFunction, registry: Registry, outermostDeoptLines: number[]): V8FunctionRef {
  const file = normalizeFile(fn.file);
  const candidates = registry.candidates(file, fn.name);
  if (candidates.length === 1) return candidates[0];
  // A deopt's outermost frame lies inside the optimized function: the same-named function declared
  // nearest above it is the one.
  for (const line of outermostDeoptLines) {
    let best: V8FunctionRef | undefined;
    for (const c of candidates) if (c.line <= line && (!best || c.line > best.line)) best = c;
    if (best) return best;
  }
  return { name: fn.name, file, line: 0, column: 0 };
}

export function buildRawFunctions(input: BuildInput): RawV8Function[] {
  const registry = new Registry();
  for (const p of input.profileFunctions) registry.note({ ...p, file: normalizeFile(p.file) });

  // TurboFan compiles: exact positions, and what was inlined where.
  for (const compile of input.trace.compiles) {
    const outer = compiled(registry, compile.outer, input);
    for (const { callee, caller, callSiteOffset } of compile.inlinees) {
      const inlinee = compiled(registry, callee, input);
      addRef(outer.inlined, refTo(inlinee));
      addRef(inlinee.inlinedInto, refTo(outer));
      // Where the inlined call is (in the outer function or in another inlinee): the line that makes the call.
      const at = caller ? input.position(caller.file, callSiteOffset) : undefined;
      if (caller && at) {
        const site = { callee: refTo(inlinee), caller: refOf(caller, input), line: at.line, column: at.column };
        const sites = (outer.inlineSites ??= []);
        if (!sites.some((x) => sameRef(x.callee, site.callee) && x.line === site.line && x.column === site.column && x.caller.file === site.caller.file)) sites.push(site);
      }
    }
  }

  // End-of-run tiers. Closures of one function literal share a position: keep the highest tier.
  const profileAt = new Map(input.profileFunctions.map((p) => [key(normalizeFile(p.file), p.line, p.column), p.name]));
  for (const s of input.statuses) {
    const file = normalizeFile(s.file);
    const f = registry.get({ name: profileAt.get(key(file, s.line, s.column)) ?? s.name ?? '', file, line: s.line, column: s.column });
    f.tier = higherTier(f.tier, s.tier);
    f.status = s.status;
    if (s.sourceLength >= 0) f.sourceLength = Math.max(f.sourceLength ?? 0, s.sourceLength);
  }

  // The trace, per SharedFunctionInfo.
  const deoptsBySfi = new Map<string, ParsedTrace['deopts']>();
  for (const d of input.trace.deopts) {
    let list = deoptsBySfi.get(d.sfi);
    if (!list) deoptsBySfi.set(d.sfi, (list = []));
    list.push(d);
  }
  const bySfi = new Map<string, RawV8Function>();
  for (const fn of input.trace.functions.values()) {
    const deopts = deoptsBySfi.get(fn.sfi) ?? [];
    const outermost = deopts.map((d) => d.frames[d.frames.length - 1]).filter((f) => f !== undefined && normalizeFile(f.file) === normalizeFile(fn.file)).map((f) => f.line);
    const f = registry.get(placeTraceFunction(fn, registry, outermost));
    bySfi.set(fn.sfi, f);
    f.optimizations += fn.compiled > 0 ? fn.compiled : fn.optimized;
    f.marked += fn.marked;
    for (const a of fn.aborted) if (!f.aborted.includes(a)) f.aborted.push(a);
    if (fn.last) f.lastTraced = fn.last;
    if (fn.lastOsr) f.osrTier = fn.lastOsr;
    const hadDependency = deopts.some((d) => d.kind === 'dependency');
    for (const d of deopts) {
      // A lazy "(unknown)" bailout is the on-stack half of dependent code thrown away: counted once, as that.
      if (d.kind === 'deopt-lazy' && d.reason === '(unknown)' && hadDependency) continue;
      addDeopt(f.deopts, {
        kind: d.kind,
        reason: d.reason || (d.kind === 'dependency' ? 'an assumption the optimized code relied on changed' : 'unknown'),
        frames: d.frames.map((fr) => ({ ...fr, file: normalizeFile(fr.file) })),
        osr: isOsrReason(d.reason),
        count: 1,
      });
    }
  }

  // A deopt in code inlined from another function is that function's concern too: list it there as
  // well (marked with the optimized function it happened in), so its hover shows it.
  const all = [...registry.byKey.values()];
  for (const owner of all) {
    for (const d of [...owner.deopts]) {
      if (d.inlinedIn || d.frames.length < 2) continue;
      const seen = new Set<RawV8Function>([owner]);
      for (const frame of d.frames.slice(0, -1)) {
        const inner = enclosing(all, frame.file, frame.line);
        if (!inner || seen.has(inner)) continue;
        seen.add(inner);
        addDeopt(inner.deopts, { ...d, inlinedIn: refTo(owner) });
      }
    }
  }

  // TurboFan's inlining refusals (launch and script mode only), by SFI, else by a name unique in the run.
  for (const r of input.refusals) {
    let f = bySfi.get(r.sfi);
    if (!f) {
      const named = [...registry.byKey.values()].filter((x) => x.name === r.name);
      if (named.length === 1) f = named[0];
    }
    if (f) f.notInlinable = r.reason;
  }

  return [...registry.byKey.values()].filter((f) =>
    f.tier !== undefined || f.optimizations > 0 || (f.inlineSites?.length ?? 0) > 0 || f.marked > 0 || f.deopts.length > 0 || f.inlined.length > 0 || f.inlinedInto.length > 0 || f.aborted.length > 0 || f.notInlinable);
}

function addDeopt(list: RawDeopt[], d: RawDeopt): void {
  const id = (x: RawDeopt) => `${x.kind}\n${x.reason}\n${x.frames.map((f) => `${f.file}:${f.line}:${f.column}`).join('<')}\n${x.inlinedIn ? `${x.inlinedIn.file}:${x.inlinedIn.line}` : ''}`;
  const same = list.find((x) => id(x) === id(d));
  if (same) same.count += d.count;
  else list.push({ ...d });
}
