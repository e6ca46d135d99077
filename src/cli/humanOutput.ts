import Table from 'cli-table3';
import type { Warning } from '../core/common/warnings';
import type { LoadResult } from '../core/load/result';
import type { ThreadHotLine, ThreadHotspot, ThreadPackage } from '../core/workflow/analyze';
import { nodeModuleLabel, ownMatters, partWhere } from '../core/attribution/rank';
import type { BaselineResult, VerifyResult } from '../core/workflow/baseline';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import type { ScriptResult } from '../core/workflow/profileScript';
import type { ReportResult } from '../core/workflow/report';
import { displayPath, int, location, ms, pct, text } from './format';
import { terminalText } from '../shared/text/safe';
import { comparisonTable, VERDICT_WORD } from './comparisonText';
import { interleavedHint } from './compareHint';
import { functionTable, v8Block as v8ChangesBlock } from './compareOutput';
import type { PreflightCheck } from '../core/workflow/preflight';
import type { V8Collection, V8FunctionSignals } from '../core/v8/types';
import { deoptCount, formatV8Summary } from '../core/v8/format';
import { perSecondSpread } from '../core/load/perSecondSpread';
import { describeRequests } from '../core/load/routes';
import { comparisonLine, crashBlock, eventLoopBlock, growthLine, memoryBlock, routesBlock } from './memoryOutput';

/** The tier column: the tier, plus what is wrong with it in a word. */
function tierCell(v8: V8FunctionSignals | undefined): string {
  if (!v8) return '';
  const n = deoptCount(v8.deopts);
  // "unknown" with its reason in the V8 section below, never a bare "?".
  const tier = v8.ranInlinedIn ? `${v8.tier} (inlined)` : v8.tier;
  return text(`${tier}${v8.notOptimized ? '!' : ''}${n ? ` ${n}×deopt` : ''}`);
}

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

/** `GET /api/stores · 2,323 req/s ±8.8% second to second · p50 …`: the spread is the stability check's. */
export function loadLine(load: LoadResult): string {
  const spread = perSecondSpread(load.requests.perSecond);
  const steadiness = spread ? ` ±${pct(spread.cvPct)} second to second` : '';
  const failures = load.errors + load.timeouts + load.non2xx;
  return `${text(describeRequests(load.method, load.url, load.routes))} · ${int(load.requests.mean)} req/s${steadiness} · p50 ${ms(load.latencyMs.p50)} · p99 ${ms(load.latencyMs.p99)} · ${load.connections} connections × ${Math.round(load.durationSeconds)} s · ${failures ? `${int(failures)} errors/non-2xx` : 'no errors'}`;
}

/** `pbkdf2Sync (native, node:crypto)`: a callee with where its time ran. */
function partText(p: ThreadHotspot['ownParts'][number]): string {
  const where = partWhere(p);
  return `${name(p.function)}${where ? ` (${text(where)})` : ''}`;
}

/** A function name for a table cell: a RegExp frame's name is its whole pattern, so long ones are cut. */
const NAME_MAX = 60;
const name = (s: string) => text(s.length > NAME_MAX ? `${s.slice(0, NAME_MAX - 1)}…` : s || '(anonymous)');

/** The hotspot's context line: who called it (the call site), or what started it. */
function contextLine(h: ThreadHotspot, cwd: string): string {
  if (h.userCaller) {
    const c = h.userCaller;
    const site = c.line !== null ? location(c.file, c.line, cwd) : `${location(c.file, c.functionLine, cwd)}${c.candidateLines?.length ? ` (one of lines ${c.candidateLines.join(', ')})` : ''}`;
    return `\n   ↳ called from ${name(c.function)} at ${site}`;
  }
  if (h.asyncContext) return `\n   ↳ ${text(h.asyncContext)} (no user code on the stack)`;
  if (h.category === 'user' && h.ownParts.length && ownMatters(h)) {
    const top = h.ownParts[0];
    return `\n   ↳ ${pct(top.pct)} in ${partText(top)}${top.callLine ? ` (line ${top.callLine})` : ''}`;
  }
  if (h.inlinedInto.length) return `\n   ↳ ran inlined into ${h.inlinedInto.slice(0, 2).map(name).join(', ')}`;
  return '';
}

