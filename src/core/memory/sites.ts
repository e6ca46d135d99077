/**
 * Allocation sites: which functions allocated the bytes (V8 samples allocations per function), per
 * request of the measured load, and — through attribution's call-site lines — which line of user code
 * made the call when the bytes were allocated in a dependency or in Node (`res.json(…)`, `Buffer.from`).
 * V8 charges an inlined callee's allocations to the frame it ran in: a site says which functions ran
 * inlined in it, and its bytes are the callee's only when attribution found that nothing else there
 * can allocate (attribution/allocationPlacement.ts); otherwise it says why they could not be placed.
 */
import { functionLabel, type Attribution } from '../attribution';
import type { FramePlacement } from '../attribution/types';
import type { ProfileModel } from '../profile/types';

/** A function named in a site's inlining notes. */
export interface SiteFunction {
  function: string;
  file: string;
  line: number | null;
}

/** What ran inlined at a site, and whose its bytes are (see the module comment). */
export interface SiteInlining {
  /** Functions that ran inlined in this function's frames (V8's facts, else the functions its source calls); their allocations are in its bytes unless placed. */
  includes?: (SiteFunction & { reportedByV8: boolean })[];
  /** Why this frame's bytes were not placed on one function: several of them can allocate. */
  notPlaced?: string;
  /** This function's bytes (some or all) were allocated inlined in these frames, where nothing else can allocate. */
  ranInlinedInto?: (SiteFunction & { bytes: number; placement: 'inlined' | 'inferred' })[];
}

export interface AllocationSite {
  function: string;
  file: string;
  /** The function's line (V8 records the allocating function, not the line inside it). */
  line: number | null;
  bytes: number;
  bytesPerRequest: number | null;
  /** % of all sampled bytes. */
  pct: number;
  category: string;
  package: string | null;
  /** Inlining at this site (absent when nothing ran inlined in it). */
  inlining?: SiteInlining;
}

/** A line of user code with bytes on it: a function's own allocations (on its declaration line), or the non-user code its calls allocated. */
export interface AllocationLine {
  file: string;
  line: number;
  function: string;
  /** 'function': the bytes the function on this line allocated itself; 'call': bytes allocated by Node or dependency code called on this line. */
  kind: 'function' | 'call';
  bytes: number;
  bytesPerRequest: number | null;
  pct: number;
  /** For 'call' lines: the callees that allocated, heaviest first. */
  calls: { function: string; where: string; bytes: number }[];
  /** For 'function' lines: inlining at the function's site. */
  inlining?: SiteInlining;
}

const NOT_A_SITE = new Set(['root', 'idle', 'program', 'gc']);

const siteFunction = (attr: Attribution, id: number): SiteFunction => ({ function: functionLabel(attr.functions[id]), file: attr.functions[id].file, line: attr.functions[id].line });

/** The inlining notes of function `f`'s site: what ran inlined in its frames, and where its own bytes were placed from. */
export function siteInlining(attr: Attribution, f: number): SiteInlining | undefined {
  const out: SiteInlining = {};
  const placed: FramePlacement | undefined = attr.framePlacements?.get(f);
  if (placed && placed.placedOn === null) {
    out.includes = placed.inlined.map((c) => ({ ...siteFunction(attr, c.fn), reportedByV8: c.confirmed }));
    if (placed.reason) out.notPlaced = placed.reason;
  }
  const from = (attr.inlinedInto.get(f) ?? []).flatMap(({ frame, us }) => {
    const p = attr.framePlacements?.get(frame);
    return p && p.placedOn === f ? [{ ...siteFunction(attr, frame), bytes: Math.round(us), placement: p.placement ?? 'inferred' }] : [];
  });
  if (from.length) out.ranInlinedInto = from;
  return out.includes || out.ranInlinedInto ? out : undefined;
}
const paintable = (file: string) => file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Sites ranked by bytes; `requests` turns bytes into bytes per request (null when unknown). */
export function allocationSites(model: ProfileModel, attr: Attribution, requests: number | null, limit = 20): AllocationSite[] {
  const total = model.durationUs;
  const rows: AllocationSite[] = [];
  const byKey = new Map<string, AllocationSite>();
  for (let f = 0; f < attr.functions.length; f++) {
    const info = attr.functions[f];
    const bytes = attr.selfUs[f];
    if (bytes <= 0 || NOT_A_SITE.has(info.category)) continue;
    // Two frames of the same code (a module loaded twice) are one site.
    const key = `${functionLabel(info)}\n${info.file}\n${info.line}`;
    const row = byKey.get(key);
    if (row) { row.bytes += bytes; continue; }
    const inlining = siteInlining(attr, f);
    const site: AllocationSite = { function: functionLabel(info), file: info.file, line: info.line, bytes, bytesPerRequest: null, pct: 0, category: info.category, package: info.package, ...(inlining ? { inlining } : {}) };
    byKey.set(key, site);
    rows.push(site);
  }
  rows.sort((a, b) => b.bytes - a.bytes);
  return rows.slice(0, limit).map((s) => ({
    ...s, bytes: Math.round(s.bytes), bytesPerRequest: requests ? round(s.bytes / requests, 1) : null, pct: total > 0 ? round((100 * s.bytes) / total) : 0,
  }));
}

