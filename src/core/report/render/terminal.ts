/**
 * A report as the CLI prints it: plain tables (cli-table3, no borders), indented lines, sections apart
 * by a blank line. Program text goes through `terminalText` (escape sequences shown, never run).
 */
import Table from 'cli-table3';
import { formatBytes, formatInt, formatMs, formatPct } from '../../../shared/text/numbers';
import { terminalText } from '../../../shared/text/safe';
import { percentLevel, ratioPercent } from '../../stats/formatComparison';
import { ratioText } from '../../workflow/abEngine';
import type { Block, ComparisonBlock, ComparisonMetric, Inline, Line, Num, Report, Section, TableBlock, TextBlock } from '../model';
import { displayFile } from '../paths';

export interface TerminalOptions {
  /** Paths inside it are shown relative to it. */
  cwd: string;
}

const PLAIN = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

const MARKS = { pass: '✓', warn: '⚠', info: 'ℹ', bullet: '•' } as const;

export function formatNum(n: Num): string {
  if (n.text !== undefined) return n.text;
  switch (n.unit) {
    case 'pct': return formatPct(n.n);
    case 'int': return formatInt(n.n);
    case 'ms': return formatMs(n.n);
    case 'bytes': return formatBytes(n.n);
    default: return String(n.n);
  }
}

/** A capped piece of program text: `max - 1` characters and `…`. */
export function capped(s: string, max: number | undefined): string {
  return max !== undefined && s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function inlineTerminal(x: Inline, cwd: string): string {
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return x.map((p) => inlineTerminal(p, cwd)).join('');
  const v = x as Exclude<Inline, string | readonly Inline[]>;
  if ('code' in v) return terminalText(capped(v.code, v.max));
  if ('prose' in v) return terminalText(v.prose, v.multiline);
  if ('loc' in v) {
    const { file, line, column } = v.loc;
    if (!file) return '(native)';
    const shown = terminalText(displayFile(file, cwd));
    return line ? `${shown}:${line}${column ? `:${column}` : ''}` : shown;
  }
  if ('path' in v) return terminalText(displayFile(v.path, cwd));
  return formatNum(v);
}

function lineText(l: Line, cwd: string): string {
  const indent = ' '.repeat(l.indent ?? 0);
  const body = inlineTerminal(l.text, cwd).replace(/\n/g, `\n${' '.repeat((l.indent ?? 0) + 2)}`);
  return `${indent}${l.mark ? `${MARKS[l.mark]} ` : ''}${body}\n`;
}

function textBlock(b: TextBlock, cwd: string): string {
  return (b.title !== undefined ? `${inlineTerminal(b.title, cwd)}:\n` : '') + b.lines.map((l) => lineText(l, cwd)).join('');
}

function tableBlock(b: TableBlock, cwd: string): string {
  const indent = ' '.repeat(b.indent ?? 0);
  const notesColumn = b.notesColumn ?? 1;
  const t = new Table({ ...PLAIN, head: b.columns.map((c, i) => (i === 0 ? indent + c.label : c.label)) });
  for (const row of b.rows) {
    const cells = row.cells.map((c, i) => (i === 0 ? indent : '') + inlineTerminal(c, cwd));
    for (const note of row.notes ?? []) cells[notesColumn] += `\n   ↳ ${inlineTerminal(note, cwd)}`;
    t.push(cells);
  }
  return (b.title !== undefined ? `${inlineTerminal(b.title, cwd)}:\n` : '') + `${t.toString()}\n`;
}

/** A metric's value for people: req/s as an integer, times as durations. */
export function metricValue(m: Pick<ComparisonMetric, 'unit'>, value: number): string {
  return m.unit === 'ms' ? formatMs(value) : `${formatInt(value)}${m.unit === 'req/s' ? '' : ` ${m.unit}`}`;
}

export function pValueText(p: number | null): string {
  return p === null ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3);
}

function comparisonBlock(b: ComparisonBlock): string {
  if (b.layout === 'table') {
    const t = new Table({ ...PLAIN, head: ['', b.sides[0], b.sides[1], 'change', `${percentLevel(b.level)} CI`, 'p', ''] });
    for (const m of b.metrics) {
      const ci = m.ciLow === null || m.ciHigh === null ? 'untested' : `${ratioPercent(m.ciLow, 1)} … ${ratioPercent(m.ciHigh, 1)}`;
      const note = !m.inVerdict ? '(not in verdict)' : m.significant ? `significant, ${m.change}` : 'not significant';
      t.push([`  ${m.label}`, metricValue(m, m.a), metricValue(m, m.b), ratioPercent(m.ratio, 1), ci, pValueText(m.pValue), note]);
    }
    return `${t.toString()}\n  ${b.method}\n  ${b.correction}\n`;
  }
  const p = (m: ComparisonMetric) => (m.pValue !== null ? `, p=${pValueText(m.pValue)}` : '');
  const values = (m: ComparisonMetric) => (b.layout === 'values' ? `${formatMs(m.a)} → ${formatMs(m.b)}, ` : '');
  const metrics = b.metrics.map((m) => `  ${terminalText(m.label)}: ${values(m)}${ratioText(m, b.level)}${p(m)}\n`).join('');
  return `${metrics}  ${terminalText(b.method)}; ${terminalText(b.correction)}\n`;
}

function block(b: Block, cwd: string): string {
  switch (b.kind) {
    case 'text': return textBlock(b, cwd);
    case 'table': return tableBlock(b, cwd);
    case 'comparison': return comparisonBlock(b);
  }
}

export function renderSectionsTerminal(sections: readonly Section[], options: TerminalOptions): string {
  return sections.map((s) => (s.gap === false ? '' : '\n') + s.blocks.map((b) => block(b, options.cwd)).join('')).join('');
}

/** The report as the CLI prints it (the headline is for other surfaces: the terminal has its own first lines). */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  return renderSectionsTerminal(report.sections, options);
}
