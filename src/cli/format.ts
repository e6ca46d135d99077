import * as path from 'node:path';

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (n >= 100 ? int(n) : n.toFixed(1)) + ' ms';
export const pct = (n: number) => n.toFixed(1) + '%';
export const signedPct = (n: number) => (n >= 0 ? '+' : '−') + Math.abs(n).toFixed(1) + '%';

/** Paths relative to the working directory when inside it; URLs and other paths unchanged. */
export function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

export function location(file: string, line: number | null, cwd: string): string {
  if (!file) return '(native)';
  return line ? `${displayPath(file, cwd)}:${line}` : displayPath(file, cwd);
}