/** Lines of user code with allocations on them, for the editor: function lines and call lines. */
export function allocationLines(model: ProfileModel, attr: Attribution, requests: number | null, options: { minPct?: number; where?: (callee: number) => string } = {}): AllocationLine[] {
  const total = model.durationUs || 1;
  const minPct = options.minPct ?? 0.5;
  const out: AllocationLine[] = [];
  const per = (bytes: number) => (requests ? round(bytes / requests, 1) : null);
  const pct = (bytes: number) => round((100 * bytes) / total);
  const seen = new Set<string>();
  for (let f = 0; f < attr.functions.length; f++) {
    const info = attr.functions[f];
    const bytes = attr.selfUs[f];
    if (info.category !== 'user' || info.line === null || !paintable(info.file) || pct(bytes) < minPct) continue;
    const key = `${info.file}\n${info.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const inlining = siteInlining(attr, f);
    out.push({ file: info.file, line: info.line, function: functionLabel(info), kind: 'function', bytes: Math.round(bytes), bytesPerRequest: per(bytes), pct: pct(bytes), calls: [], ...(inlining ? { inlining } : {}) });
  }
  for (const l of attr.lines) {
    // A call line's own bytes: what non-user code called here allocated (user callees carry their own label).
    const bytes = l.ownUs - l.selfUs;
    if (bytes <= 0 || !paintable(l.file) || l.fn < 0 || attr.functions[l.fn]?.category !== 'user' || pct(bytes) < minPct) continue;
    const calls = l.calls.filter((c) => attr.functions[c.callee]?.category !== 'user').slice(0, 4)
      .map((c) => ({ function: functionLabel(attr.functions[c.callee]), where: options.where?.(c.callee) ?? '', bytes: Math.round(c.us) }));
    out.push({ file: l.file, line: l.line, function: functionLabel(attr.functions[l.fn]), kind: 'call', bytes: Math.round(bytes), bytesPerRequest: per(bytes), pct: pct(bytes), calls });
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

/** A place the user can change, with the bytes charged to it (the leak check's retaining sites). */
export interface OwnedSite {
  function: string;
  file: string;
  line: number | null;
  bytes: number;
  category: string;
  package: string | null;
}

/**
 * Bytes charged to what the user can change: user code's own allocations on its function's line, bytes
 * allocated by Node, dependency or builtin code on the user line that called it; code no user frame
 * called (a socket callback in Node, a timer in a dependency) stays a site of its own.
 */
export function ownedSites(model: ProfileModel, attr: Attribution, options: { minPct?: number } = {}): OwnedSite[] {
  const lines = allocationLines(model, attr, null, { minPct: options.minPct ?? 0.5 });
  const rows: OwnedSite[] = lines.map((l) => ({ function: l.function, file: l.file, line: l.line, bytes: l.bytes, category: 'user', package: null }));
  const minBytes = (model.durationUs * (options.minPct ?? 0.5)) / 100;
  for (let f = 0; f < attr.functions.length; f++) {
    const info = attr.functions[f];
    const bytes = attr.selfUs[f];
    if (info.category === 'user' || NOT_A_SITE.has(info.category) || bytes < minBytes || attr.userCallers.has(f)) continue;
    rows.push({ function: functionLabel(info), file: info.file, line: info.line, bytes: Math.round(bytes), category: info.category, package: info.package });
  }
  return rows.sort((a, b) => b.bytes - a.bytes);
}
