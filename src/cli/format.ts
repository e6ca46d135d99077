import { formatInt, formatMs, formatPct, formatSignedPct } from '../shared/text/numbers';
import { terminalText } from '../shared/text/safe';
import { displayFile } from '../core/report/paths';

// The shared formatters under the CLI's short names (one formatter per kind of number).
export const int = formatInt;
export const ms = formatMs;
export const pct = formatPct;
export const signedPct = (n: number) => formatSignedPct(n, 1);

/**
 * Profile and app text on the terminal (function names, threads, packages): one line, escape sequences
 * shown as `\x1b…`, never run. Paths and locations below go through it too.
 */
export const text = (s: string): string => terminalText(s);

/** Paths relative to the working directory when inside it; URLs and other paths unchanged. */
export function displayPath(file: string, cwd: string): string {
  return terminalText(displayFile(file, cwd));
}

export function location(file: string, line: number | null, cwd: string, column?: number | null): string {
  if (!file) return '(native)';
  if (!line) return displayPath(file, cwd);
  return `${displayPath(file, cwd)}:${line}${column ? `:${column}` : ''}`;
}
