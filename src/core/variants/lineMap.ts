/**
 * Line numbers of one revision carried to another: from `git diff -U0 <rev>` (the revision against the
 * working tree), each unchanged line moves by the lines added and removed above it; a line inside a
 * changed block maps to its counterpart when the block kept its length (a line rewritten in place), and
 * to nothing when lines were added or removed there. Files are compared by their path in the repository
 * (renames are not followed: a renamed file's lines are new).
 */
import { git } from './git';

export interface Hunk { oldStart: number; oldCount: number; newStart: number; newCount: number }

/** The hunks of a `git diff -U0` per file (paths relative to the repository root, `/`-separated). */
export function parseUnifiedDiff(diff: string): Map<string, Hunk[]> {
  const files = new Map<string, Hunk[]>();
  let current: Hunk[] | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) { current = undefined; continue; }
    if (line.startsWith('--- ')) {
      // The old path names the file (a file added since has none: nothing to map from it).
      const p = line.slice(4);
      if (p === '/dev/null') { current = undefined; continue; }
      const name = unquote(p).replace(/^a\//, '');
      current = [];
      files.set(name, current);
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (h && current) current.push({ oldStart: Number(h[1]), oldCount: h[2] === undefined ? 1 : Number(h[2]), newStart: Number(h[3]), newCount: h[4] === undefined ? 1 : Number(h[4]) });
  }
  return files;
}

/** git quotes paths with unusual characters in C style ("a/sp\303\251cial.js"). */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p.replace(/\t.*$/, '');
  const bytes: number[] = [];
  const body = p.slice(1, p.lastIndexOf('"'));
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') { bytes.push(...Buffer.from(c, 'utf8')); continue; }
    const next = body[++i];
    if (/[0-7]/.test(next)) { bytes.push(parseInt(body.slice(i, i + 3), 8)); i += 2; continue; }
    bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Where an old line is in the new revision: its number there, and whether its text changed in place. */
export interface MappedLine { line: number; changed: boolean }

/** The old revision's line `line` in the new revision's numbering, or null when it was removed (or its block resized). */
export function mapLine(hunks: readonly Hunk[], line: number): MappedLine | null {
  let offset = 0;
  for (const h of hunks) {
    const after = h.oldCount === 0 ? line > h.oldStart : line >= h.oldStart + h.oldCount;
    if (h.oldCount > 0 && line >= h.oldStart && line < h.oldStart + h.oldCount) {
      return h.oldCount === h.newCount ? { line: h.newStart + (line - h.oldStart), changed: true } : null;
    }
    if (!after) break;
    offset += h.newCount - h.oldCount;
  }
  return { line: line + offset, changed: false };
}

/** What the diff did to the new revision's line `line`: rewritten in place, added (in a block that grew or is new), or nothing. */
export function newLineOrigin(hunks: readonly Hunk[], line: number): 'changed' | 'added' | 'unchanged' {
  for (const h of hunks) {
    if (h.newCount > 0 && line >= h.newStart && line < h.newStart + h.newCount) return h.oldCount === h.newCount ? 'changed' : 'added';
  }
  return 'unchanged';
}

/** Old lines carried to the new revision, and what the diff says of a new line whatever time it had before. */
export interface LineMap {
  (file: string, line: number): MappedLine | null;
  /** For a file the diff covered (one of `files`); undefined for any other. */
  originInNew(file: string, line: number): 'changed' | 'added' | 'unchanged' | undefined;
}

/**
 * A mapper from revision `rev`'s lines to the working tree's, for the given files (relative to the
 * repository root). Files git reports no change for map to themselves.
 */
export async function lineMapSince(repoRoot: string, rev: string, files: readonly string[]): Promise<LineMap> {
  if (!files.length) return Object.assign((_file: string, line: number) => ({ line, changed: false }), { originInNew: () => undefined });
  const diff = await git(['-c', 'core.quotePath=true', 'diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames', rev, '--', ...files.map((f) => `:(literal)${f}`)], repoRoot);
  const hunks = parseUnifiedDiff(diff);
  const covered = new Set(files);
  const map = (file: string, line: number) => {
    const h = hunks.get(file);
    return h ? mapLine(h, line) : { line, changed: false };
  };
  return Object.assign(map, {
    originInNew: (file: string, line: number) => (covered.has(file) ? newLineOrigin(hunks.get(file) ?? [], line) : undefined),
  });
}