export function hotspotTable(hotspots: ThreadHotspot[], cwd: string): string {
  const threads = new Set(hotspots.map((h) => h.thread)).size > 1;
  const tiers = hotspots.some((h) => h.v8);
  const table = new Table({ ...plain, head: ['#', 'Function', 'Location', 'Own', 'Self', 'Total', 'Own ms', 'Category', ...(tiers ? ['Tier'] : []), ...(threads ? ['Thread'] : [])] });
  // Minified files hold many functions on one line (marked's two `parse` methods on line 86): rows
  // that would read alike get the column so they can be told apart.
  const key = (h: ThreadHotspot) => `${h.thread}\n${h.function}\n${h.file}\n${h.line}`;
  const seen = new Map<string, number>();
  for (const h of hotspots) seen.set(key(h), (seen.get(key(h)) ?? 0) + 1);
  for (const h of hotspots) {
    const category = text(h.category === 'dependency' && h.package ? `dep: ${h.package}` : h.category);
    const where = location(h.file, h.line, cwd, (seen.get(key(h)) ?? 0) > 1 ? h.column : null);
    const original = h.sourceNotInstalled ? `\n   ↳ source map points at ${location(h.sourceNotInstalled.file, h.sourceNotInstalled.line, cwd)} (not installed)` : '';
    table.push([String(h.rank), name(h.function) + contextLine(h, cwd) + original, where, pct(h.ownPct), pct(h.selfPct), pct(h.totalPct), int(h.ownMs), category, ...(tiers ? [tierCell(h.v8)] : []), ...(threads ? [text(h.thread)] : [])]);
  }
  return table.toString();
}

function packagesTable(packages: ThreadPackage[]): string {
  if (!packages.length) return '';
  const table = new Table({ ...plain, head: ['Package', 'Total', 'Self', 'Total ms'] });
  for (const p of packages.slice(0, 10)) table.push([text(p.package), pct(p.totalPct), pct(p.selfPct), int(p.totalMs)]);
  return `\nDependencies (time with the package on the stack):\n${table.toString()}\n`;
}

const short = (s: string, cwd: string) => text(s.replace(/\((\/[^():]+)(:\d+)?\)/g, (_, file: string, line = '') => `(${displayPath(file, cwd)}${line})`));

/**
 * V8's view of the hotspots worth a word (user and dependency code with deopts, left unoptimized, or
 * with inlining to know about), and the run-wide findings.
 */
function v8Block(hotspots: ThreadHotspot[], v8: V8Collection | undefined, cwd: string): string {
  if (!v8) return '';
  const out: string[] = [];
  if (!v8.collected) return `\nV8 signals: not collected${v8.limitation ? ` — ${text(v8.limitation)}` : ''}\n`;
  for (const h of hotspots) {
    const s = h.v8;
    if (!s || (h.category !== 'user' && h.category !== 'dependency')) continue;
    const real = s.deopts.filter((d) => !d.osr);
    if (!real.length && !s.notOptimized && !s.inlined.length && !s.notInlined) continue;
    out.push(`  ${text(h.function || '(anonymous)')} ${location(h.file, h.line, cwd)}: ${text(formatV8Summary(s))}${s.optimizations ? `, optimized ${s.optimizations}×` : ''}`);
    for (const d of real.slice(0, 3)) {
      const where = d.file ? location(d.file, d.line, cwd) : 'position unknown';
      const context = d.inlinedFrom ? ` (in inlined ${short(d.inlinedFrom, cwd)})` : d.inlinedInto ? ` (while inlined into ${short(d.inlinedInto, cwd)})` : '';
      out.push(`    deopt ${d.count > 1 ? `${d.count}× ` : ''}"${text(d.reason)}" at ${where}${context}${d.explanation ? `\n      ${text(d.explanation.title)}: ${text(d.explanation.fix)}` : ''}`);
    }
    if (s.notOptimized) out.push(`    not optimized: ${text(s.notOptimized.reason)}${s.notOptimized.explanation ? `\n      ${text(s.notOptimized.explanation.fix)}` : ''}`);
    if (s.inlined.length) out.push(`    inlined here: ${s.inlined.slice(0, 4).map((x) => short(x, cwd)).join(', ')}${s.inlined.length > 4 ? ` +${s.inlined.length - 4}` : ''}`);
    if (s.notInlined) out.push(`    not inlined into its callers: ${text(s.notInlined.reason)}`);
  }
  // Why a tier is unknown, once per reason, naming the hotspots it applies to.
  const unknown = new Map<string, string[]>();
  for (const h of hotspots) if (h.v8?.tierUnknown) unknown.set(h.v8.tierUnknown.reason, [...(unknown.get(h.v8.tierUnknown.reason) ?? []), name(h.function)]);
  for (const [reason, names] of unknown) out.push(`  tier unknown for ${names.slice(0, 4).join(', ')}${names.length > 4 ? ` +${names.length - 4}` : ''}: ${text(reason)}`);
  for (const f of v8.findings ?? []) out.push(`  ⚠ ${short(f.title, cwd)}: ${short(f.text, cwd)}\n    ${text(f.fix)}`);
  const head = `\nV8 (tier at the end of the run; ${text(v8.nodeVersion)}, tiers ${(v8.tiers ?? []).join(' → ')}):\n`;
  const limitation = v8.limitation ? `  (${text(v8.limitation)})\n` : '';
  return out.length || limitation ? head + (out.length ? out.join('\n') + '\n' : '  nothing notable in the hot user code\n') + limitation : '';
}

