/**
 * V8's signals of several isolates of one process (the main thread and its worker threads) as one set,
 * for the model that merges their profiles (profile/threads.ts). Each isolate compiles its own copy of
 * a function; the copies share the script and position, so they are one function here: compiles and
 * deopts add up, inlining facts are the union (the same call sites, inlined in one isolate or several),
 * and the tier is the first isolate's that knows one (threads in the order given: main first).
 */
import type { RawDeopt, RawV8Function, V8Finding, V8FunctionRef, V8RawSignals } from './types';

const refKey = (r: V8FunctionRef) => `${r.file}\n${r.line}\n${r.column}\n${r.line > 0 ? '' : r.name}`;

function union<T>(a: T[], b: T[], key: (x: T) => string): T[] {
  const seen = new Set(a.map(key));
  const out = [...a];
  for (const x of b) if (!seen.has(key(x))) { seen.add(key(x)); out.push(x); }
  return out;
}

const deoptKey = (d: RawDeopt) => JSON.stringify([d.kind, d.reason, d.osr, d.frames, d.inlinedIn ? refKey(d.inlinedIn) : '']);

function mergeDeopts(a: RawDeopt[], b: RawDeopt[]): RawDeopt[] {
  const out = a.map((d) => ({ ...d }));
  const at = new Map(out.map((d, i) => [deoptKey(d), i]));
  for (const d of b) {
    const i = at.get(deoptKey(d));
    if (i === undefined) { at.set(deoptKey(d), out.length); out.push({ ...d }); } else out[i].count += d.count;
  }
  return out;
}

function mergeFunction(a: RawV8Function, b: RawV8Function): RawV8Function {
  const known = a.tier !== undefined && a.tier !== 'unknown' ? a : b.tier !== undefined && b.tier !== 'unknown' ? b : a;
  const out: RawV8Function = {
    ...a,
    name: a.name || b.name,
    optimizations: a.optimizations + b.optimizations,
    marked: a.marked + b.marked,
    aborted: union(a.aborted, b.aborted, (x) => x),
    deopts: mergeDeopts(a.deopts, b.deopts),
    inlined: union(a.inlined, b.inlined, refKey),
    inlinedInto: union(a.inlinedInto, b.inlinedInto, refKey),
  };
  for (const k of ['tier', 'status', 'sourceLength'] as const) {
    if (known[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = known[k]; else delete out[k];
  }
  if (a.lastTraced ?? b.lastTraced) out.lastTraced = a.lastTraced ?? b.lastTraced;
  if (a.osrTier ?? b.osrTier) out.osrTier = a.osrTier ?? b.osrTier;
  const endLine = Math.max(a.endLine ?? 0, b.endLine ?? 0);
  if (endLine > 0) out.endLine = endLine;
  if (a.inlineSites || b.inlineSites) {
    out.inlineSites = union(a.inlineSites ?? [], b.inlineSites ?? [], (s) => `${refKey(s.callee)}\n${refKey(s.caller)}\n${s.line}\n${s.column}`);
  }
  if (a.notInlinable ?? b.notInlinable) out.notInlinable = a.notInlinable ?? b.notInlinable;
  return out;
}

/** One set of signals for several isolates of a process; undefined when none has any. */
export function mergeV8Signals(signals: Array<V8RawSignals | undefined>): V8RawSignals | undefined {
  const present = signals.filter((s): s is V8RawSignals => s !== undefined);
  if (present.length <= 1) return present[0];
  const [first] = present;
  const functions = new Map<string, RawV8Function>();
  for (const s of present) {
    for (const f of s.functions) {
      const k = refKey(f);
      const had = functions.get(k);
      functions.set(k, had ? mergeFunction(had, f) : f);
    }
  }
  const limitations = [...new Set(present.map((s) => s.collection.limitation).filter((l): l is string => !!l))];
  const findings = union<V8Finding>([], present.flatMap((s) => s.collection.findings ?? []), (f) => f.id);
  const collection = { ...first.collection, collected: present.some((s) => s.collection.collected) };
  if (limitations.length) collection.limitation = limitations.join(' '); else delete collection.limitation;
  if (findings.length) collection.findings = findings; else delete collection.findings;
  const tiersRead = present.every((s) => s.tiersRead === 'ok') ? 'ok' : present.find((s) => s.tiersRead !== 'ok')?.tiersRead;
  const optimizerDisabled = present.find((s) => s.optimizerDisabled)?.optimizerDisabled;
  return {
    ...first, collection, functions: [...functions.values()],
    ...(tiersRead ? { tiersRead } : {}), ...(optimizerDisabled ? { optimizerDisabled } : {}),
  };
}
