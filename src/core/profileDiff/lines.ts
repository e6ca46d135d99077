/**
 * Per-line shares of two profiles of the same code at two revisions, in the newer revision's line
 * numbers: which lines' time grew (a CI annotation goes on them). A line's share is its own time (self
 * plus the dependency, Node and native code it calls) and its total time (everything under it), as % of
 * each side's profile; the older side's lines are carried to the newer side's numbers by a line map
 * (variants/lineMap.ts), so code that only moved is compared with itself.
 */
import * as path from 'node:path';
import { attributedLines, type Attribution } from '../attribution';
import type { ProfileModel } from '../profile/types';

/** One line's shares on one side, its file relative to the side's project root (repository or worktree). */
export interface SideLine {
  file: string;
  line: number;
  ownPct: number;
  totalPct: number;
  selfPct: number;
  function: string;
}

/** Lines with less than this share (own and total) are left out of a side's list. */
const MIN_PCT = 0.05;
const MAX_LINES = 2000;

/**
 * The lines of the project's own files on one side (not its node_modules, nothing outside the root),
 * with at least 0.05% of the profile. Empty without a project root (paths could not be compared).
 */
export function sideLines(model: ProfileModel, attribution: Attribution, projectRoot: string | undefined): SideLine[] {
  if (!projectRoot) return [];
  const out: SideLine[] = [];
  for (const l of attributedLines(model, attribution)) {
    if (!path.isAbsolute(l.file) || (l.ownPct < MIN_PCT && l.totalPct < MIN_PCT)) continue;
    const rel = path.relative(projectRoot, l.file);
    if (rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules')) continue;
    out.push({ file: rel.split(path.sep).join('/'), line: l.line, ownPct: l.ownPct, totalPct: l.totalPct, selfPct: l.selfPct, function: l.function });
    if (out.length >= MAX_LINES) break;
  }
  return out;
}

/** A line of the newer side with its shares on both sides (the older side's mapped to it; 0 when none). */
export interface LineChange {
  file: string;
  /** The line in the newer side's numbering. */
  line: number;
  function: string;
  ownBefore: number;
  ownAfter: number;
  totalBefore: number;
  totalAfter: number;
  /** Percentage points. */
  deltaOwn: number;
  deltaTotal: number;
  /** Its code on the older side: the same line moved or not (`unchanged`), rewritten in place, or none (`added`). */
  origin: 'unchanged' | 'changed' | 'added';
}

/** Maps an older side's (file, line) to the newer side's line (and whether it was rewritten), or null when it was removed. */
export type LineMapper = ((file: string, line: number) => { line: number; changed: boolean } | null) & {
  /** What the diff did to a newer side's line, known whatever time the older side had there (lineMap.ts). */
  originInNew?: (file: string, line: number) => 'changed' | 'added' | 'unchanged' | undefined;
};

const round = (n: number) => Math.round(n * 100) / 100;

/** Every line of the newer side with a share, compared with the older side's lines carried to it by `map`. */
export function lineChanges(before: readonly SideLine[], after: readonly SideLine[], map: LineMapper): LineChange[] {
  const key = (file: string, line: number) => `${file}\n${line}`;
  const mapped = new Map<string, { own: number; total: number; changed: boolean }>();
  for (const l of before) {
    const to = map(l.file, l.line);
    if (to === null) continue;
    const k = key(l.file, to.line);
    const m = mapped.get(k) ?? { own: 0, total: 0, changed: false };
    mapped.set(k, { own: m.own + l.ownPct, total: m.total + l.totalPct, changed: m.changed || to.changed });
  }
  return after.map((l) => {
    const b = mapped.get(key(l.file, l.line));
    // A line without time before: the diff still tells rewritten, added and untouched code apart.
    const origin = b ? (b.changed ? 'changed' : 'unchanged') : map.originInNew?.(l.file, l.line) ?? 'added';
    return {
      file: l.file, line: l.line, function: l.function,
      ownBefore: round(b?.own ?? 0), ownAfter: l.ownPct, totalBefore: round(b?.total ?? 0), totalAfter: l.totalPct,
      deltaOwn: round(l.ownPct - (b?.own ?? 0)), deltaTotal: round(l.totalPct - (b?.total ?? 0)), origin,
    };
  });
}

/**
 * The lines whose time grew most, at most `limit`: by the growth of their own share first (the code on
 * the line costs more), then lines whose total share grew (a call under them got slower), each by at
 * least `minPoints` percentage points.
 */
export function grownLines(changes: readonly LineChange[], limit: number, minPoints = 0.5): LineChange[] {
  const own = changes.filter((c) => c.deltaOwn >= minPoints).sort((x, y) => y.deltaOwn - x.deltaOwn || y.deltaTotal - x.deltaTotal);
  const picked = own.slice(0, limit);
  const seen = new Set(picked);
  const total = changes.filter((c) => !seen.has(c) && c.deltaTotal >= minPoints).sort((x, y) => y.deltaTotal - x.deltaTotal);
  return [...picked, ...total.slice(0, Math.max(0, limit - picked.length))];
}

/** The lines whose time shrank most (for a notice when faster), by own share, then total. */
export function shrunkLines(changes: readonly LineChange[], limit: number, minPoints = 0.5): LineChange[] {
  return changes.filter((c) => -c.deltaOwn >= minPoints || -c.deltaTotal >= minPoints)
    .sort((x, y) => x.deltaOwn - y.deltaOwn || x.deltaTotal - y.deltaTotal).slice(0, limit);
}
