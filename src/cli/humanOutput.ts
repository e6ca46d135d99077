import Table from 'cli-table3';
import type { Warning } from '../core/common/warnings';
import type { LoadResult } from '../core/load/result';
import type { ThreadHotLine, ThreadHotspot, ThreadPackage } from '../core/workflow/analyze';
import { nodeModuleLabel, ownMatters, partWhere } from '../core/attribution/rank';
import type { BaselineResult, VerifyResult } from '../core/workflow/baseline';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import type { ScriptResult } from '../core/workflow/profileScript';
import type { ReportResult } from '../core/workflow/report';
import type { MetricComparison } from '../core/stats/compare';
import { displayPath, int, location, ms, pct, signedPct, text } from './format';
import { terminalText } from '../shared/text/safe';
import type { PreflightCheck } from '../core/workflow/preflight';
import type { V8Collection, V8FunctionSignals } from '../core/v8/types';
import { deoptCount, formatV8Summary } from '../core/v8/format';
import { comparisonLine, eventLoopBlock, growthLine, memoryBlock, routesBlock } from './memoryOutput';

/** The tier column: the tier, plus what is wrong with it in a word. */
function tierCell(v8: V8FunctionSignals | undefined): string {
  if (!v8) return '';
  const n = deoptCount(v8.deopts);
  const tier = v8.tier === 'unknown' ? '?' : v8.tier;
  return text(`${tier}${v8.notOptimized ? '!' : ''}${n ? ` ${n}×deopt` : ''}`);
}

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

export function loadLine(load: LoadResult): string {
  const spread = load.requests.mean > 0 ? ` ±${((load.requests.stddev / load.requests.mean) * 100).toFixed(0)}%` : '';
  const failures = load.errors + load.timeouts + load.non2xx;
  return `${int(load.requests.mean)} req/s${spread} · p50 ${load.latencyMs.p50} ms · p99 ${load.latencyMs.p99} ms · ${load.connections} connections × ${Math.round(load.durationSeconds)} s · ${failures ? `${int(failures)} errors/non-2xx` : 'no errors'}`;
}

/** `pbkdf2Sync (native, node:crypto)`: a callee with where its time ran. */
function partText(p: ThreadHotspot['ownParts'][number]): string {
  const where = partWhere(p);
  return `${name(p.function)}${where ? ` (${text(where)})` : ''}`;
}

const name = (s: string) => text(s || '(anonymous)');

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

function hotspotTable(hotspots: ThreadHotspot[], cwd: string): string {
  const threads = new Set(hotspots.map((h) => h.thread)).size > 1;
  const tiers = hotspots.some((h) => h.v8);
  const table = new Table({ ...plain, head: ['#', 'Function', 'Location', 'Own', 'Self', 'Total', 'Own ms', 'Category', ...(tiers ? ['Tier'] : []), ...(threads ? ['Thread'] : [])] });
  for (const h of hotspots) {
    const category = text(h.category === 'dependency' && h.package ? `dep: ${h.package}` : h.category);
    const original = h.sourceNotInstalled ? `\n   ↳ source map points at ${location(h.sourceNotInstalled.file, h.sourceNotInstalled.line, cwd)} (not installed)` : '';
    table.push([String(h.rank), name(h.function) + contextLine(h, cwd) + original, location(h.file, h.line, cwd), pct(h.ownPct), pct(h.selfPct), pct(h.totalPct), int(h.ownMs), category, ...(tiers ? [tierCell(h.v8)] : []), ...(threads ? [text(h.thread)] : [])]);
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

function analysisBlock(r: { hotspots: ThreadHotspot[]; lines: ThreadHotLine[]; packages: ThreadPackage[]; v8?: V8Collection }, cwd: string): string {
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
  return `Hotpath report: ${displayPath(r.profilePath, cwd)} (${(r.durationMs / 1000).toFixed(2)} s, ${int(r.sampleCount)} samples)\n` + analysisBlock(r, cwd) + warningsBlock(r.warnings);
}

export function renderBaseline(r: BaselineResult, cwd: string): string {
  const runs = r.runs.map((x, i) => `  run ${i + 1}: ${int(x.requestsPerSecond)} req/s, p99 ${x.p99Ms} ms`).join('\n');
  const leak = r.leak ? `Leak check: ${growthLine(r.leak)}\n` : '';
  return `Hotpath baseline '${text(r.name)}': ${text(r.target.command.join(' '))} (Node ${text(r.target.nodeVersion)})\n${runs}\nMean: ${int(r.summary.requestsPerSecond)} req/s, p99 ${r.summary.p99Ms.toFixed(1)} ms over ${r.runs.length} runs\n${leak}` + warningsBlock(r.warnings) + `\nSaved: ${displayPath(r.path, cwd)}\n`;
}

function metricLine(label: string, m: MetricComparison, fmt: (n: number) => string): string {
  const change = m.diffPct === null ? '' : `  ${signedPct(m.diffPct)}`;
  const ci = m.ciLowPct !== null && m.ciHighPct !== null ? ` (95% CI ${signedPct(m.ciLowPct)} … ${signedPct(m.ciHighPct)}` : ' (untested';
  const p = m.pValue !== null ? `, p=${m.pValue < 0.001 ? '<0.001' : m.pValue.toFixed(3)})` : ')';
  return `  ${label} ${fmt(m.baselineMean)} → ${fmt(m.currentMean)}${change}${ci}${p}${m.significant ? '' : ' — not significant'}\n`;
}

export function renderVerify(r: VerifyResult): string {
  const c = r.comparison;
  const verdict = { faster: 'FASTER', slower: 'SLOWER', 'no-significant-change': 'NO SIGNIFICANT CHANGE' }[c.verdict];
  return `Hotpath verify against '${text(r.name)}' (baseline of ${text(String(r.baseline.createdAt))}): ${text(r.target.command.join(' '))}\n` +
    metricLine('req/s:', c.requestsPerSecond, int) + metricLine('p99:  ', c.p99Ms, ms) +
    `  ${text(c.method)}\n\nVerdict: ${verdict} — ${text(c.summary)}\n` +
    (r.leak ? `Leak check: ${growthLine(r.leak)}\n${comparisonLine(r.leakComparison, `the baseline (${String(r.baseline.createdAt)})`)}` : '') + warningsBlock(r.warnings);
}
