import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Warning } from '../../core/common/warnings';
import type { FlamePanel } from '../flame/flamePanel';
import type { HotpathSession, LoadedProfile } from '../session';
import { rps } from '../status/render';
import { ownDetail } from '../../core/attribution/rank';
import { formatPct } from '../../shared/text';
import { loadedFromAnalysis, loadedFromFile, loadedFromRun } from './loadedProfile';
import { threadNote } from '../../core/profile/threads';
import type { CompareResult, CompareSide } from '../../core/workflow/compare';
import { checksOf, type RunResult } from './runs';
import { describeRequests } from '../../core/load/routes';
import { showInfo, showWarning } from '../notify';
import { moduleLineLabels, moduleLabelText } from '../../core/startup/lineLabels';
import { formatMs, formatRate } from '../../shared/text/numbers';
import { attachRuntime } from '../runtime/loaded';
import { growthRate } from '../../core/memory/growthComparison';
import type { LeakSummary } from '../../core/workflow/leakCheck';
import { leakCrashView } from './leakCrashStatus';
import { inlineSourceOf } from '../../core/flame/inlined';

/** The event loop's p99 delay and the line that held it most, for the status bar. */
function loopStatus(loaded: LoadedProfile): { loopP99Ms?: number; blockedBy?: string } {
  const loop = loaded.eventLoop;
  if (!loop?.delayMs) return {};
  const top = loop.blockingLines[0];
  return { loopP99Ms: loop.delayMs.p99, ...(top ? { blockedBy: `${top.function} (${path.basename(top.file)}:${top.line})` } : {}) };
}

export interface ApplyContext {
  session: HotpathSession;
  flame: FlamePanel;
  log: vscode.LogOutputChannel;
  /** Adds V8 extras to flamegraph payloads, when signals were collected. */
  decorate?: (loaded: LoadedProfile) => ((payload: import('../../shared/flame/payload').FlamePayload) => void) | undefined;
  /** Other views of the run for the flamegraph panel (allocations). */
  flameChoices?: (loaded: LoadedProfile) => import('../flame/flameWebview').FlameChoice[] | undefined;
  /** Retained lines of a leak check into the editor. */
  showRetained?: (result: import('../../core/workflow/leakCheck').LeakResult) => void;
}

/**
 * The user function with the most own cost, else the hottest function: what the status bar and summary
 * name. Of every thread the profile covers (a worker pool's function, not the idle main thread's).
 */
export function topHotspot(loaded: LoadedProfile) {
  return loaded.hotspots.find((h) => h.category === 'user') ?? loaded.hotspots[0];
}

/** `worker 1 (pool.js)`, `2 worker threads`: where the top hotspot ran, when not the main thread alone. */
function threadOf(loaded: LoadedProfile, top: ReturnType<typeof topHotspot>): string | undefined {
  if (!top || !loaded.annotations.threads) return undefined;
  return threadNote(top.thread.split(', '));
}

function logWarnings(log: vscode.LogOutputChannel, warnings: readonly Warning[]): void {
  for (const w of warnings) log.warn(`${w.code}: ${w.message}`);
}

export function showProfile(ctx: ApplyContext, loaded: LoadedProfile, options: { preserveFocus?: boolean } = {}): void {
  ctx.session.setProfile(loaded);
  const top = topHotspot(loaded);
  const thread = threadOf(loaded, top);
  if (top) ctx.session.setStatus({ kind: 'profiled', function: top.function, selfPct: top.selfPct, ownPct: top.ownPct, ownDetail: ownDetail(top, formatPct), file: top.file, line: top.line, profilePath: loaded.profilePath, ...(thread ? { thread, threads: loaded.annotations.threads!.length } : {}), ...loopStatus(loaded) });
  ctx.flame.show({ model: loaded.model, title: loaded.title, before: loaded.before, payload: loaded.payload, attribution: loaded.attribution, decorate: ctx.decorate?.(loaded), choices: ctx.flameChoices?.(loaded) }, options);
}

/**
 * After a run: the editor shows its result (annotations, status bar, flamegraph) and a one-line summary
 * with the next useful actions. `notify` is false for the debug adapter, which prints to its console.
 */
