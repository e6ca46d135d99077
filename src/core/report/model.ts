/**
 * The report model: what a run found, said once, rendered for every surface — the terminal (the CLI's
 * text), Markdown (answers to agents, `--md`, CI summaries) and JSON (the compact object agents get as
 * structured content). A report is a list of sections of blocks (tables of rows, lines of text, a
 * comparison), made of inline pieces that keep apart Hotpath's own words, the profiled program's text
 * (function names, URLs, app output: data, never prose), positions, paths and numbers — so each
 * renderer makes each of them safe and readable its own way (src/shared/text/safe.ts).
 */
import type { Verdict } from '../stats/metrics';

/** Text the profiled program wrote (a function, package, thread, URL, reason): shown as data, capped at `max`. */
export interface Code { readonly code: string; readonly max?: number }
/** Hotpath's own sentence that may quote program text (a warning, a check's finding, a summary); `multiline` keeps app output's lines. */
export interface Prose { readonly prose: string; readonly multiline?: boolean }
/** A position in a file (1-based line and column), shown relative to the report's directory. */
export interface Loc { readonly loc: { readonly file: string; readonly line: number | null; readonly column?: number | null } }
/** A file Hotpath wrote or read (a profile, a flamegraph, a baseline), shown relative to the report's directory. */
export interface PathRef { readonly path: string }
/** How a number reads: one formatter per unit (src/shared/text/numbers.ts), the same on every surface. */
export type Unit = 'pct' | 'int' | 'ms' | 'bytes' | 'number';
/** A number: formatted by its unit's formatter, or shown as `text` when the builder formatted it (a ratio, a change); JSON keeps `n`. */
export interface Num { readonly n: number; readonly unit: Unit; readonly text?: string }
/** A piece of text: Hotpath's own words (a string), program text, a position, a path, a number, or a run of them. */
export type Inline = string | Code | Prose | Loc | PathRef | Num | readonly Inline[];

export interface Column {
  /** The row field's name in JSON (`ownPct`, `location`). */
  key: string;
  /** The header people read. */
  label: string;
}

export interface Row {
  cells: Inline[];
  /** Sub-lines about the row (who called it, where its time went): under the first text cell in the terminal. */
  notes?: Inline[];
}

export interface TableBlock {
  kind: 'table';
  title?: Inline;
  columns: Column[];
  rows: Row[];
  /** Rows left out of `rows`, and how to see them (`offset: 15`). */
  more?: { count: number; hint?: Inline };
  /** Why there are no rows (a function-level profile's hot lines): said instead of an empty table (the terminal keeps its header). */
  empty?: Inline;
  /** The column the notes go under (terminal), default 1. */
  notesColumn?: number;
  /** Spaces before the first column (terminal). */
  indent?: number;
}

export type Mark = 'pass' | 'warn' | 'info' | 'bullet';

export interface Line {
  text: Inline;
  /** Spaces before the line in the terminal; Markdown nests deeper lines under shallower ones. */
  indent?: number;
  mark?: Mark;
}

export interface TextBlock {
  kind: 'text';
  title?: Inline;
  lines: Line[];
}

/** One metric of a comparison: both sides' geometric means, the ratio B / A, its interval and test. */
export interface ComparisonMetric {
  key: string;
  label: string;
  unit: string;
  a: number;
  b: number;
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  /** Adjusted for the comparisons made (Bonferroni). */
  pValue: number | null;
  inVerdict: boolean;
  significant: boolean;
  change: 'better' | 'worse' | 'none';
}

/**
 * A comparison of two sides (verify: baseline and now; compare: A and B; bench and startup): first-class,
 * so any surface (the CI job summary among them) can show the metrics and how they were tested.
 */
export interface ComparisonBlock {
  kind: 'comparison';
  /** The two sides' names as columns: ['baseline', 'now'], ['A', 'B']. */
  sides: [string, string];
  /** The metrics' interval level (e.g. 0.9833 with three metrics at α = 5%). */
  level: number;
  metrics: ComparisonMetric[];
  method: string;
  correction: string;
  /**
   * How the terminal lays it out: a table (verify, compare), lines of ratios (bench), lines of both
   * values and the ratio (startup). Every other surface shows a table.
   */
  layout: 'table' | 'ratios' | 'values';
}

