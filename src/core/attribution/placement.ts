/**
 * Puts each line tick where its code is. V8 charges the lines of an inlined callee to the caller's frame
 * with the callee's line numbers — possibly of another file — so a tick on line L of frame f is f's own
 * line only if f's source has code on L. Otherwise (or when L is just f's header or closing brace and a
 * callee V8 inlined into f has code on L) it is placed in that callee's file; when several candidates
 * fit, or none, the time is "not placed": it stays in f's numbers and is never painted on a line.
 */
import type { V8FunctionRef } from '../v8/types';
import { resolveInlineSite } from './callSites';
import { isInside, sameParsed, type AttributionContext, type ParsedRef } from './context';
import type { DisplayPos } from './scripts';
import type { Placement } from './types';

export interface EntryPlacement {
  /** Attribution id of the function whose code the tick is in. */
  fn: number;
  /** Display line, or null when not placed. */
  pos: DisplayPos | null;
  placement: Placement;
  /** Why not placed (when pos is null). */
  reason?: string;
  /** Not placed, but surely under this line of the frame's function (its inclusive time, not its self time). */
  totalPos?: DisplayPos;
}

/** A function that may have run inlined in the frame: parsed (code lines known) or only V8's line range. */
interface Candidate {
  parsed?: ParsedRef;
  v8?: V8FunctionRef & { endLine?: number };
  /** V8 reported it inlined into this frame (else inferred from calls in the source). */
  confirmed: boolean;
  /** Script path as V8 names it. */
  file: string;
  startLine: number;
  endLine: number;
}

function claims(c: Candidate, line: number): boolean {
  if (line < c.startLine || line > c.endLine) return false;
  return c.parsed ? c.parsed.unit.file.hasCode(line) : true;
}

async function candidatesOf(ctx: AttributionContext, f: number, own: ParsedRef): Promise<Candidate[]> {
  const out: Candidate[] = [];
  if (ctx.v8) {
    // V8's facts come first: what TurboFan inlined (with nested inlinees) into this function.
    for (const ref of ctx.v8Of(f)?.inlined ?? []) {
      const full = ref as V8FunctionRef & { endLine?: number };
      const parsed = await ctx.parsedAtV8(ref);
      if (parsed) {
        if (sameParsed(parsed, own) || isInside(parsed, own)) continue;
        out.push({ parsed, v8: ref, confirmed: true, file: ref.file, startLine: parsed.fn.startLine, endLine: parsed.fn.endLine });
      } else {
        const endLine = ctx.v8EndLine(ref) ?? full.endLine;
        if (endLine !== undefined) out.push({ v8: ref, confirmed: true, file: ref.file, startLine: ref.line, endLine });
      }
    }
  }
  // Then the functions this one calls, by its source: V8 does not report Maglev's inlining (Node 24+),
  // nor anything when signals were not collected (--no-v8, a profile from elsewhere). Only for the
  // user's own code: a package's internals are not worth a search of its (often bundled) files.
  if (own.unit.coords !== 'generated' || ctx.model.functions[f].category !== 'user') return out;
  for (const parsed of await ctx.staticCallees(own)) {
    if (isInside(parsed, own) || parsed.unit.coords !== 'generated') continue;
    if (out.some((c) => c.parsed && sameParsed(c.parsed, parsed))) continue;
    out.push({ parsed, confirmed: false, file: parsed.unit.file.file, startLine: parsed.fn.startLine, endLine: parsed.fn.endLine });
  }
  return out;
}

/**
 * Inferred placements must explain the frame's foreign ticks as a whole: if most of the time on lines
 * that are not the function's own code falls on lines no single callee of it has code on, the ticks
 * come from code we do not know (a Node internal or a dependency inlined by Maglev), and a callee that
 * happens to have code on a few of those line numbers is a coincidence, not an answer.
 */
const INFERENCE_COVERAGE = 0.8;