export async function applyResult(ctx: ApplyContext, result: RunResult, options: { notify: boolean; note?: string }): Promise<string> {
  logWarnings(ctx.log, result.warnings);
  const toFix = checksOf(result).filter((c) => c.status === 'warn').length;
  const checkNote = toFix ? ` ${toFix} production-parity check${toFix > 1 ? 's' : ''} to look at (Hotpath view).` : '';
  const warningNote = checkNote + (result.warnings.length ? ` ${result.warnings.length} warning${result.warnings.length > 1 ? 's' : ''}: ${result.warnings.map((w) => w.message.split('. ')[0].replace(/\.$/, '')).join('; ')}.` : '') + (options.note ? ` ${options.note}` : '');
  ctx.session.historyDidChange();
  switch (result.kind) {
    case 'profile':
    case 'script': {
      const analysed = await loadedFromRun(result);
      const loaded = result.kind === 'profile' ? attachRuntime(analysed, result) : analysed;
      showProfile(ctx, loaded);
      const top = topHotspot(loaded);
      const detail = top ? ownDetail(top, formatPct) : undefined;
      const of = loaded.annotations.threads ? ` of all ${loaded.annotations.threads.length} threads' time` : '';
      const where = top
        ? `${top.function} takes ${detail ? `${top.ownPct.toFixed(1)}% own${of} (${detail})` : `${top.selfPct.toFixed(1)}% self time${of}`} (${path.basename(top.file)}${top.line ? `:${top.line}` : ''}${threadOf(loaded, top) ? ` in ${threadOf(loaded, top)}` : ''})`
        : 'no samples in JavaScript';
      const load = result.kind === 'profile' ? ` under ${rps(result.load.requests.mean)} req/s of ${describeRequests(result.loadOptions.method, result.loadOptions.url ?? result.loadOptions.path, result.loadOptions.routes)}` : '';
      const summary = `Profile saved: ${where}${load}.${warningNote}`;
      if (options.notify) void offerProfileActions(summary, top);
      return summary;
    }
    case 'baseline': {
      ctx.session.lastBaselineFile = result.path;
      ctx.session.setStatus({ kind: 'baseline', name: result.name, requestsPerSecond: result.summary.requestsPerSecond, p99Ms: result.summary.p99Ms, runs: result.runs.length, file: result.path });
      const summary = `Baseline "${result.name}" saved: ${rps(result.summary.requestsPerSecond)} req/s, p99 ${result.summary.p99Ms.toFixed(2)} ms (mean of ${result.runs.length} runs).${warningNote}`;
      if (options.notify) void showInfo(`Hotpath: ${summary}`);
      return summary;
    }
    case 'compare':
      return applyCompare(ctx, result, warningNote, options.notify);
    case 'startup': {
      const s = result.startup;
      ctx.session.setStartupLines(moduleLineLabels(s.modules));
      if (result.profilePath && result.model && result.attribution) {
        showProfile(ctx, loadedFromAnalysis(result.profilePath, { model: result.model, attribution: result.attribution, hotspots: result.hotspots, packages: result.packages, v8Functions: result.v8Functions }));
      }
      const costly = s.modules.find((m) => m.requiredFrom && m.requiredFrom.line !== null);
      const where = costly ? ` Costliest module: ${costly.module} (${moduleLabelText({ ...costly, line: 0, requests: [], sampled: false })}) at ${path.basename(costly.requiredFrom!.file)}:${costly.requiredFrom!.line}.` : '';
      const advice = result.advice.length ? ` Advice: ${result.advice.map((a) => a.title).join('; ')}.` : '';
      const summary = `Startup: ${formatMs(s.meanMs)} ± ${formatMs(s.stddevMs)} (median ${formatMs(s.medianMs)}, ${s.runs} cold starts${s.outliers.length ? `, ${s.outliers.length} outlier${s.outliers.length > 1 ? 's' : ''}` : ''}).${where}${advice}${warningNote}`;
      if (options.notify) void offerStartupActions(summary, costly?.requiredFrom ?? undefined);
      return summary;
    }
    case 'bench': {
      ctx.session.setBenchResults(result.file, result.tasks);
      const flagged = result.tasks.filter((t) => t.warnings.length).length;
      const best = [...result.tasks].sort((a, b) => b.opsPerSec - a.opsPerSec)[0];
      const compared = result.comparison ? ` ${result.comparison.summary}` : '';
      const summary = `Benchmark ${path.basename(result.file)}: ${result.tasks.length} task${result.tasks.length === 1 ? '' : 's'} over ${result.runs} processes${best ? `; fastest ${best.name} at ${formatRate(best.opsPerSec, 'ops/s')}` : ''}${flagged ? `; ${flagged} with warnings (see the lines)` : ''}.${compared}${warningNote}`;
      if (options.notify) void (flagged ? showWarning : showInfo)(`Hotpath: ${summary}`);
      return summary;
    }
    case 'leak': {
      const l = result.leak;
      if (l.crash) return leakCrashed(ctx, result.name, l, warningNote, options.notify);
      ctx.showRetained?.(result);
      const site = l.verdict === 'growing' ? l.sites.find((s) => s.category === 'user') : undefined;
      ctx.session.setStatus({ kind: 'leak', name: result.name, verdict: l.verdict, bytesPerRequest: l.bytesPerRequest, ciLow: l.ciLow, ciHigh: l.ciHigh, requests: l.requests, comparison: result.previous?.comparison.summary, ...(site ? { site: { function: site.function, file: site.file, line: site.line } } : {}) });
      const change = result.previous ? ` (${result.previous.comparison.summary})` : '';
      const summary = `Leak check "${result.name}": heap ${l.verdict === 'growing' ? `growing ${growthRate(l.bytesPerRequest)}` : 'stable'}${change}${site ? `; objects that stay are allocated in ${site.function} (${path.basename(site.file)}:${site.line})` : ''}.${warningNote}`;
      if (options.notify) {
        const show = l.verdict === 'growing' ? showWarning : showInfo;
        const open = site?.line ? 'Open Retaining Line' : undefined;
        void show(`Hotpath: ${summary}`, ...(open ? [open] : [])).then(async (choice) => {
          if (choice && site?.line) await vscode.window.showTextDocument(vscode.Uri.file(site.file), { selection: new vscode.Range(site.line - 1, 0, site.line - 1, 0) });
        });
      }
      return summary;
    }
    case 'startup-compare': {
      // The verdict in the status bar, as a comparison's; nothing to paint on lines (timed starts only).
      const c = result.comparison;
      const side = (x: { label: string; nodeVersion: string | null; gitRev: string | null }) => ({ label: x.label, nodeVersion: x.nodeVersion, gitRev: x.gitRev });
      ctx.session.setStatus({
        kind: 'compared', subject: 'startup', sides: [side(result.sides[0]), side(result.sides[1])],
        comparison: { ...c, warnings: [], primary: 'startupMs' }, warnings: [], hasFlamegraph: false,
      });
      const summary = `Startup: ${c.summary} (${c.pairs} interleaved pairs).${warningNote}`;
      if (options.notify) void (c.verdict === 'slower' ? showWarning : showInfo)(`Hotpath: ${summary}`);
      return summary;
    }
    case 'startup-bisect': {
      const summary = `Startup bisect: ${result.summary}${warningNote}`;
      if (options.notify) void showInfo(`Hotpath: ${summary}`);
      return summary;
    }
    case 'verify': {
      ctx.session.setStatus({ kind: 'verified', name: result.name, comparison: result.comparison, warnings: result.warnings.map((w) => w.message) });
      const leak = result.leak?.crash ? ` Leak check incomplete: ${result.leak.crash.message}` : result.leakComparison ? ` Heap: ${result.leakComparison.summary}.` : '';
      const summary = `Verify vs baseline "${result.name}": ${result.comparison.summary}.${leak}${warningNote}`;
      if (options.notify) {
        const show = result.comparison.verdict === 'slower' || result.leak?.crash ? showWarning : showInfo;
        // The baseline ran on another commit: measuring both interleaved, now, is the sounder test.
        const base = result.interleavedCompare?.base;
        const offer = base ? `Compare Interleaved with ${base.slice(0, 7)}` : undefined;
        void show(`Hotpath: ${summary}${base ? ` The baseline was recorded at ${base.slice(0, 7)}, not what the working tree holds now.` : ''}`, ...(offer ? [offer] : [])).then((choice) => {
          if (choice && base) void vscode.commands.executeCommand('hotpath.compareWithGitRevision', { base });
        });
      }
      return summary;
    }
  }
}

