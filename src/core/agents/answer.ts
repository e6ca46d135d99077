/**
 * An answer sized for a model: the report as Markdown (headline first) and as the same compact JSON
 * object (structured content: some clients show the model only that), both within the budget. Tables
 * are cut from the longest down, each cut saying how many rows were left out and how to see them.
 */
import { renderJson, renderMarkdown } from '../report';
import type { Inline, Report, SectionId, TableBlock, TextBlock } from '../report/model';

import { DEFAULT_BUDGET } from './tools';

export { DEFAULT_BUDGET };

export interface Answer {
  markdown: string;
  structured: Record<string, unknown>;
  isError?: boolean;
}

export interface AnswerOptions {
  cwd: string;
  budget?: number;
  sections?: readonly SectionId[];
  /** Fields before the report's in the JSON (runId, status). */
  extra?: Record<string, unknown>;
  /** How to see the rows a cut left out of a table (`offset: 30`, a hotpath_report call). */
  moreHint?: (block: TableBlock, shown: number) => Inline | undefined;
}

function copy(report: Report): Report {
  return { ...report, sections: report.sections.map((s) => ({ ...s, blocks: s.blocks.map((b) => (b.kind === 'table' ? { ...b, rows: [...b.rows] } : b.kind === 'text' ? { ...b, lines: [...b.lines] } : b)) })) };
}

function render(report: Report, o: AnswerOptions): Answer {
  const markdown = renderMarkdown(report, { cwd: o.cwd, ...(o.sections ? { sections: o.sections } : {}) });
  return { markdown, structured: { ...o.extra, ...renderJson(report, { cwd: o.cwd, ...(o.sections ? { sections: o.sections } : {}) }) } };
}

const size = (a: Answer) => Math.max(a.markdown.length, JSON.stringify(a.structured).length);

/** Cuts the biggest table (else the longest list) by a third; false when nothing is left to cut. */
function shrink(report: Report, o: AnswerOptions): boolean {
  const wanted = o.sections ? new Set(o.sections) : undefined;
  const blocks = report.sections.filter((s) => !wanted || wanted.has(s.id)).flatMap((s) => s.blocks);
  const tables = blocks.filter((b): b is TableBlock => b.kind === 'table' && b.rows.length > 1).sort((x, y) => y.rows.length - x.rows.length);
  const t = tables[0];
  if (t) {
    const keep = Math.max(1, Math.floor(t.rows.length * 0.66));
    const cut = t.rows.length - keep;
    t.rows.splice(keep);
    const count = (t.more?.count ?? 0) + cut;
    const hint = o.moreHint?.(t, keep) ?? t.more?.hint;
    t.more = { count, ...(hint !== undefined ? { hint } : {}) };
    return true;
  }
  const texts = blocks.filter((b): b is TextBlock => b.kind === 'text' && b.lines.length > 3).sort((x, y) => y.lines.length - x.lines.length);
  const x = texts[0];
  if (!x) return false;
  const keep = Math.max(2, Math.floor(x.lines.length * 0.66));
  const cut = x.lines.length - keep;
  x.lines.splice(keep, cut, { text: `… ${cut} more lines (cut to fit the answer)`, indent: 2 });
  return true;
}

export function answerOf(report: Report, o: AnswerOptions): Answer {
  const budget = o.budget ?? DEFAULT_BUDGET;
  const r = copy(report);
  let a = render(r, o);
  for (let i = 0; i < 60 && size(a) > budget; i++) {
    if (!shrink(r, o)) break;
    a = render(r, o);
  }
  if (a.markdown.length > budget) {
    a = { ...a, markdown: `${a.markdown.slice(0, budget - 80)}\n\n… cut at ${budget} characters: ask for fewer sections or rows.` };
  }
  if (JSON.stringify(a.structured).length > budget) {
    a = { ...a, structured: { ...o.extra, kind: report.kind, headline: (a.structured as { headline?: string }).headline ?? '', cut: `The rest did not fit in ${budget} characters: the Markdown answer has it.` } };
  }
  return a;
}

/** An answer that is only a message (errors, a run still going). */
export function messageAnswer(markdown: string, structured: Record<string, unknown>, isError = false): Answer {
  return { markdown, structured, ...(isError ? { isError } : {}) };
}