/** Placement of every given line-table entry of frame function `f`. */
export async function placeFrameEntries(ctx: AttributionContext, f: number, entries: number[]): Promise<Map<number, EntryPlacement>> {
  const out = new Map<number, EntryPlacement>();
  const { lines } = ctx.model;
  const own = await ctx.parsedOf(f);
  const ownAt = (e: number): EntryPlacement => {
    const pos = ctx.scripts.entryDisplay(e);
    if (pos === 'ambiguous') return { fn: f, pos: null, placement: 'own', reason: 'the generated line holds many source lines (tsx or minified code)' };
    return { fn: f, pos, placement: 'own' };
  };

  if (!own) {
    // Source unreadable: only what the profile itself shows. A line before the declaration is surely inlined code.
    for (const e of entries) out.set(e, lines.maybeInlined[e] ? { fn: f, pos: null, placement: 'own', reason: 'inlined code (the source could not be read to place it)' } : ownAt(e));
    return out;
  }
  const index = own.unit.file;
  const fn = own.fn;

  if (own.unit.coords === 'display') {
    // V8 ran code compiled in memory: check the mapped line against the function's range in the original.
    for (const e of entries) {
      const at = ownAt(e);
      if (at.pos && at.pos.file === index.file && at.pos.line >= fn.startLine && at.pos.line <= fn.endLine && index.hasCode(at.pos.line)) out.set(e, at);
      else out.set(e, { fn: f, pos: null, placement: 'own', reason: at.reason ?? 'inlined code from another function (the profile does not say which)' });
    }
    return out;
  }

  // Candidates are looked for only when some tick is not plainly the function's own line.
  const plainlyOwn = (line: number) => line >= fn.startLine && line <= fn.endLine && index.hasCode(line) && !index.isStructuralLine(fn, line);
  const candidates = entries.every((e) => plainlyOwn(lines.line[e])) && !ctx.v8 ? [] : await candidatesOf(ctx, f, own);
  const decide = (line: number): { kind: 'own' } | { kind: 'callee'; c: Candidate } | { kind: 'none'; reason: string; candidates?: Candidate[]; ownLine?: boolean } => {
    const inRange = line >= fn.startLine && line <= fn.endLine && index.hasCode(line);
    const weak = inRange && index.isStructuralLine(fn, line);
    const all = candidates.filter((c) => claims(c, line));
    // V8's own inlining facts win over inference from the source.
    const claimed = all.some((c) => c.confirmed) ? all.filter((c) => c.confirmed) : all;
    // The same function reached twice (V8 lists nested inlinees per compile): one claim.
    const distinct = claimed.filter((c, i) => claimed.findIndex((d) => d.file === c.file && d.startLine === c.startLine) === i);
    if (inRange && !weak) return distinct.length ? { kind: 'none', reason: `ambiguous: ${describe(fn.name)} line ${line}, or inlined ${distinct.map((c) => candidateName(c)).join(', ')}`, candidates: distinct, ownLine: true } : { kind: 'own' };
    if (distinct.length === 1) return { kind: 'callee', c: distinct[0] };
    if (distinct.length > 1) return { kind: 'none', reason: `inlined code of one of ${distinct.map((c) => candidateName(c)).join(', ')}`, candidates: distinct };
    if (weak) return { kind: 'own' };
    return { kind: 'none', reason: line >= fn.startLine && line <= fn.endLine ? 'inlined code on a line without code of its own (blank or comment)' : 'inlined code from another function (the profile does not say which)' };
  };

  // How much of the foreign time (lines that are not the function's own code) inference would explain.
  let foreignUs = 0;
  let inferredUs = 0;
  for (const e of entries) {
    const line = lines.line[e];
    const ownCode = line >= fn.startLine && line <= fn.endLine && index.hasCode(line) && !index.isStructuralLine(fn, line);
    if (ownCode) continue;
    foreignUs += lines.selfUs[e];
    const d = decide(line);
    if (d.kind === 'callee' && !d.c.confirmed) inferredUs += lines.selfUs[e];
    else if (d.kind === 'callee' || (d.kind === 'own')) foreignUs -= lines.selfUs[e];
  }
  const inferenceHolds = foreignUs <= 0 || inferredUs >= INFERENCE_COVERAGE * foreignUs;

  /**
   * An ambiguous tick still lies under one line of this function when every reading does: its own line
   * L, or a callee V8 inlined at line L (or all candidates inlined at one line). That line's inclusive
   * time gets it; no self time is claimed anywhere.
   */
  const commonSite = async (e: number, d: { candidates?: Candidate[]; ownLine?: boolean }): Promise<{ totalPos?: DisplayPos }> => {
    if (!d.candidates?.length) return {};
    const own = d.ownLine ? ownAt(e).pos : null;
    if (d.ownLine && !own) return {};
    let common: DisplayPos | null = own;
    for (const c of d.candidates) {
      const id = c.parsed ? await ctx.idOfParsed(c.parsed) : await ctx.idOfV8Ref(c.v8!);
      const site = await resolveInlineSite(ctx, f, id);
      if (site.status !== 'placed') return {};
      if (common && (common.file !== site.site.file || common.line !== site.site.line)) return {};
      common = { file: site.site.file, line: site.site.line, column: null };
    }
    return common ? { totalPos: common } : {};
  };

  // First pass: decisions; an inferred callee may take a header/brace line only once other lines prove it ran here.
  const decisions = new Map<number, ReturnType<typeof decide>>();
  const proven = new Set<Candidate>();
  for (const e of entries) {
    const d = decide(lines.line[e]);
    decisions.set(e, d);
    const line = lines.line[e];
    if (d.kind === 'callee' && !(line >= fn.startLine && line <= fn.endLine)) proven.add(d.c);
  }
  for (const e of entries) {
    const d = decisions.get(e)!;
    const line = lines.line[e];
    if (d.kind === 'own') out.set(e, ownAt(e));
    else if (d.kind === 'none') out.set(e, { fn: f, pos: null, placement: 'own', reason: d.reason, ...(await commonSite(e, d)) });
    else {
      const weakOwn = line >= fn.startLine && line <= fn.endLine;
      if (weakOwn && !d.c.confirmed && !proven.has(d.c)) {
        out.set(e, ownAt(e));
        continue;
      }
      if (!d.c.confirmed && !inferenceHolds) {
        out.set(e, { fn: f, pos: null, placement: 'own', reason: `inlined code; ${candidateName(d.c)} has code on that line, but most of this function's inlined time is on lines none of its callees has` });
        continue;
      }
      const id = d.c.parsed ? await ctx.idOfParsed(d.c.parsed) : await ctx.idOfV8Ref(d.c.v8!);
      const shown = await ctx.scripts.displayLine(d.c.file, line);
      if (shown === 'ambiguous') out.set(e, { fn: id, pos: null, placement: d.c.confirmed ? 'inlined' : 'inferred', reason: 'the inlined code\'s generated line holds many source lines' });
      else out.set(e, { fn: id, pos: shown, placement: d.c.confirmed ? 'inlined' : 'inferred' });
    }
  }
  return out;
}

const describe = (name: string) => name || '(anonymous)';

function candidateName(c: Candidate): string {
  const name = c.parsed ? c.parsed.fn.name : c.v8?.name;
  const file = c.file.split(/[\\/]/).pop();
  return `${describe(name ?? '')} (${file}:${c.startLine})`;
}