/**
 * A leak check the app did not survive: the status bar says how it ended (the rungs measured before are
 * in its tooltip), a warning says what to do, the app's last output goes to the log; no retained lines
 * (the app's survivors went with it).
 */
function leakCrashed(ctx: ApplyContext, name: string, l: LeakSummary, warningNote: string, notify: boolean): string {
  const view = leakCrashView(name, l)!;
  ctx.session.setStatus(view.status);
  for (const line of l.crash?.output ?? []) ctx.log.warn(`app: ${line}`);
  const summary = `${view.summary}${warningNote}`;
  if (notify) void showWarning(`Hotpath: ${summary}`);
  return summary;
}

/**
 * A comparison: status bar verdict, B's profile in the editor and the differential flamegraph of the two
 * sides — B's profile read and laid out in the worker thread, like any profile the editor opens.
 */
async function applyCompare(ctx: ApplyContext, result: CompareResult, warningNote: string, notify: boolean): Promise<string> {
  const [a, b] = result.sides;
  const c = result.comparison;
  const summaryOf = (s: CompareSide) => ({ label: s.label, nodeVersion: s.nodeVersion, gitRev: s.gitRev, cwd: s.cwd, entry: s.entry, nodePath: s.nodePath, dependencies: s.dependencies });
  ctx.session.setStatus({
    kind: 'compared', sides: [summaryOf(a), summaryOf(b)],
    comparison: c, warnings: result.warnings.map((w) => w.message), hasFlamegraph: result.profiles !== undefined,
  });
  if (result.profiles) {
    const pa = result.profiles.a;
    const pb = result.profiles.b;
    const side = (s: CompareSide) => ({ label: s.label, nodeVersion: s.nodeVersion, gitRev: s.gitRev, env: s.env, nodeArgs: s.nodeArgs });
    const diff = { beforeTitle: `A: ${a.label}`, beforeRoot: pa.projectRoot, afterRoot: pb.projectRoot, sides: { before: side(a), after: side(b) } };
    // A's inlined code as it was placed during the run: a revision's worktree (its sources) is gone by now.
    // When a side ran worker threads, the diff covers every thread (A's placement of all its threads).
    const placedA = pa.threads?.attribution ?? pa.attribution;
    const loaded: LoadedProfile = await loadedFromFile(pb.path, { before: pa.path, diff, title: `B: ${b.label}`, ...(placedA ? { beforeInline: inlineSourceOf(placedA) } : {}) });
    ctx.session.setProfile(loaded);
    ctx.flame.show({ title: loaded.title, payload: loaded.payload, decorate: ctx.decorate?.(loaded) }, { preserveFocus: true });
  }
  const summary = `Compare B (${b.label}) with A (${a.label}), ${c.pairs} interleaved pairs: ${c.summary}.${warningNote}`;
  if (notify) {
    const show = c.verdict === 'slower' ? showWarning : showInfo;
    void show(`Hotpath: ${summary}`, ...(result.profiles ? ['Open Differential Flamegraph'] : [])).then((choice) => {
      if (choice) void vscode.commands.executeCommand('hotpath.showFlamegraph');
    });
  }
  return summary;
}

async function offerStartupActions(summary: string, at: { file: string; line: number | null } | undefined): Promise<void> {
  const choice = await showInfo(`Hotpath: ${summary}`, ...(at?.line ? ['Open the Require'] : []));
  if (choice && at?.line) {
    const pos = new vscode.Position(at.line - 1, 0);
    await vscode.window.showTextDocument(vscode.Uri.file(at.file), { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }
}

async function offerProfileActions(summary: string, top: ReturnType<typeof topHotspot>): Promise<void> {
  const actions = top && top.line && path.isAbsolute(top.file) ? ['Open Hot Function'] : [];
  const choice = await showInfo(`Hotpath: ${summary}`, ...actions);
  if (choice === 'Open Hot Function' && top?.line) {
    const pos = new vscode.Position(top.line - 1, Math.max(0, (top.column ?? 1) - 1));
    await vscode.window.showTextDocument(vscode.Uri.file(top.file), { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }
}
