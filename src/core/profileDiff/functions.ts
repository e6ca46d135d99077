/**
 * The text diff of two profiles: per function (matched by identity), its self time's share and
 * milliseconds before and after, and what V8 did differently with it — the tier it ended in, how often
 * it was optimized, its deopts and their reasons ("sumX: TurboFan → Maglev, +1 deopt (wrong map)").
 */
import type { Category, ProfileModel } from '../profile/types';
import { deoptCount } from '../v8/format';
import type { V8FunctionSignals, V8Tier } from '../v8/types';
import { functionIdentities, matchFunctions, type FunctionIdentity } from './identity';

export interface V8Brief {
  tier: V8Tier;
  optimizations: number;
  /** Real deopts (OSR bookkeeping left out), repeats counted. */
  deopts: number;
  /** Real deopt reasons, most frequent first. */
  deoptReasons: string[];
}

export type FunctionChange = 'faster' | 'slower' | 'same' | 'new' | 'gone';

export interface FunctionDiff {
  function: string;
  /** Relative to the project, `<package>/<path>` for dependencies, `node:…` for Node's own code. */
  file: string;
  line: number | null;
  category: Category;
  package: string | null;
  selfPctBefore: number;
  selfPctAfter: number;
  selfMsBefore: number;
  selfMsAfter: number;
  /** Change of the self-time share, percentage points. */
  deltaPct: number;
  deltaMs: number;
  change: FunctionChange;
  v8Before: V8Brief | null;
  v8After: V8Brief | null;
  /** "TurboFan → Maglev, +1 deopt (wrong map)"; null when V8 treated it alike (or no signals on a side). */
  v8Changes: string | null;
}

export interface ProfileSide {
  model: ProfileModel;
  /** The folder user files are relative to (repository or worktree root); inferred when absent. */
  projectRoot?: string;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
}

export interface ProfileDiff {
  functions: FunctionDiff[];
  /** Functions present on both sides, of those with self time on either (how well the sides matched). */
  matched: number;
  compared: number;
  /** Set when the diff covers every thread of each side (a side ran worker threads): each side's threads. */
  threads?: { a: string[]; b: string[] };
}

/** A change of the share below this many percentage points is "same". */
const SAME_PP = 0.1;
const NEVER_LISTED = new Set<Category>(['root', 'idle', 'program']);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export function briefOf(s: V8FunctionSignals | undefined): V8Brief | null {
  if (!s) return null;
  const byReason = new Map<string, number>();
  for (const d of s.deopts) if (!d.osr) byReason.set(d.reason, (byReason.get(d.reason) ?? 0) + d.count);
  return { tier: s.tier, optimizations: s.optimizations, deopts: deoptCount(s.deopts), deoptReasons: [...byReason.entries()].sort((x, y) => y[1] - x[1]).map(([r]) => r) };
}

/** "TurboFan → Maglev, +1 deopt (wrong map), optimized 1× → 4×"; null when nothing differs. */
export function v8ChangeText(before: V8Brief | null, after: V8Brief | null): string | null {
  if (!before || !after) return null;
  const parts: string[] = [];
  if (before.tier !== after.tier) parts.push(`${before.tier} → ${after.tier}`);
  const d = after.deopts - before.deopts;
  if (d !== 0) {
    const fresh = after.deoptReasons.filter((r) => !before.deoptReasons.includes(r));
    const gone = before.deoptReasons.filter((r) => !after.deoptReasons.includes(r));
    const reasons = d > 0 ? (fresh.length ? fresh : after.deoptReasons) : (gone.length ? gone : before.deoptReasons);
    parts.push(`${d > 0 ? '+' : '\u2212'}${Math.abs(d)} deopt${Math.abs(d) === 1 ? '' : 's'}${reasons.length ? ` (${reasons.slice(0, 2).join(', ')})` : ''}`);
  } else if (before.deoptReasons.join() !== after.deoptReasons.join() && after.deopts > 0) {
    parts.push(`deopts now ${after.deoptReasons.slice(0, 2).join(', ')}`);
  }
  if (before.optimizations !== after.optimizations && (before.optimizations === 0 || after.optimizations === 0 || Math.max(before.optimizations, after.optimizations) >= 2 * Math.min(before.optimizations, after.optimizations))) {
    parts.push(`optimized ${before.optimizations}× → ${after.optimizations}×`);
  }
  return parts.length ? parts.join(', ') : null;
}

interface Totals { selfUs: Float64Array; rep: Int32Array; repUs: Float64Array }

/** Self time per canonical id, and the function index with most of it (whose name, file and signals stand for the id). */
function totals(model: ProfileModel, ids: Int32Array, count: number): Totals {
  const selfUs = new Float64Array(count);
  const rep = new Int32Array(count).fill(-1);
  const repUs = new Float64Array(count).fill(-1);
  for (let f = 0; f < ids.length; f++) {
    const id = ids[f];
    selfUs[id] += model.functionSelfUs[f];
    if (model.functionSelfUs[f] > repUs[id]) { repUs[id] = model.functionSelfUs[f]; rep[id] = f; }
  }
  return { selfUs, rep, repUs };
}

/**
 * Every function with self time on either side, matched across the two profiles, largest change of
 * share first. `minPct`: leave out functions below this share on both sides (default 0.05%).
 */
export function diffProfiles(before: ProfileSide, after: ProfileSide, options: { minPct?: number } = {}): ProfileDiff {
  const minPct = options.minPct ?? 0.05;
  const identA = functionIdentities(before.model, before.projectRoot);
  const identB = functionIdentities(after.model, after.projectRoot);
  const match = matchFunctions(identA, identB);
  const ta = totals(before.model, match.idsA, match.count);
  const tb = totals(after.model, match.idsB, match.count);
  const durA = before.model.durationUs || 1;
  const durB = after.model.durationUs || 1;
  const out: FunctionDiff[] = [];
  let matched = 0;
  let compared = 0;
  for (let id = 0; id < match.count; id++) {
    const usA = ta.selfUs[id];
    const usB = tb.selfUs[id];
    if (usA <= 0 && usB <= 0) continue;
    const ident: FunctionIdentity = tb.rep[id] >= 0 ? identB[tb.rep[id]] : identA[ta.rep[id]];
    if (NEVER_LISTED.has(ident.category)) continue;
    compared++;
    if (usA > 0 && usB > 0) matched++;
    const pctA = (100 * usA) / durA;
    const pctB = (100 * usB) / durB;
    if (pctA < minPct && pctB < minPct) continue;
    const v8Before = briefOf(ta.rep[id] >= 0 ? before.v8Functions?.get(ta.rep[id]) : undefined);
    const v8After = briefOf(tb.rep[id] >= 0 ? after.v8Functions?.get(tb.rep[id]) : undefined);
    const delta = pctB - pctA;
    const change: FunctionChange = usA <= 0 ? 'new' : usB <= 0 ? 'gone' : delta >= SAME_PP ? 'slower' : delta <= -SAME_PP ? 'faster' : 'same';
    out.push({
      function: ident.name, file: ident.file, line: ident.line, category: ident.category, package: ident.package,
      selfPctBefore: round(pctA), selfPctAfter: round(pctB), selfMsBefore: round(usA / 1000), selfMsAfter: round(usB / 1000),
      deltaPct: round(delta), deltaMs: round((usB - usA) / 1000), change,
      v8Before, v8After, v8Changes: v8ChangeText(v8Before, v8After),
    });
  }
  out.sort((x, y) => Math.abs(y.deltaPct) - Math.abs(x.deltaPct) || y.selfPctAfter - x.selfPctAfter);
  return { functions: out, matched, compared };
}
