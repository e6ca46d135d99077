/** `hotpath_hot_lines`: one row per line, heaviest own time first, with V8's view of the code on it. */
import { nodeModuleLabel } from '../attribution/rank';
import { ErrorCode, HotpathError } from '../common/errors';
import { code, fn, type Inline, int, loc, pct, type Report, type Row, section, type Section, table, text } from '../report/model';
import { allocationsHeadline, allocationsSection, isFunctionLevel, originSection } from '../report/production';
import { deoptCount, tierText, topDeoptReason } from '../v8/format';
import type { ThreadHotLine } from '../workflow/analyze';
import { type AnalyzedProfile, sameFile, v8Of } from './analysis';

export interface HotLinesQuery {
  file?: string;
  limit: number;
  offset: number;
  roots: readonly string[];
  /** How the agent named the source, for the paging hint (`{"runId": "run-1"}`). */
  source: string;
}

/** The callee that carries an inclusive line's time (`→ pbkdf2Sync (node:crypto) 84.0%`). */
function callee(l: ThreadHotLine): Inline {
  const c = l.calls[0];
  if (!c || l.totalMs <= l.selfMs * 1.2) return '';
  const where = c.category === 'dependency' && c.package ? c.package : c.category === 'node' ? nodeModuleLabel(c.file) : c.category === 'native' ? 'native' : '';
  return [fn(c.function), where ? [' (', code(where), ')'] : '', ' ', pct(c.totalPct)];
}

/** What the profile is, when it is not a .cpuprofile (pprof, 0x): format, sample type, lines or functions, labels, paths. */
function originOf(a: AnalyzedProfile): Section[] {
  const s = originSection(a.model);
  return s ? [s] : [];
}

/** `all 3 threads' time together`: what a share of a run with worker threads is of. */
export function threadsNote(a: AnalyzedProfile): string {
  return a.threads ? `Shares are of all ${a.threads.labels.length} threads' time together (${a.threads.labels.join(', ')}).` : '';
}

