/** The sections that say what to watch: the production-parity checklist and the run's warnings. */
import type { Warning } from '../common/warnings';
import type { PreflightCheck } from '../workflow/preflight';
import { code, type Inline, line, type Line, prose, section, type Section, text } from './model';

/** The production-parity checklist: each check's finding, and the advice when it is not a pass. */
export function checksSection(title: Inline, checks: PreflightCheck[] | undefined): Section | undefined {
  if (!checks?.length) return undefined;
  const lines: Line[] = checks.flatMap((c) => [
    line([prose(c.title), ': ', prose(c.observed)], 2, c.status),
    ...(c.advice && c.status !== 'pass' ? [line(prose(c.advice), 6)] : []),
  ]);
  return section('checks', [text(lines, title)]);
}

/** Warnings: code and message; messages may quote the app's output over several lines (kept as lines). */
export function warningsSection(warnings: Warning[]): Section | undefined {
  if (!warnings.length) return undefined;
  return section('warnings', [text(warnings.map((w) => line(['[', code(w.code), '] ', prose(w.message, true)], 2, 'warn')), 'Warnings')]);
}
