/**
 * The attribution as the outputs show it: hotspots ranked by the time the user can act on (own cost
 * for user code, self time for the rest), hot lines with self, own and inclusive time and the calls
 * made on them, and per-package totals. Milliseconds and percentages, like the profile's rankings.
 */
import type { ProfileModel } from '../profile/types';
import { roundMs, roundPct } from '../profile/units';
import type { Attribution, AttributedFunctionInfo, CallSiteResult, Placement } from './types';

export interface CallerSite {
  function: string;
  file: string;
  /** The call site: the line in the caller that makes the call (null when not found or ambiguous). */
  line: number | null;
  column: number | null;
  /** The caller's own declaration line. */
  functionLine: number | null;
  /** When several lines in the caller could have made the call. */
  candidateLines?: number[];
}

export interface OwnPartRow {
  function: string;
  file: string;
  line: number | null;
  category: string;
  package: string | null;
  /** Where the time ran: 'native' when builtins/C++ dominated. */
  ranIn: string;
  ms: number;
  pct: number;
  /** The line in the user function that calls it, when found. */
  callLine: number | null;
}

export interface AttributedHotspot {
  rank: number;
  function: string;
  file: string;
  line: number | null;
  column: number | null;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
  /** User code: self + the non-user code it calls directly (what a change to it can remove); others: self. */
  ownMs: number;
  ownPct: number;
  ownParts: OwnPartRow[];
  category: AttributedFunctionInfo['category'];
  package: string | null;
  /** For non-user code: the user function most of its self time runs under, with the call site. */
  userCaller: CallerSite | null;
  /** For non-user code that no user code called synchronously: what started it. */
  asyncContext: string | null;
  /** Part of selfMs that ran inlined into other functions' frames. */
  inlinedMs: number;
  inlinedInto: string[];
  /** Time V8 charged to this frame on lines that could not be placed (inlined code), with why. */
  notPlacedMs: number;
  notPlacedReasons: string[];
  /** Calls whose line could not be told (several candidates, or none found), with their time. */
  unplacedCalls: { function: string; ms: number; pct: number; candidateLines: number[] }[];
  /** Where the package's source map puts the function, when that file is not installed (the position shown is the installed file's). */
  sourceNotInstalled: { file: string; line: number } | null;
  /** Index into Attribution.functions (for front ends that need more). */
  id: number;
}

export interface CallRow {
  function: string;
  file: string;
  line: number | null;
  category: string;
  package: string | null;
  totalMs: number;
  totalPct: number;
}

export interface AttributedHotLine {
  file: string;
  line: number;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
  ownMs: number;
  ownPct: number;
  /** The function whose code is on this line (for a line that only makes calls: the function it is in). */
  function: string;
  placement: Placement;
  /** The frame this line's code ran inlined in, when not its own. */
  inlinedInto: string | null;
  calls: CallRow[];
  /** Attribution id of `function` (-1 when unknown), for front ends that need more (V8's view of it). */
  id: number;
}

export interface PackageRow {
  package: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}

const NEVER_HOT = new Set(['root', 'idle', 'program']);

export function functionLabel(info: AttributedFunctionInfo): string {
  return info.name || '(anonymous)';
}

/** `node:crypto` for `node:internal/crypto/pbkdf2`: the public module a Node internal belongs to. */
export function nodeModuleLabel(url: string): string {
  const bare = url.replace(/^node:/, '');
  const internal = /^internal\/(?:deps\/)?([^/]+)/.exec(bare);
  const head = internal ? internal[1] : bare.split('/')[0];
  const alias: Record<string, string> = { streams: 'stream', _http_server: 'http', _http_client: 'http', _http_outgoing: 'http', _http_incoming: 'http', _http_common: 'http', _stream_readable: 'stream', _stream_writable: 'stream', per_context: 'primordials', modules: 'module' };
  return `node:${alias[head] ?? head.replace(/\.js$/, '')}`;
}

/** Where a function's code lives, in a word or two: `node:crypto`, `lodash`, `native`. */
export function whereLabel(info: AttributedFunctionInfo, ranIn?: string): string {
  const parts: string[] = [];
  if (ranIn === 'native' && info.category !== 'native') parts.push('native');
  if (info.category === 'node') parts.push(nodeModuleLabel(info.url));
  else if (info.category === 'dependency') parts.push(info.package ?? 'dependency');
  else if (info.category === 'native') parts.push('native');
  return parts.join(', ');
}

