/**
 * One report model per run, rendered for the terminal (the CLI's text), Markdown (agents, `--md`, CI
 * job summaries) and JSON (agents' structured content). See model.ts.
 */
import type { BaselineResult, VerifyResult } from '../workflow/baseline';
import type { BenchResult } from '../workflow/bench';
import type { CompareResult } from '../workflow/compare';
import type { LeakResult } from '../workflow/leakCheck';
import type { ProfileResult } from '../workflow/profileWithLoad';
import type { ScriptResult } from '../workflow/profileScript';
import type { ReportResult } from '../workflow/report';
import type { StartupResult } from '../workflow/startup';
import type { StartupVariantsResult } from '../workflow/startupCompare';
import { benchReport } from './bench';
import type { Report } from './model';
import { pprofWrittenSection } from './production';
import type { WrittenPprof } from '../pprof/write';
import { baselineReport, compareReport, leakReport, profileReport, type ReportOptions, reportReport, verifyReport } from './runs';
import { startupReport, startupVariantsReport } from './startup';

export type { Block, Column, ComparisonBlock, ComparisonMetric, Inline, Line, Report, Row, Section, SectionId, TableBlock, TextBlock, VerdictFact } from './model';
export type { ReportOptions } from './runs';
export { renderTerminal, renderSectionsTerminal } from './render/terminal';
export { renderMarkdown, renderSectionsMarkdown, type MarkdownOptions } from './render/markdown';
export { renderJson, type JsonOptions } from './render/json';

/** Every result a run can have. */
export type RunResultAny = ProfileResult | ScriptResult | BaselineResult | VerifyResult | ReportResult | CompareResult | StartupResult | BenchResult | StartupVariantsResult | LeakResult;

export interface BuildOptions extends ReportOptions {
  /** Rows of a comparison's function diff (default 15). */
  limit?: number;
  /** What to run for an interleaved comparison after a verify against an older commit. */
  compareCommand?: string;
  /** What `--pprof` wrote beside the run's profiles (a report's own export is in its result). */
  pprofWritten?: readonly WrittenPprof[];
}

/** The report of any run, with what `--pprof` wrote last. */
export function buildReport(result: RunResultAny, options: BuildOptions): Report {
  const report = runReport(result, options);
  const written = result.kind === 'report' ? undefined : pprofWrittenSection(options.pprofWritten ?? []);
  return written ? { ...report, sections: [...report.sections, written] } : report;
}

function runReport(result: RunResultAny, options: BuildOptions): Report {
  switch (result.kind) {
    case 'profile': case 'script': return profileReport(result, options);
    case 'report': return reportReport(result, options);
    case 'baseline': return baselineReport(result, options);
    case 'verify': return verifyReport(result, options);
    case 'compare': return compareReport(result, { ...options, limit: options.limit ?? 15 });
    case 'leak': return leakReport(result, options);
    case 'startup': return startupReport(result, options);
    case 'startup-compare': case 'startup-bisect': return startupVariantsReport(result);
    case 'bench': return benchReport(result, options);
  }
}
