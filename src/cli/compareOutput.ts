/** `hotpath compare` for people (text) and programs (JSON). */
import type { CompareResult } from '../core/workflow/compare';
import { renderTerminal } from '../core/report/render/terminal';
import { compareReport } from '../core/report/runs';

/** The comparison as the terminal shows it: the report model (src/core/report/runs.ts). */
export function renderCompare(r: CompareResult, cwd: string, options: { diffHtmlPath?: string | null; limit: number }): string {
  return renderTerminal(compareReport(r, { cwd, flamegraphPath: options.diffHtmlPath, limit: options.limit }), { cwd });
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The JSON document of `hotpath compare --json` (schema in the README). */
export function compareJson(r: CompareResult, diffHtmlPath: string | null) {
  const metrics = Object.fromEntries(Object.entries(r.comparison.metrics).map(([name, m]) => [name, {
    ...m, ratio: round(m.ratio), ciLow: m.ciLow === null ? null : round(m.ciLow), ciHigh: m.ciHigh === null ? null : round(m.ciHigh),
    halfWidthPct: m.halfWidthPct === null ? null : round(m.halfWidthPct, 2),
  }]));
  return {
    version: 1, command: 'compare', warnings: r.warnings, mode: r.mode,
    sides: r.sides.map((s) => ({
      label: s.label, command: s.command, nodeVersion: s.nodeVersion, gitRev: s.gitRev, env: s.env, gitDirty: s.gitDirty, nodeArgs: s.nodeArgs, cwd: s.cwd,
      root: s.root, entry: s.entry, nodePath: s.nodePath, dependencies: s.dependencies,
    })),
    comparison: { ...r.comparison, metrics },
    runs: r.runs,
    diff: r.diff ? { functions: r.diff.functions, matched: r.diff.matched, compared: r.diff.compared, threads: r.diff.threads ?? null } : null,
    diffHtmlPath,
    profilePaths: r.profiles ? { a: r.profiles.a.path, b: r.profiles.b.path } : null,
    profilePath: r.profiles?.b.path ?? null,
    load: null,
    loadOptions: r.loadOptions ?? null,
    hotspots: [], lines: [],
  };
}