function callerSite(attr: Attribution, caller: number, site: CallSiteResult): CallerSite {
  const info = attr.functions[caller];
  return {
    function: functionLabel(info), file: site.status === 'placed' ? site.site.file : info.file,
    line: site.status === 'placed' ? site.site.line : null, column: site.status === 'placed' ? site.site.column : null,
    functionLine: info.line,
    ...(site.status === 'ambiguous' ? { candidateLines: site.lines.map((l) => l.line) } : {}),
  };
}

export function rankAttributedHotspots(model: ProfileModel, attr: Attribution, limit = 20): AttributedHotspot[] {
  const duration = model.durationUs;
  const candidates: number[] = [];
  const actionable = (f: number) => (attr.functions[f].category === 'user' ? Math.max(attr.ownUs[f], attr.selfUs[f]) : attr.selfUs[f]);
  for (let f = 0; f < attr.functions.length; f++) {
    const info = attr.functions[f];
    if (NEVER_HOT.has(info.category)) continue;
    if (actionable(f) > 0) candidates.push(f);
  }
  candidates.sort((a, b) => actionable(b) - actionable(a) || attr.selfUs[b] - attr.selfUs[a] || a - b);
  // One row per function as shown: two frames of the same code (a module loaded twice, an original
  // that maps to where another frame already is) merge instead of appearing twice.
  const rows = new Map<string, number[]>();
  for (const f of candidates) {
    const info = attr.functions[f];
    const k = `${functionLabel(info)}\n${info.file}\n${info.line}\n${info.column}`;
    const list = rows.get(k);
    if (list) list.push(f);
    else {
      if (rows.size >= limit) continue;
      rows.set(k, [f]);
    }
  }
  const ms = (us: number) => roundMs(us);
  const pct = (us: number) => roundPct(us, duration);
  let rank = 0;
  return [...rows.values()].map((fs) => {
    const f = fs[0];
    const info = attr.functions[f];
    const sum = (a: Float64Array) => fs.reduce((s, x) => s + a[x], 0);
    const self = sum(attr.selfUs);
    const total = sum(attr.totalUs);
    const own = info.category === 'user' ? Math.max(sum(attr.ownUs), self) : self;
    const partsFor = (attr.ownParts.get(f) ?? []).slice(0, 3).map((p): OwnPartRow => {
      const callee = attr.functions[p.callee];
      const site = attr.callSites.get(`${f}:${p.callee}`);
      return { function: functionLabel(callee), file: callee.file, line: callee.line, category: callee.category, package: callee.package, ranIn: p.ranIn, ms: ms(p.us), pct: pct(p.us), callLine: site?.status === 'placed' ? site.site.line : null };
    });
    // A function V8 inlined everywhere has no frame of its own to learn a caller or an async origin
    // from: it ran where its host ran, so it has the host's (postgres-array's nextCharacter inside parse).
    const host = attr.userCallers.has(f) || attr.asyncContexts.has(f) ? undefined : heaviestHost(attr, f);
    const caller = attr.userCallers.get(f) ?? (host === undefined ? undefined
      : attr.functions[host].category === 'user' ? { caller: host, site: { status: 'not-found' } as CallSiteResult } : attr.userCallers.get(host));
    const asyncContext = attr.asyncContexts.get(f) ?? (host === undefined || attr.functions[host].category === 'user' ? undefined : attr.asyncContexts.get(host));
    const notPlaced = attr.notPlaced.get(f);
    return {
      rank: ++rank, function: functionLabel(info), file: info.file, line: info.line, column: info.column,
      selfMs: ms(self), selfPct: pct(self), totalMs: ms(total), totalPct: pct(total), ownMs: ms(own), ownPct: pct(own), ownParts: partsFor,
      category: info.category, package: info.package,
      userCaller: info.category !== 'user' && caller ? callerSite(attr, caller.caller, caller.site) : null,
      asyncContext: info.category !== 'user' ? asyncContext ?? null : null,
      inlinedMs: ms(sum(attr.inlinedUs)), inlinedInto: (attr.inlinedInto.get(f) ?? []).map((x) => functionLabel(attr.functions[x.frame])),
      notPlacedMs: ms(notPlaced?.us ?? 0), notPlacedReasons: notPlaced?.reasons ?? [],
      unplacedCalls: (attr.unplacedCalls.get(f) ?? []).slice(0, 5).map((c) => ({
        function: functionLabel(attr.functions[c.callee]), ms: ms(c.us), pct: pct(c.us), candidateLines: c.site.status === 'ambiguous' ? c.site.lines.map((l) => l.line) : [],
      })),
      sourceNotInstalled: info.sourceNotInstalled ? { file: info.sourceNotInstalled.file, line: info.sourceNotInstalled.line } : null,
      id: f,
    };
  });
}

