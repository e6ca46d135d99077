/** Paths as a report shows them: relative to the directory the user works in when inside it. */
import * as path from 'node:path';

/** `lib/report.js` for /app/lib/report.js under /app; URLs, `node:` modules and paths elsewhere unchanged. */
export function displayFile(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

/** `loop (lib/sum.js:3)` for `loop (/app/lib/sum.js:3)`: the absolute paths inside V8's "name (file:line)" texts, shortened. */
export function shortenPaths(text: string, cwd: string): string {
  return text.replace(/\((\/[^():]+)(:\d+)?\)/g, (_, file: string, line = '') => `(${displayFile(file, cwd)}${line})`);
}