export function hotLinesReport(a: AnalyzedProfile, q: HotLinesQuery): Report {
  if (a.allocations) return allocationSitesReport(a, a.allocations, q);
  if (isFunctionLevel(a.model)) return functionsReport(a, q);
  const all = q.file ? a.lines.filter((l) => sameFile(l.file, q.file!, q.roots)) : a.lines;
  if (q.file && !all.length) {
    const files = [...new Set(a.lines.slice(0, 200).map((l) => l.file))].slice(0, 8);
    throw new HotpathError(ErrorCode.InvalidOption, `No line of "${q.file}" has time in this profile. Files with hot lines: ${files.join(', ') || '(none)'}.`);
  }
  const page = all.slice(q.offset, q.offset + q.limit);
  const threads = Boolean(a.threads);
  const rows: Row[] = page.map((l) => {
    const v8 = v8Of(a, l.id);
    const deopts = v8 ? deoptCount(v8.deopts) : 0;
    return {
      cells: [
        loc(l.file, l.line), fn(l.function), pct(l.ownPct), int(l.ownMs), pct(l.selfPct), pct(l.totalPct), int(l.totalMs),
        v8 ? code(tierText(v8)) : '', deopts ? [`${deopts}× `, code(topDeoptReason(v8!.deopts) ?? '')] : '',
        l.inlinedInto ? [fn(l.inlinedInto), l.placement === 'inferred' ? ' (inferred)' : ''] : '', callee(l),
        ...(threads ? [code(l.thread)] : []),
      ],
    };
  });
  const left = all.length - q.offset - page.length;
  const top = page[0];
  const ranIn = (l: ThreadHotLine): Inline => (threads ? [' (', code(l.thread), ')'] : '');
  const headline: Inline = top
    ? [loc(top.file, top.line), ' in ', fn(top.function), ranIn(top), ': ', pct(top.ownPct), ' own (', int(top.ownMs), ' ms)', callee(top) ? [' → ', callee(top)] : '', ` · row ${q.offset + 1} of ${all.length} lines with time${q.file ? ' in this file' : ''}`, threads ? ` · all ${a.threads!.labels.length} threads` : '']
    : `No rows from offset ${q.offset}: ${all.length} lines have time.`;
  return {
    kind: 'hot-lines',
    headline,
    sections: [
      section('title', [text([['Profile: ', { path: a.profilePath }, ` (${(a.model.durationUs / 1e6).toFixed(2)} s, `, int(a.model.sampleCount), ' samples). Own = self + the dependency, Node and native code called on the line: what a change to that line can remove.', threads ? ` ${threadsNote(a)}` : '']])], false),
      ...originOf(a),
      section('lines', [table(
        [['location', 'Line'], ['function', 'Function'], ['ownPct', 'Own'], ['ownMs', 'Own ms'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['totalMs', 'Total ms'], ['tier', 'V8 tier'], ['deopts', 'Deopts'], ['inlinedInto', 'Inlined into'], ['calls', 'Time in'],
          ...(threads ? [['thread', 'Thread'] as [string, string]] : [])],
        rows,
        left > 0 ? { more: { count: left, hint: code(`offset: ${q.offset + page.length}`) } } : {},
      )]),
    ],
  };
}

/**
 * A function-level profile (most pprof producers, 0x) has no lines: the answer says so first and
 * lists the functions by own time at their declarations — never as line rows.
 */
function functionsReport(a: AnalyzedProfile, q: HotLinesQuery): Report {
  const all = (q.file ? a.hotspots.filter((h) => sameFile(h.file, q.file!, q.roots)) : a.hotspots).filter((h) => h.ownMs > 0 || h.selfMs > 0);
  const page = all.slice(q.offset, q.offset + q.limit);
  const left = all.length - q.offset - page.length;
  const top = page.find((h) => h.category === 'user') ?? page[0];
  const headline: Inline = ['Function-level profile: no line-level time (it records only each function\'s start line)',
    top ? [' · top function ', fn(top.function), ' at ', loc(top.file, top.line), ' (its declaration): ', pct(top.ownPct), ' own'] : ''];
  return {
    kind: 'hot-lines',
    headline,
    sections: [
      section('title', [text([['Profile: ', { path: a.profilePath }, ' (', int(a.model.sampleCount), ' samples). A function-level profile cannot tell which line of a function the time ran on: these are functions, each at its declaration; hotpath_explain names its callers and callees.']])], false),
      ...originOf(a),
      section('hotspots', [table(
        [['function', 'Function'], ['declaration', 'Declared at'], ['ownPct', 'Own'], ['ownMs', 'Own ms'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['category', 'Category']],
        page.map((h) => ({ cells: [fn(h.function), loc(h.file, h.line), pct(h.ownPct), int(h.ownMs), pct(h.selfPct), pct(h.totalPct), code(h.category === 'dependency' && h.package ? `dep: ${h.package}` : h.category)] })),
        { title: 'Functions (function-level profile: no line heat)', ...(left > 0 ? { more: { count: left, hint: code(`offset: ${q.offset + page.length}`) } } : {}) },
      )]),
    ],
  };
}

/** A heap profile (pprof): its allocation sites in bytes or objects — never time. */
function allocationSitesReport(a: AnalyzedProfile, allocations: NonNullable<AnalyzedProfile['allocations']>, q: HotLinesQuery): Report {
  const sites = q.file ? allocations.sites.filter((s) => sameFile(s.file, q.file!, q.roots)) : allocations.sites;
  const page = { ...allocations, sites: sites.slice(q.offset, q.offset + q.limit) };
  const left = sites.length - q.offset - page.sites.length;
  const memory = allocationsSection(page, a.model.origin, q.limit);
  for (const b of memory.blocks) if (b.kind === 'table' && left > 0) b.more = { count: left, hint: code(`offset: ${q.offset + page.sites.length}`) };
  return {
    kind: 'hot-lines',
    headline: allocationsHeadline(page, a.model.origin),
    sections: [
      section('title', [text([['Profile: ', { path: a.profilePath }, ' (', int(a.model.sampleCount), ' samples). A heap profile records the allocating function, not the line: these are functions at their declarations, in the profile\'s unit.']])], false),
      ...originOf(a),
      memory,
    ],
  };
}
