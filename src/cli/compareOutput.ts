/** `hotpath compare` for people (text) and programs (JSON). */
import Table from 'cli-table3';
import type { FunctionDiff, V8Brief } from '../core/profileDiff/functions';
import type { CompareResult, CompareSide } from '../core/workflow/compare';
import { formatMs, formatPct, formatSignedPoints } from '../shared/text/numbers';
import { terminalText } from '../shared/text/safe';
import { comparisonTable, VERDICT_WORD } from './comparisonText';
import { displayPath } from './format';
import { warningsBlock } from './humanOutput';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

const STOP: Record<CompareResult['comparison']['stopReason'], string> = {
  target: 'the interval reached the target',
  budget: 'the time budget ran out',
  'max-pairs': 'the pair limit was reached',
  fixed: 'as asked (--pairs)',
};

/**
 * One side and the facts that prove what it ran: its folder (a revision's temporary worktree), the file
 * the command starts, the node binary and where its dependencies came from.
 */
function sideLine(name: string, s: CompareSide): string {
  const facts = [
    s.nodeVersion ? `Node ${s.nodeVersion.replace(/^v/, '')}` : '',
    s.gitRev ? `${s.gitRev.slice(0, 10)}${s.gitDirty ? ' + uncommitted changes' : ''}` : '',
    ...Object.entries(s.env).map(([k, v]) => `${k}=${v}`),
    ...s.nodeArgs,
  ].filter((f) => f && !s.label.includes(f));
  const entry = s.entry ? displayPath(s.entry, s.root ?? s.cwd) : '(the command names no file)';
  const ran = `in ${terminalText(s.cwd)} · runs ${entry}${s.nodePath ? ` · node ${terminalText(s.nodePath)}` : ''}`;
  return `  ${name}: ${terminalText(s.label)}${facts.length ? ` — ${terminalText(facts.join(' · '))}` : ''}\n     ${ran}\n     dependencies: ${terminalText(s.dependencies)}\n`;
}

const fnName = (f: Pick<FunctionDiff, 'function'>) => terminalText(f.function || '(anonymous)');
const where = (f: Pick<FunctionDiff, 'file' | 'line'>) => terminalText(f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '(native)');
const tierOf = (v: V8Brief | null) => (v ? `${v.tier}${v.deopts ? ` ${v.deopts}×deopt` : ''}` : '');

/** The functions whose share moved most, both ways. */
export function functionTable(functions: FunctionDiff[], limit: number, names: [string, string] = ['A', 'B']): string {
  const shown = functions.filter((f) => f.change !== 'same').slice(0, limit);
  if (!shown.length) return '  (no function\'s share of the time changed by 0.1 points or more)\n';
  const table = new Table({ ...plain, head: ['  Function', 'Location', `${names[0]} self`, `${names[1]} self`, 'Δ share', 'Δ ms', `V8 ${names[0]} → ${names[1]}`] });
  for (const f of shown) {
    const same = tierOf(f.v8Before) === tierOf(f.v8After);
    const v8 = f.v8Changes ? terminalText(f.v8Changes) : same ? tierOf(f.v8After) : `${tierOf(f.v8Before) || '—'} → ${tierOf(f.v8After) || '—'}`;
    table.push([`  ${fnName(f)}${f.change === 'new' ? ' (new)' : f.change === 'gone' ? ' (gone)' : ''}`, where(f), formatPct(f.selfPctBefore), formatPct(f.selfPctAfter), formatSignedPoints(f.deltaPct), `${f.deltaMs >= 0 ? '+' : '−'}${formatMs(Math.abs(f.deltaMs))}`, v8]);
  }
  return `${table.toString()}\n`;
}

/**
 * "sumX (lib/sum.js:3): TurboFan → Maglev, +1 deopt (wrong map)" for the app's and its dependencies'
 * functions V8 treated differently (Node's own code flips tiers from run to run; the JSON has it all).
 */
export function v8Block(functions: FunctionDiff[], limit: number, names: [string, string] = ['A', 'B']): string {
  const changed = functions.filter((f) => f.v8Changes && (f.category === 'user' || f.category === 'dependency')).slice(0, limit);
  if (!changed.length) return '';
  return `\nV8 changes per function (${names[0]} → ${names[1]}):\n${changed.map((f) => `  ${fnName(f)} (${where(f)}): ${terminalText(f.v8Changes!)}`).join('\n')}\n`;
}

export function renderCompare(r: CompareResult, cwd: string, options: { diffHtmlPath?: string | null; limit: number }): string {
  const c = r.comparison;
  const secs = (c.elapsedMs / 1000).toFixed(0);
  let out = `Hotpath compare (${r.mode === 'http' ? 'HTTP load' : 'script'}): ${terminalText(r.command.join(' '))}\n`;
  out += sideLine('A', r.sides[0]) + sideLine('B', r.sides[1]);
  out += `  ${c.pairs} pairs in ${secs} s, interleaved A B B A …; stopped because ${STOP[c.stopReason]}${c.targetHalfWidthPct !== null ? ` (target ±${c.targetHalfWidthPct}%)` : ''}\n\n`;
  out += comparisonTable(c, ['A', 'B']);
  out += `\nVerdict: B is ${VERDICT_WORD[c.verdict]} than A — ${c.summary}\n`.replace('B is NO SIGNIFICANT CHANGE than A', 'NO SIGNIFICANT CHANGE between A and B');
  if (r.diff) {
    out += `\nFunctions whose share of the time changed (self time; A ${formatMs(r.profiles!.a.model.durationUs / 1000)} profiled, B ${formatMs(r.profiles!.b.model.durationUs / 1000)}; matched by name, file and line on both sides: ${r.diff.matched} of ${r.diff.compared}):\n`;
    out += functionTable(r.diff.functions, options.limit);
    out += v8Block(r.diff.functions, options.limit);
  }
  out += warningsBlock(r.warnings);
  if (r.profiles) out += `\nProfiles: A ${displayPath(r.profiles.a.path, cwd)}, B ${displayPath(r.profiles.b.path, cwd)}\n`;
  if (options.diffHtmlPath) out += `Differential flamegraph: ${displayPath(options.diffHtmlPath, cwd)} (open it in a browser)\n`;
  return out;
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
    diff: r.diff ? { functions: r.diff.functions, matched: r.diff.matched, compared: r.diff.compared } : null,
    diffHtmlPath,
    profilePaths: r.profiles ? { a: r.profiles.a.path, b: r.profiles.b.path } : null,
    profilePath: r.profiles?.b.path ?? null,
    load: null,
    loadOptions: r.loadOptions ?? null,
    hotspots: [], lines: [],
  };
}