const MARK: Record<PreflightCheck['status'], string> = { pass: '✓', warn: '⚠', info: 'ℹ' };

/** The production-parity checklist. */
export function renderChecks(title: string, checks: PreflightCheck[] | undefined): string {
  if (!checks?.length) return '';
  return `\n${title}:\n` + checks.map((c) => `  ${MARK[c.status]} ${text(c.title)}: ${text(c.observed)}${c.advice && c.status !== 'pass' ? `\n      ${text(c.advice)}` : ''}`).join('\n') + '\n';
}

function linesTable(lines: ThreadHotLine[], cwd: string): string {
  const table = new Table({ ...plain, head: ['Line', 'Own', 'Self', 'Total', 'What runs there'] });
  for (const l of lines) {
    const what = l.calls.length && l.ownMs > l.selfMs * 1.5
      ? `${name(l.function)} → ${l.calls.slice(0, 2).map((c) => `${name(c.function)}${c.category === 'dependency' && c.package ? ` (${text(c.package)})` : c.category === 'node' ? ` (${nodeModuleLabel(c.file)})` : c.category === 'native' ? ' (native)' : ''} ${pct(c.totalPct)}`).join(', ')}`
      : l.inlinedInto ? `${name(l.function)} (inlined into ${name(l.inlinedInto)}${l.placement === 'inferred' ? ', inferred' : ''})` : name(l.function);
    table.push([location(l.file, l.line, cwd), pct(l.ownPct), pct(l.selfPct), pct(l.totalPct), what]);
  }
  return table.toString();
}

export function warningsBlock(warnings: Warning[]): string {
  if (!warnings.length) return '';
  // Messages may quote the app's output over several lines: kept as lines, escape sequences made visible.
  return '\nWarnings:\n' + warnings.map((w) => `  ⚠ [${w.code}] ${terminalText(w.message, true).replace(/\n/g, '\n    ')}`).join('\n') + '\n';
}

export function analysisBlock(r: { hotspots: ThreadHotspot[]; lines: ThreadHotLine[]; packages: ThreadPackage[]; v8?: V8Collection }, cwd: string): string {
  const user = r.hotspots.find((h) => h.category === 'user');
  let headline: string;
  if (r.hotspots.length === 0) {
    headline = 'No function has sampled time in this profile: nothing to rank (see the warnings).\n';
  } else if (user) {
    const top = user.ownParts[0];
    const parts = top && ownMatters(user) ? ` (${pct(top.pct)} in ${partText(top)})` : '';
    headline = `Top user-code hotspot: ${name(user.function)} at ${location(user.file, user.line, cwd)} — ${pct(user.ownPct)} own${parts}, ${pct(user.selfPct)} self, ${pct(user.totalPct)} total.\n`;
  } else {
    headline = 'No user-code function among the hotspots: the time goes to dependencies or Node itself (see callers below).\n';
  }
  return `\n${headline}\nHotspots (by own cost: self time plus the dependency, Node and native code a function calls directly):\n${hotspotTable(r.hotspots, cwd)}\n\nHot lines:\n${linesTable(r.lines.slice(0, 10), cwd)}\n${packagesTable(r.packages)}${v8Block(r.hotspots, r.v8, cwd)}`;
}

