/**
 * Allocations through inlining. V8's sampling heap profiler names the frame an allocation was made in,
 * and a function V8 inlined has no frame: its bytes are charged to the function it was inlined into,
 * with no line to tell them apart (a heap profile has no line ticks). What can be said: which functions
 * ran inlined in the frame (V8's inlining facts from the same run, else the functions its source calls),
 * and, when only one of the frame's own code and those functions can allocate at all (allocatingCode.ts),
 * that the bytes are that function's. When several can, the bytes stay on the frame and the answer says
 * so — never a split by guess.
 */
import { allocationEvidence, type AllocationEvidence } from './allocatingCode';
import { lastSegment, sameParsed, type AttributionContext, type ParsedRef } from './context';
import type { FramePlacement } from './types';

interface Candidate {
  id: number;
  parsed?: ParsedRef;
  /** V8 reported it inlined into the frame's code (else: a function the frame's source calls). */
  confirmed: boolean;
}

const nameOf = (ctx: AttributionContext, id: number) => ctx.functions[id]?.name || '(anonymous)';

/** What ran inlined in frame function `f`'s allocations and whose they are; null when nothing could have been inlined. */
export async function placeFrameAllocations(ctx: AttributionContext, f: number): Promise<FramePlacement | null> {
  const own = await ctx.parsedOf(f);
  const candidates: Candidate[] = [];
  const add = (c: Candidate) => {
    const same = candidates.find((d) => d.id === c.id);
    if (same) same.confirmed ||= c.confirmed;
    else if (c.id !== f) candidates.push(c);
  };
  for (const ref of ctx.v8Of(f)?.inlined ?? []) {
    const parsed = await ctx.parsedAtV8(ref);
    if (parsed && own && sameParsed(parsed, own)) continue;
    add({ id: parsed ? await ctx.idOfParsed(parsed) : await ctx.idOfV8Ref(ref), parsed, confirmed: true });
  }
  // V8 does not report Maglev's inlining (Node 24+), nor anything without signals: the functions the
  // source calls may have been inlined too. Only for the user's own code, as for CPU placement.
  if (own && own.unit.coords === 'generated' && ctx.model.functions[f]?.category === 'user') {
    for (const parsed of await ctx.staticCallees(own)) {
      if (parsed.unit.coords !== 'generated' || sameParsed(parsed, own)) continue;
      add({ id: await ctx.idOfParsed(parsed), parsed, confirmed: false });
    }
  }
  if (!candidates.length) return null;
  // In source order, so the answer reads the same whatever order V8 listed them in.
  const place = (id: number) => `${ctx.functions[id]?.file ?? ''}\n${String(ctx.functions[id]?.line ?? 0).padStart(9, '0')}`;
  candidates.sort((a, b) => place(a.id).localeCompare(place(b.id)));

  // A call of one of these is that function's code (inlined) or has a frame of its own: not the caller's bytes.
  const names = new Set<string>([nameOf(ctx, f), ...candidates.map((c) => nameOf(ctx, c.id))].map(lastSegment).filter(Boolean));
  const evidenceOf = (p: ParsedRef | undefined | null): AllocationEvidence => (p ? allocationEvidence(p.unit.file, p.fn, names) : { verdict: 'maybe', what: 'its source could not be read' });
  const ownEvidence = evidenceOf(own);
  const inlined = candidates.map((c) => ({ fn: c.id, confirmed: c.confirmed, evidence: evidenceOf(c.parsed) }));
  const able = inlined.filter((c) => c.evidence.verdict !== 'no');
  const ownAble = ownEvidence.verdict !== 'no';
  const out: FramePlacement = { frame: f, own: ownEvidence, inlined, placedOn: null };
  if (!ownAble && able.length === 1) {
    out.placedOn = able[0].fn;
    out.placement = able[0].confirmed ? 'inlined' : 'inferred';
  } else if (able.length + (ownAble ? 1 : 0) > 1) {
    const who = [...(ownAble ? [`${nameOf(ctx, f)}'s own code (${describe(ownEvidence)})`] : []), ...able.map((c) => `${nameOf(ctx, c.fn)} (${describe(c.evidence)})`)];
    out.reason = `${joinOr(who)} can each allocate, and V8 charges inlined code's bytes to the frame it ran in`;
  } else if (!ownAble && !able.length) {
    out.reason = 'neither its own code nor the functions inlined in it allocate by their source (the bytes may come from a built-in)';
  }
  return out;
}

function describe(e: AllocationEvidence): string {
  return `${e.verdict === 'yes' ? '' : 'may: '}${e.what ?? 'code'}${e.line ? `, line ${e.line}` : ''}`;
}

/** `a and b`, `a, b and c`; past four, the first four and how many more (a dependency's frame can inline dozens). */
function joinOr(items: string[]): string {
  if (items.length > 4) return `${items.slice(0, 4).join(', ')} and ${items.length - 4} more`;
  return items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
