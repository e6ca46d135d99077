/**
 * A report as a compact JSON object: what agents get as structured content (some clients show the
 * model only that). Table rows become objects keyed by column (numbers stay numbers, positions read
 * `file:line`); program text is cleaned and capped as in Markdown (`agentText`).
 */
import { agentText } from '../../../shared/text/safe';
import type { Block, Inline, Report, SectionId, VerdictFact } from '../model';
import { displayFile } from '../paths';
import { formatNum } from './terminal';

export interface JsonOptions {
  cwd: string;
  sections?: readonly SectionId[];
  /** Longest program text (default 120). */
  codeMax?: number;
}

export type JsonValue = string | number | null | boolean | JsonValue[] | { [key: string]: JsonValue };

const MARKS = { pass: '✓ ', warn: '⚠ ', info: 'ℹ ', bullet: '• ' } as const;
const round = (n: number) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : n);

export function plainText(x: Inline, o: JsonOptions): string {
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return x.map((p) => plainText(p, o)).join('');
  const v = x as Exclude<Inline, string | readonly Inline[]>;
  const max = o.codeMax ?? 120;
  if ('code' in v) return agentText(v.code, Math.min(v.max ?? max, max));
  if ('prose' in v) return v.multiline ? v.prose.split(/\r?\n/).map((l) => agentText(l, 300)).slice(0, 20).join('\n') : agentText(v.prose, 600);
  if ('loc' in v) {
    const { file, line, column } = v.loc;
    return file ? agentText(`${displayFile(file, o.cwd)}${line ? `:${line}${column ? `:${column}` : ''}` : ''}`, 200) : '(native)';
  }
  if ('path' in v) return agentText(displayFile(v.path, o.cwd), 300);
  return formatNum(v);
}

/** A table cell: a lone number stays a number. */
function cellValue(x: Inline, o: JsonOptions): JsonValue {
  if (typeof x === 'object' && x !== null && !Array.isArray(x) && 'n' in x) return round((x as { n: number }).n);
  return plainText(x, o);
}

export function blockJson(b: Block, o: JsonOptions): JsonValue {
  switch (b.kind) {
    case 'table': return {
      ...(b.title !== undefined ? { title: plainText(b.title, o) } : {}),
      rows: b.rows.map((r) => ({
        ...Object.fromEntries(b.columns.map((c, i) => [c.key, cellValue(r.cells[i] ?? '', o)])),
        ...(r.notes?.length ? { notes: r.notes.map((n) => plainText(n, o)) } : {}),
      })),
      ...(b.more ? { more: b.more.count, ...(b.more.hint !== undefined ? { next: plainText(b.more.hint, o) } : {}) } : {}),
      ...(!b.rows.length && b.empty !== undefined ? { empty: plainText(b.empty, o) } : {}),
    };
    case 'text': return {
      ...(b.title !== undefined ? { title: plainText(b.title, o) } : {}),
      lines: b.lines.map((l) => `${l.mark ? MARKS[l.mark] : ''}${plainText(l.text, o)}`),
    };
    case 'comparison': return {
      sides: b.sides.map((s) => agentText(s, 120)), level: b.level, method: b.method, correction: b.correction,
      metrics: b.metrics.map((m) => ({ ...m, label: m.label, a: round(m.a), b: round(m.b), ratio: Math.round(m.ratio * 1e4) / 1e4, ciLow: m.ciLow === null ? null : Math.round(m.ciLow * 1e4) / 1e4, ciHigh: m.ciHigh === null ? null : Math.round(m.ciHigh * 1e4) / 1e4, pValue: m.pValue === null ? null : Number(m.pValue.toPrecision(3)) })),
    };
  }
}

export interface ReportJson {
  kind: string;
  headline: string;
  verdict?: VerdictFact;
  sections: Record<string, JsonValue[]>;
}

export function renderJson(report: Report, o: JsonOptions): ReportJson {
  const wanted = o.sections ? new Set(o.sections) : undefined;
  const sections: Record<string, JsonValue[]> = {};
  for (const s of report.sections) {
    if (wanted && !wanted.has(s.id)) continue;
    (sections[s.id] ??= []).push(...s.blocks.map((b) => blockJson(b, o)));
  }
  return {
    kind: report.kind, headline: plainText(report.headline, o),
    ...(report.verdict ? { verdict: { ...report.verdict, summary: agentText(report.verdict.summary, 600), sides: report.verdict.sides.map((s) => agentText(s, 120)) as [string, string] } } : {}),
    sections,
  };
}
