/**
 * The line in a caller that calls a given callee. CPU profiles record no call-site lines for parent
 * frames, so the caller's source is searched for calls whose callee name matches the child frame (or a
 * callback defined or passed in a call). One matching line is an answer; several are reported as such —
 * the profile cannot tell which of them ran, so none of them is given the time.
 */
import type { AttributionContext, ParsedRef } from './context';
import { isInside, lastSegment } from './context';
import type { CallSite, ParsedFunction } from './sourceIndex';
import type { CallSiteLine, CallSiteResult } from './types';

/** The name V8 gave a callee, as a call expression would spell it. */
function calleeNameOf(ctx: AttributionContext, callee: number): string {
  const info = ctx.functions[callee];
  const raw = info.model >= 0 ? ctx.model.functions[info.model].name : info.name;
  return raw === '(anonymous)' ? '' : raw;
}

async function display(ctx: AttributionContext, ref: ParsedRef, line: number, column: number): Promise<CallSiteLine> {
  if (ref.unit.coords === 'display') return { file: ref.unit.file.file, line, column: column + 1 };
  return ctx.scripts.displayPoint(ref.unit.file.file, line, column);
}

/** Calls in `fn` that may have called a function named `name` (direct calls first, then callbacks by name). */
function matchingCalls(f: ParsedFunction, name: string, getterLike: boolean): { line: number; column: number }[] {
  const base = lastSegment(name);
  if (!base) return [];
  let hits: { line: number; column: number }[] = f.calls.filter((c) => c.names.includes(base));
  if (!hits.length) hits = f.calls.filter((c) => c.argNames.includes(base));
  if (!hits.length && getterLike) hits = (f.members.get(base) ?? []).map((line) => ({ line, column: 0 }));
  return hits;
}

async function fromHits(ctx: AttributionContext, ref: ParsedRef, hits: { line: number; column: number }[]): Promise<CallSiteResult> {
  const byLine = new Map<number, { line: number; column: number }>();
  for (const h of hits) if (!byLine.has(h.line)) byLine.set(h.line, h);
  const lines = await Promise.all([...byLine.values()].map((h) => display(ctx, ref, h.line, h.column)));
  const distinct = new Map(lines.map((l) => [`${l.file}\n${l.line}`, l]));
  if (distinct.size === 1) return { status: 'placed', site: lines[0] };
  return { status: 'ambiguous', lines: [...distinct.values()].sort((a, b) => a.line - b.line) };
}

/** Where caller `pf` (a model function of user code) calls `callee` (attribution id). */
export async function resolveCallSite(ctx: AttributionContext, pf: number, callee: number): Promise<CallSiteResult> {
  const caller = await ctx.parsedOf(pf);
  if (!caller) return { status: 'not-found' };
  const fn = caller.fn;
  const calleeModel = ctx.functions[callee]?.model ?? -1;

  // A callback defined inside the caller (`items.map((x) => …)`): the call its definition is passed to.
  const defined = calleeModel >= 0 ? await ctx.parsedOf(calleeModel) : null;
  if (defined && isInside(defined, caller)) {
    const def = defined.fn;
    let best: CallSite | undefined;
    for (const c of fn.calls) {
      if (c.start <= def.start && def.end <= c.end && (!best || c.end - c.start < best.end - best.start)) best = c;
    }
    if (best) return { status: 'placed', site: await display(ctx, caller, best.line, best.column) };
  }

  const name = calleeNameOf(ctx, callee);
  const getterLike = /^(get|set) /.test(name);
  const hits = matchingCalls(fn, name, getterLike);
  if (hits.length) return fromHits(ctx, caller, hits);

  // Not called here directly: maybe from a function V8 inlined into the caller (no frame of its own),
  // which then makes the call — the line in that function, reached through the caller's call of it.
  const v8 = ctx.v8Of(pf);
  if (v8?.inlineSites?.length && name) {
    const found: { site: CallSiteResult; via: CallSiteLine }[] = [];
    for (const s of v8.inlineSites) {
      const inlinee = await ctx.parsedAtV8(s.callee);
      if (!inlinee) continue;
      const inner = matchingCalls(inlinee.fn, name, getterLike);
      if (!inner.length) continue;
      const site = await fromHits(ctx, inlinee, inner);
      const via = await ctx.scripts.displayPoint(s.caller.file, s.line, Math.max(0, s.column - 1));
      found.push({ site, via });
    }
    const placed = found.filter((x) => x.site.status === 'placed');
    if (found.length === 1 && placed.length === 1) {
      const only = placed[0].site as Extract<CallSiteResult, { status: 'placed' }>;
      return { status: 'placed', site: only.site, via: placed[0].via };
    }
    if (found.length > 1) {
      const lines = found.flatMap((x) => (x.site.status === 'placed' ? [x.site.site] : x.site.status === 'ambiguous' ? x.site.lines : []));
      if (lines.length) return { status: 'ambiguous', lines };
    }
  }
  // No V8 facts for it (Maglev's inlining is unreported, or signals were off): the functions the
  // caller calls by its source, one level down, when exactly one of them makes the call.
  if (name && caller.unit.coords === 'generated') {
    const found: { site: CallSiteResult; via: CallSiteResult }[] = [];
    for (const g of await ctx.staticCallees(caller, 1)) {
      const inner = matchingCalls(g.fn, name, getterLike);
      if (!inner.length) continue;
      found.push({ site: await fromHits(ctx, g, inner), via: await fromHits(ctx, caller, matchingCalls(fn, g.fn.name, false)) });
    }
    if (found.length === 1 && found[0].site.status === 'placed' && found[0].via.status === 'placed') {
      return { status: 'placed', site: found[0].site.site, via: found[0].via.site };
    }
  }
  return { status: 'not-found' };
}

/** Where V8 inlined `inlinee` (attribution id) into frame `pf`: V8's recorded call site, else the caller's source. */
export async function resolveInlineSite(ctx: AttributionContext, pf: number, inlinee: number): Promise<CallSiteResult> {
  const v8 = ctx.v8Of(pf);
  const sites: CallSiteLine[] = [];
  for (const s of v8?.inlineSites ?? []) {
    if ((await ctx.idOfV8Ref(s.callee)) !== inlinee) continue;
    // Only sites in the frame's own function: a site inside another inlinee is that inlinee's line.
    if (s.caller.file !== v8!.file || s.caller.line !== v8!.line || s.caller.column !== v8!.column) continue;
    sites.push(await ctx.scripts.displayPoint(s.caller.file, s.line, Math.max(0, s.column - 1)));
  }
  const distinct = new Map(sites.map((l) => [`${l.file}\n${l.line}`, l]));
  if (distinct.size === 1) return { status: 'placed', site: sites[0] };
  if (distinct.size > 1) return { status: 'ambiguous', lines: [...distinct.values()] };
  return resolveCallSite(ctx, pf, inlinee);
}