/** The frame a function ran inlined into for most of its time, if it ran inlined at all. */
function heaviestHost(attr: Attribution, f: number): number | undefined {
  let best: { frame: number; us: number } | undefined;
  for (const h of attr.inlinedInto.get(f) ?? []) if (!best || h.us > best.us) best = h;
  return best?.frame;
}

function callRow(attr: Attribution, callee: number, us: number, duration: number): CallRow {
  const info = attr.functions[callee];
  return { function: functionLabel(info), file: info.file, line: info.line, category: info.category, package: info.package, totalMs: roundMs(us), totalPct: roundPct(us, duration) };
}

/** All placed lines as rows (heaviest total first); `limit` keeps the first ones by own, then total. */
export function attributedLines(model: ProfileModel, attr: Attribution, options: { limit?: number; order?: 'own' | 'total' } = {}): AttributedHotLine[] {
  const duration = model.durationUs;
  const rows = [...attr.lines];
  if (options.order !== 'total') rows.sort((a, b) => b.ownUs - a.ownUs || b.totalUs - a.totalUs || a.file.localeCompare(b.file) || a.line - b.line);
  return rows.slice(0, options.limit ?? rows.length).map((l) => ({
    file: l.file, line: l.line,
    selfMs: roundMs(l.selfUs), selfPct: roundPct(l.selfUs, duration),
    totalMs: roundMs(l.totalUs), totalPct: roundPct(l.totalUs, duration),
    ownMs: roundMs(l.ownUs), ownPct: roundPct(l.ownUs, duration),
    function: l.fn >= 0 ? functionLabel(attr.functions[l.fn]) : '(unknown)',
    placement: l.placement,
    inlinedInto: l.inlinedInto !== undefined ? functionLabel(attr.functions[l.inlinedInto]) : null,
    calls: l.calls.slice(0, 5).map((c) => callRow(attr, c.callee, c.us, duration)),
    id: l.fn,
  }));
}

export function packageRows(model: ProfileModel, attr: Attribution, limit = 20): PackageRow[] {
  return attr.packages.slice(0, limit).map((p) => ({
    package: p.package, selfMs: roundMs(p.selfUs), selfPct: roundPct(p.selfUs, model.durationUs), totalMs: roundMs(p.totalUs), totalPct: roundPct(p.totalUs, model.durationUs),
  }));
}

/** Where an own-cost part ran, in a word or two: `native, node:crypto`, `lodash`. */
export function partWhere(p: Pick<OwnPartRow, 'ranIn' | 'category' | 'package' | 'file'>): string {
  return [
    p.ranIn === 'native' && p.category !== 'native' ? 'native' : '',
    p.category === 'dependency' ? p.package ?? '' : p.category === 'node' ? nodeModuleLabel(p.file) : p.category === 'native' ? 'native' : '',
  ].filter(Boolean).join(', ');
}

/** Own cost is worth naming when a user function's callees, not its own lines, make it expensive. */
export function ownMatters(h: { ownPct: number; selfPct: number }): boolean {
  return h.ownPct >= h.selfPct * 1.2 + 0.1;
}

/** `84.0% in pbkdf2Sync, node:crypto`: the biggest part of a user function's own cost, when its callees carry it. */
export function ownDetail(h: Pick<AttributedHotspot, 'ownParts' | 'ownPct' | 'selfPct'>, format: (pct: number) => string): string | undefined {
  const top = h.ownParts[0];
  if (!top || !ownMatters(h)) return undefined;
  const where = partWhere(top);
  return `${format(top.pct)} in ${top.function || '(anonymous)'}${where ? `, ${where}` : ''}`;
}