export function renderProfile(r: ProfileResult | ScriptResult, cwd: string): string {
  const head = `Hotpath ${r.kind === 'script' ? 'script profile' : 'profile'}: ${text(r.target.command.join(' '))} (Node ${text(r.target.nodeVersion)}, PID ${r.target.pid}${'port' in r.target && r.target.port ? `, port ${r.target.port}` : ''})\n`;
  const load = r.kind === 'profile' ? `Load: ${loadLine(r.load)}\n${routesBlock(r.load)}` : `Ran ${(r.durationMs / 1000).toFixed(1)} s, ${r.target.signal ? `killed by ${r.target.signal}` : `exit code ${r.target.exitCode}`}\n`;
  const heap = r.kind === 'profile' && r.memory?.allocations?.heapProfilePath ? `Heap profile: ${displayPath(r.memory.allocations.heapProfilePath, cwd)}${r.memory.allocations.flamegraphPath ? ` (flamegraph: ${displayPath(r.memory.allocations.flamegraphPath, cwd)})` : ''}\n` : '';
  const files = `\nProfile: ${displayPath(r.profilePath, cwd)}${r.profiles.length > 1 ? ` (+${r.profiles.length - 1} more: ${r.profiles.slice(1).map((p) => text(p.thread)).join(', ')})` : ''}\n${heap}`;
  const runtime = r.kind === 'profile' ? memoryBlock(r.memory, cwd) + eventLoopBlock(r.eventLoop, cwd) : '';
  return head + load + analysisBlock(r, cwd) + runtime + renderChecks('Checks after the run', r.checks) + warningsBlock(r.warnings) + files;
}

export function renderReport(r: ReportResult, cwd: string): string {
  const diff = r.diff
    ? `\nChanges from ${displayPath(r.diff.beforePath, cwd)} (before) to this profile (after), self time by function, matched by name, file and line (${r.diff.matched} of ${r.diff.compared} on both sides):\n${functionTable(r.diff.functions, 15, ['before', 'after'])}${v8ChangesBlock(r.diff.functions, 15, ['before', 'after'])}`
    : '';
  return `Hotpath report: ${displayPath(r.profilePath, cwd)} (${(r.durationMs / 1000).toFixed(2)} s, ${int(r.sampleCount)} samples)\n` + analysisBlock(r, cwd) + diff + warningsBlock(r.warnings);
}

export function renderBaseline(r: BaselineResult, cwd: string): string {
  const runs = r.runs.map((x, i) => `  run ${i + 1}: ${int(x.requestsPerSecond)} req/s, p99 ${x.p99Ms} ms${x.cpuMsPerRequest !== undefined ? `, ${x.cpuMsPerRequest.toFixed(3)} ms CPU/request` : ''}`).join('\n');
  const leak = r.leak ? `Leak check: ${growthLine(r.leak)}\n${crashBlock(r.leak)}${r.leak.crash ? 'The baseline was saved without a leak check.\n' : ''}` : '';
  return `Hotpath baseline '${text(r.name)}': ${text(r.target.command.join(' '))} (Node ${text(r.target.nodeVersion)})\n${runs}\nMean: ${int(r.summary.requestsPerSecond)} req/s, p99 ${r.summary.p99Ms.toFixed(1)} ms over ${r.runs.length} runs\n${leak}` + warningsBlock(r.warnings) + `\nSaved: ${displayPath(r.path, cwd)}\n`;
}

/** `compareCommand`: the `hotpath compare` line to suggest when the baseline ran on another commit. */
export function renderVerify(r: VerifyResult, compareCommand?: string): string {
  const c = r.comparison;
  return `Hotpath verify against '${text(r.name)}' (baseline of ${text(String(r.baseline.createdAt))}): ${text(r.target.command.join(' '))}\n` +
    comparisonTable(c, ['baseline', 'now']) +
    `\nVerdict: ${VERDICT_WORD[c.verdict]} — ${text(c.summary)}\n` +
    (r.leak ? `Leak check: ${growthLine(r.leak)}\n${crashBlock(r.leak)}${comparisonLine(r.leakComparison, `the baseline (${String(r.baseline.createdAt)})`)}` : '') + warningsBlock(r.warnings) +
    (r.interleavedCompare && compareCommand ? `\n${interleavedHint(r.interleavedCompare)}\n  ${text(compareCommand)}\n` : '');
}
