/**
 * A report as Markdown, for agents (tool answers), `--md` and CI summaries: the headline first, tables
 * in the `pprof -top` shape, lines as lists. Program text is data: code spans (or fenced blocks for app
 * output), controls stripped, capped (`agentCode`, `agentBlock`); Hotpath's own words as they are.
 */
import { agentBlock, agentCode, agentText, mdEscape } from '../../../shared/text/safe';
import { percentLevel, ratioPercent } from '../../stats/formatComparison';
import type { Block, ComparisonBlock, Inline, Report, Section, SectionId, TableBlock, TextBlock } from '../model';
import { displayFile } from '../paths';
import { formatNum, metricValue, pValueText } from './terminal';

export interface MarkdownOptions {
  /** Paths inside it are shown relative to it. */
  cwd: string;
  /** Only these sections (in the report's order); default all. */
  sections?: readonly SectionId[];
  /** Hotpath's sentences that quote program text (warnings, checks, summaries): as code spans (default, for agents) or escaped prose (for people). */
  prose?: 'code' | 'escape';
  /** Longest program text in a code span (default 120). */
  codeMax?: number;
  /** Start with the headline (default true). */
  headline?: boolean;
}

/** Hotpath's own words: the few characters that would start Markdown are escaped (our text rarely has any; `<0.1%` is no tag). */
const own = (s: string) => s.replace(/[\\`*_[\]|]|<(?=[A-Za-z/!?])/g, (c) => `\\${c}`);

function inline(x: Inline, o: MarkdownOptions, cell: boolean): string {
  if (typeof x === 'string') return own(x);
  if (Array.isArray(x)) return x.map((p) => inline(p, o, cell)).join('');
  const v = x as Exclude<Inline, string | readonly Inline[]>;
  const max = o.codeMax ?? 120;
  let out: string;
  if ('code' in v) out = agentCode(v.code, Math.min(v.max ?? max, max));
  else if ('prose' in v) {
    if (o.prose === 'escape') out = mdEscape(agentText(v.prose, 1000));
    else if (v.multiline && /[\r\n]/.test(v.prose) && !cell) {
      const [first, ...rest] = v.prose.split(/\r?\n/);
      out = `${agentCode(first, 600)}\n${agentBlock(rest.join('\n'))}`;
    } else out = agentCode(v.prose, 600);
  } else if ('loc' in v) {
    const { file, line, column } = v.loc;
    out = file ? agentCode(`${displayFile(file, o.cwd)}${line ? `:${line}${column ? `:${column}` : ''}` : ''}`, 200) : '(native)';
  } else if ('path' in v) out = agentCode(displayFile(v.path, o.cwd), 300);
  else out = own(formatNum(v));
  // GFM splits table cells on every `|`, inside code spans too, unless it is escaped.
  return cell ? out.replace(/\|/g, '\\|') : out;
}

function tableBlock(b: TableBlock, o: MarkdownOptions): string {
  if (!b.rows.length && b.empty !== undefined) return inline(b.empty, o, false);
  const notes = b.rows.some((r) => r.notes?.length);
  const head = [...b.columns.map((c) => own(c.label) || ' '), ...(notes ? ['Notes'] : [])];
  const rows = b.rows.map((r) => [...r.cells.map((c) => inline(c, o, true) || ' '), ...(notes ? [(r.notes ?? []).map((n) => inline(n, o, true)).join('; ') || ' '] : [])]);
  const out = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
  if (b.more) out.push(`+${b.more.count} rows${b.more.hint !== undefined ? `: ${inline(b.more.hint, o, false)}` : ''}`);
  return out.join('\n');
}

const MARKS = { pass: '✓ ', warn: '⚠ ', info: 'ℹ ', bullet: '' } as const;

function textBlock(b: TextBlock, o: MarkdownOptions): string {
  const listed = b.lines.filter((l) => (l.indent ?? 0) > 0 || l.mark);
  const base = Math.min(...listed.map((l) => l.indent ?? 0));
  const out: string[] = [];
  let list = false;
  for (const l of b.lines) {
    const isItem = (l.indent ?? 0) > 0 || Boolean(l.mark);
    const body = inline(l.text, o, false);
    if (!isItem) {
      out.push(`${list || out.length ? '\n' : ''}${body}`);
      list = false;
      continue;
    }
    const level = Math.min(3, Math.max(0, Math.round(((l.indent ?? 0) - base) / 2)));
    const pad = '  '.repeat(level);
    out.push(`${pad}- ${l.mark ? MARKS[l.mark] : ''}${body.replace(/\n/g, `\n${pad}  `)}`);
    list = true;
  }
  const title = b.title !== undefined ? `**${inline(b.title, o, false)}**` : '';
  return [title, out.join('\n')].filter(Boolean).join('\n\n');
}

function comparisonBlock(b: ComparisonBlock): string {
  const head = ['metric', b.sides[0], b.sides[1], 'change', `${percentLevel(b.level)} CI`, 'p', 'verdict'];
  const rows = b.metrics.map((m) => [
    own(m.label), metricValue(m, m.a), metricValue(m, m.b), ratioPercent(m.ratio, 1),
    m.ciLow === null || m.ciHigh === null ? 'untested' : `${ratioPercent(m.ciLow, 1)} … ${ratioPercent(m.ciHigh, 1)}`,
    pValueText(m.pValue), !m.inVerdict ? 'not in verdict' : m.significant ? `significant, ${m.change}` : 'not significant',
  ]);
  const cellText = (s: string) => agentText(s, 80).replace(/\|/g, '\\|');
  return [
    `| ${head.map(cellText).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cellText).join(' | ')} |`),
    '', `${own(b.method)}; ${own(b.correction)}`,
  ].join('\n');
}

function block(b: Block, o: MarkdownOptions): string {
  switch (b.kind) {
    case 'text': return textBlock(b, o);
    case 'table': return [b.title !== undefined ? `**${inline(b.title, o, false)}**` : '', tableBlock(b, o)].filter(Boolean).join('\n\n');
    case 'comparison': return comparisonBlock(b);
  }
}

export function renderSectionsMarkdown(sections: readonly Section[], o: MarkdownOptions): string {
  const wanted = o.sections ? new Set(o.sections) : undefined;
  return sections.filter((s) => !wanted || wanted.has(s.id)).map((s) => s.blocks.map((b) => block(b, o)).filter(Boolean).join('\n\n')).filter(Boolean).join('\n\n');
}

export function renderMarkdown(report: Report, o: MarkdownOptions): string {
  const body = renderSectionsMarkdown(report.sections, o);
  return o.headline === false ? `${body}\n` : `${inline(report.headline, o, false)}\n\n${body}\n`;
}

