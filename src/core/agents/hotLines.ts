/** `hotpath_hot_lines`: one row per line, heaviest own time first, with V8's view of the code on it. */
import { nodeModuleLabel } from '../attribution/rank';
import { ErrorCode, HotpathError } from '../common/errors';
import { code, fn, type Inline, int, loc, pct, type Report, type Row, section, table, text } from '../report/model';
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

export function hotLinesReport(a: AnalyzedProfile, q: HotLinesQuery): Report {
  const all = q.file ? a.lines.filter((l) => sameFile(l.file, q.file!, q.roots)) : a.lines;
  if (q.file && !all.length) {
    const files = [...new Set(a.lines.slice(0, 200).map((l) => l.file))].slice(0, 8);
    throw new HotpathError(ErrorCode.InvalidOption, `No line of "${q.file}" has time in this profile. Files with hot lines: ${files.join(', ') || '(none)'}.`);
  }
  const page = all.slice(q.offset, q.offset + q.limit);
  const rows: Row[] = page.map((l) => {
    const v8 = v8Of(a, l.id);
    const deopts = v8 ? deoptCount(v8.deopts) : 0;
    return {
      cells: [
        loc(l.file, l.line), fn(l.function), pct(l.ownPct), int(l.ownMs), pct(l.selfPct), pct(l.totalPct), int(l.totalMs),
        v8 ? code(tierText(v8)) : '', deopts ? [`${deopts}× `, code(topDeoptReason(v8!.deopts) ?? '')] : '',
        l.inlinedInto ? [fn(l.inlinedInto), l.placement === 'inferred' ? ' (inferred)' : ''] : '', callee(l),
      ],
    };
  });
  const left = all.length - q.offset - page.length;
  const top = page[0];
  const headline: Inline = top
    ? [loc(top.file, top.line), ' in ', fn(top.function), ': ', pct(top.ownPct), ' own (', int(top.ownMs), ' ms)', callee(top) ? [' → ', callee(top)] : '', ` · row ${q.offset + 1} of ${all.length} lines with time${q.file ? ' in this file' : ''}`]
    : `No rows from offset ${q.offset}: ${all.length} lines have time.`;
  return {
    kind: 'hot-lines',
    headline,
    sections: [
      section('title', [text([['Profile: ', { path: a.profilePath }, ` (${(a.model.durationUs / 1e6).toFixed(2)} s, `, int(a.model.sampleCount), ' samples). Own = self + the dependency, Node and native code called on the line: what a change to that line can remove.']])], false),
      section('lines', [table(
        [['location', 'Line'], ['function', 'Function'], ['ownPct', 'Own'], ['ownMs', 'Own ms'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['totalMs', 'Total ms'], ['tier', 'V8 tier'], ['deopts', 'Deopts'], ['inlinedInto', 'Inlined into'], ['calls', 'Time in']],
        rows,
        left > 0 ? { more: { count: left, hint: code(`offset: ${q.offset + page.length}`) } } : {},
      )]),
    ],
  };
}
