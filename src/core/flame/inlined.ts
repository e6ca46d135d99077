/**
 * Inlined callees as frames of their own. V8 charges the ticks of code it inlined to the caller's frame
 * (v8-signals §1.6.1); attribution places them in the callee, and the editor's CodeLens and line labels
 * show them there. The flamegraph takes the same placements (Attribution.entryInlinee): every line
 * entry of caller f whose ticks went to inlined callee g becomes, under each frame of f, a child frame of
 * g marked inlined. Such a frame's function is an *inlined twin* of g — one per (g, caller f, how the
 * placement was made) — appended to the payload's function table with `inlinedOf` pointing at g, so
 * search, filters, sandwich and the diff treat it as g while the page can mark it and say where it ran.
 * Functions known only as inlined code (no frame of their own: attribution ids past the model's) are
 * appended too, as the twins' `inlinedOf` targets.
 */
import type { Attribution } from '../attribution/types';
import { urlToFile } from '../profile/categories';
import type { FunctionInfo, ProfileModel } from '../profile/types';

/** What the split reads of an attribution: plain data, so it can travel to a worker thread with a request. */
export type InlineSource = Pick<Attribution, 'functions' | 'entryInlinee' | 'entryPlacement'> & Partial<Pick<Attribution, 'frameInlinee' | 'framePlacements'>>;

/** The part of an attribution the split needs (a CPU profile's: allocation placements are not drawn from it). */
export function inlineSourceOf(attr: Attribution): InlineSource {
  return { functions: attr.functions, entryInlinee: attr.entryInlinee, entryPlacement: attr.entryPlacement };
}

/** How an inlined frame's placement was made (functions.extras.inlined): V8 reported the inlining, or inferred from the source. */
export const INLINED_BY_V8 = 1;
export const INLINED_INFERRED = 2;

export interface InlineSplit {
  /** Per model line entry: the payload function its ticks are drawn as (an inlined twin), or -1 (the frame's own). */
  entryFunc: Int32Array;
  /**
   * Per model function: the twin that all of its frames' self time without line ticks is drawn as, or -1
   * (an allocation profile's frame whose bytes attribution placed on one inlined callee).
   */
  frameFunc: Int32Array | null;
  /** Functions past the model's, in payload order: attribution-only functions first, then the twins. */
  added: FunctionInfo[];
  /** Per added function: the payload function it is an inlined twin of, or -1 (an attribution-only function). */
  inlinedOf: Int32Array;
  /** Per added function: INLINED_BY_V8 or INLINED_INFERRED for twins, 0 otherwise. */
  how: Uint8Array;
}

/** The function a payload row shows for an attribution id that has no frame (display position as attribution names it). */
function infoOf(attr: InlineSource, id: number): FunctionInfo {
  const a = attr.functions[id];
  const scriptFile = urlToFile(a.url);
  const mapped = a.file !== '' && a.file !== scriptFile;
  return {
    name: a.name === '(anonymous)' ? '' : a.name, url: a.url, scriptId: '', file: scriptFile, line: a.line, column: a.column,
    category: a.category, package: a.package,
    ...(mapped ? { originalFile: a.file, originalLine: a.line ?? undefined, originalColumn: a.column ?? undefined } : {}),
  };
}

/**
 * The split of `model`'s line ticks into inlined frames, from `attr` (an attribution of the same model);
 * undefined when attribution placed nothing in an inlined callee (`--no-attribution`, no inlining).
 */
export function inlineSplit(model: ProfileModel, attr: InlineSource | undefined): InlineSplit | undefined {
  const lines = model.lines;
  if (!attr || attr.entryInlinee?.length !== lines.count || attr.functions.length < model.functions.length) return undefined;
  const F = model.functions.length;
  const byFrame = attr.frameInlinee?.length === F ? attr.frameInlinee : null;
  const entryFunc = new Int32Array(lines.count).fill(-1);
  const added: FunctionInfo[] = [];
  const inlinedOf: number[] = [];
  const how: number[] = [];
  // Attribution id → payload function, for the ids past the model's (added as they are met).
  const payloadOf = new Map<number, number>();
  const canonical = (g: number): number => {
    if (g < F) return g;
    let p = payloadOf.get(g);
    if (p === undefined) {
      p = F + added.length;
      payloadOf.set(g, p);
      added.push(infoOf(attr, g));
      inlinedOf.push(-1);
      how.push(0);
    }
    return p;
  };
  const twins = new Map<string, number>();
  const pending: { e: number; g: number; f: number; how: number }[] = [];
  const framePending: { f: number; g: number; how: number }[] = [];
  if (byFrame) {
    for (let f = 0; f < F; f++) {
      const g = byFrame[f];
      if (g >= 0 && g !== f && g < attr.functions.length) framePending.push({ f, g: canonical(g), how: attr.framePlacements?.get(f)?.placement === 'inferred' ? INLINED_INFERRED : INLINED_BY_V8 });
    }
  }
  for (let e = 0; e < lines.count; e++) {
    const g = attr.entryInlinee[e];
    if (g < 0 || g >= attr.functions.length) continue;
    const f = lines.func[e];
    if (g === f) continue;
    pending.push({ e, g: canonical(g), f, how: attr.entryPlacement[e] === INLINED_INFERRED ? INLINED_INFERRED : INLINED_BY_V8 });
  }
  if (!pending.length && !framePending.length) return undefined;
  // Twins after every attribution-only function, so the added rows read "functions, then their twins".
  const base = F + added.length;
  const twinRows: { of: number; how: number }[] = [];
  const twinOf = (p: { g: number; f: number; how: number }): number => {
    const k = `${p.g}:${p.f}:${p.how}`;
    let t = twins.get(k);
    if (t === undefined) {
      t = base + twinRows.length;
      twins.set(k, t);
      twinRows.push({ of: p.g, how: p.how });
    }
    return t;
  };
  for (const p of pending) entryFunc[p.e] = twinOf(p);
  let frameFunc: Int32Array | null = null;
  if (framePending.length) {
    frameFunc = new Int32Array(F).fill(-1);
    for (const p of framePending) frameFunc[p.f] = twinOf(p);
  }
  const infoOfPayload = (p: number) => (p < F ? model.functions[p] : added[p - F]);
  for (const t of twinRows) {
    added.push({ ...infoOfPayload(t.of) });
    inlinedOf.push(t.of);
    how.push(t.how);
  }
  return { entryFunc, frameFunc, added, inlinedOf: Int32Array.from(inlinedOf), how: Uint8Array.from(how) };
}