export type Block = TableBlock | TextBlock | ComparisonBlock;

/** What a section is about: the unit tools and `--md` choose by, and the key in JSON. */
export type SectionId =
  | 'title' | 'summary' | 'load' | 'routes' | 'hotspots' | 'lines' | 'packages' | 'v8' | 'memory' | 'loop'
  | 'checks' | 'warnings' | 'files' | 'comparison' | 'verdict' | 'diff' | 'runs' | 'leak' | 'startup'
  | 'modules' | 'advice' | 'bench' | 'hint' | 'explain' | 'origin';

export interface Section {
  id: SectionId;
  blocks: Block[];
  /** A blank line before it in the terminal (default true). */
  gap?: boolean;
}

/** The verdict of a comparison, as data: what a CI summary or an agent acts on. */
export interface VerdictFact {
  verdict: Verdict;
  /** One line with the metrics that decided it. */
  summary: string;
  /** Which side is which: [reference, candidate]. */
  sides: [string, string];
}

export interface Report {
  /** The run it describes: `profile`, `verify`, `compare`, `report`, … */
  kind: string;
  /**
   * The first line to read, with units: the hottest code and the throughput, or the verdict
   * (`` `sendStores` in app.js: 61.2% own (JSON.stringify, line 8) · 2,340 req/s ``).
   */
  headline: Inline;
  sections: Section[];
  verdict?: VerdictFact;
}

// Constructors, so builders read like the text they make.
export const code = (text: string, max?: number): Code => (max === undefined ? { code: text } : { code: text, max });
/** A function name in a table: the name (or `(anonymous)`), cut at 60 characters (a RegExp frame is named by its whole pattern). */
export const fn = (name: string, max = 60): Code => code(name || '(anonymous)', max);
export const prose = (text: string, multiline = false): Prose => (multiline ? { prose: text, multiline } : { prose: text });
export const loc = (file: string, line: number | null, column?: number | null): Loc => ({ loc: { file, line, column: column ?? null } });
export const pathRef = (file: string): PathRef => ({ path: file });
export const pct = (n: number): Num => ({ n, unit: 'pct' });
export const int = (n: number): Num => ({ n, unit: 'int' });
export const ms = (n: number): Num => ({ n, unit: 'ms' });
export const bytes = (n: number): Num => ({ n, unit: 'bytes' });
/** A number the builder formatted (a ratio, a signed change), kept as the number for JSON. */
export const numText = (n: number, shown: string): Num => ({ n, unit: 'number', text: shown });

export const table = (columns: Array<[key: string, label: string]>, rows: Row[], extra: Partial<Omit<TableBlock, 'kind' | 'columns' | 'rows'>> = {}): TableBlock =>
  ({ kind: 'table', columns: columns.map(([key, label]) => ({ key, label })), rows, ...extra });
export const text = (lines: Array<Line | Inline>, title?: Inline): TextBlock =>
  ({ kind: 'text', ...(title !== undefined ? { title } : {}), lines: lines.map((l) => (isLine(l) ? l : { text: l })) });
export const line = (t: Inline, indent = 0, mark?: Mark): Line => ({ text: t, ...(indent ? { indent } : {}), ...(mark ? { mark } : {}) });
export const section = (id: SectionId, blocks: Block[], gap = true): Section => ({ id, blocks, ...(gap ? {} : { gap: false }) });

function isLine(l: Line | Inline): l is Line {
  return typeof l === 'object' && l !== null && !Array.isArray(l) && 'text' in l;
}

/** Joins inline pieces with a separator (`a, b, c`). */
export function joined(parts: readonly Inline[], separator: string): Inline[] {
  return parts.flatMap((p, i) => (i ? [separator, p] : [p]));
}
