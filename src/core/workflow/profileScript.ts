import * as path from 'node:path';
import { neverCancelled } from '../common/cancellation';
import { DisposableStore } from '../common/disposable';
import { cancelledError, errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { CdpClient } from '../inspector/cdpClient';
import { type CapturedProfile, ProfilingRun, type RawCpuProfile } from '../inspector/profilingRun';
import { launchTarget } from '../target/launcher';
import { runPastWait } from '../target/resume';
import { readBoundedFileSync } from '../common/boundedRead';
import { busyMicros } from '../profile/selfFrames';
import type { ProcessReport, TargetReport } from '../target/reports';
import { analyzeProfiles, type Analysis } from './analyze';
import { checksAfterRun } from './preflight';
import { saveProfiles, type SavedProfile } from './profileStore';
import { type ProfilingOptions, saveV8Signals, targetFacts, type TargetInfo, type WorkflowDeps } from './profileWithLoad';
import { V8Collector } from '../v8/collector';
import { installExitHook } from '../v8/exitHook';
import { removeTraceFile } from '../v8/flags';
import { MIN_AUTO_INTERVAL_MICROS } from '../profile/samplingInterval';
import type { V8RawSignals } from '../v8/types';

export interface ScriptRequest extends ProfilingOptions {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Stop the script after this long (its profile so far is kept); default: no limit. */
  timeoutMs?: number;
}

export interface ScriptResult extends Analysis {
  kind: 'script';
  target: TargetInfo & { exitCode: number | null; signal: string | null };
  profilePath: string;
  profiles: SavedProfile[];
  samplingIntervalMicros: number;
  durationMs: number;
}

/**
 * Script mode: profile a command that runs to completion, startup included. The command's first node
 * process that is not a wrapper (npm, npx, pnpm, yarn, corepack, tsx's launcher) pauses in the preload
 * until we have started its profiler and V8's signals; at exit Node waits for us to collect the
 * profile. Every other node process profiles itself without pausing (see the preload). The profile is
 * the process that did the most work; others that did real work are kept beside it, labelled
 * `process PID (command)`.
 */
export async function profileScript(request: ScriptRequest, deps: WorkflowDeps = {}): Promise<ScriptResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const started = Date.now();
  // How long a script runs is not known before it ends: V8's default interval, as always.
  const samplingIntervalMicros = request.samplingIntervalMicros ?? MIN_AUTO_INTERVAL_MICROS;
  progress({ stage: 'starting', message: `Running ${request.command.join(' ')}` });
  const target = await launchTarget({ command: request.command, cwd: request.cwd, env: request.env, mode: 'script', logger, samplingIntervalMicros }, token);
  const subs = new DisposableStore();
  const runs: Array<{ process: ProcessReport; run?: ProfilingRun; client?: CdpClient; error?: string; v8?: V8Collector; signals?: V8RawSignals }> = [];

  const attach = async (proc: ProcessReport) => {
    if (proc.inProcess) return; // profiles itself; its profile is reported at its exit
    const entry: (typeof runs)[number] = { process: proc };
    runs.push(entry);
    if (!proc.inspectorUrl) { entry.error = proc.inspectorError ?? 'no inspector'; return; }
    try {
      entry.client = await CdpClient.connect(proc.inspectorUrl, { token, logger });
      const client = entry.client;
      // V8's signals first (their probe and exit hook must not be in the profile), then the profiler
      // right before the process runs: the paused time in the profile is one round trip.
      if (request.v8 !== false) await startV8(entry, client);
      entry.run = await ProfilingRun.start(client, proc.pid, { samplingIntervalMicros, workers: false, logger });
      // The process waits at exit while we are attached: once its profile is collected, let it go.
      entry.run.onEnded(() => void client.close());
      progress({ stage: 'profiling', message: `Profiling PID ${proc.pid} (${path.basename(proc.argv[1] ?? 'node')})` });
    } catch (err) {
      entry.error = errorMessage(err);
      logger.warn(`Could not profile PID ${proc.pid}: ${entry.error}`);
      // Not connected: nothing can let it out of its wait; stop it rather than hang until the timeout.
      if (!entry.client && proc.waiting) void target.stop();
    } finally {
      // Always let it run: a process left paused would hang the command.
      if (entry.client) await runPastWait(entry.client, target, proc.pid);
    }
  };
  // V8 signals: switched on before the script runs; read in an exit hook while the process still
  // exists (after its profile is stopped), or from the trace alone if it never exits normally.
  const startV8 = async (entry: (typeof runs)[number], client: CdpClient) => {
    const v8 = await V8Collector.start(client, entry.process.pid, { mode: 'script', logger, output: target.onOutput });
    entry.v8 = v8;
    if (!v8.isActive) return;
    try {
      await installExitHook(client, async () => {
        await v8.stopTracing();
        const [main] = await entry.run!.stop();
        entry.signals = await v8.finish(main?.profile);
      });
    } catch (err) {
      logger.warn(`No exit hook in PID ${entry.process.pid}: ${errorMessage(err)}; tiers will come from the trace only`);
    }
  };
  const attaching: Promise<void>[] = [];
  subs.add(target.onProcess((proc) => attaching.push(attach(proc))));
  for (const proc of target.processes.values()) attaching.push(attach(proc));

  let timedOut = false;
  const timer = request.timeoutMs ? setTimeout(() => { timedOut = true; void stopAll(); }, request.timeoutMs) : undefined;
  const stopAll = async () => { await Promise.all(runs.map((r) => r.run?.stop())); await target.stop(); };
  subs.add(token.onCancellationRequested(() => { void target.stop(); }));

  let captured: CapturedProfile[] = [];
  try {
    const exit = await target.exited;
    await Promise.all(attaching);
    if (token.isCancellationRequested) throw cancelledError();
    // A script's threads end on their own: that is the end of the run, not a partial profile.
    // Every process is labelled by PID and command until one is chosen as the profile ('main').
    for (const r of runs) if (r.run) captured.push(...(await r.run.stop()).map((c) => ({ ...c, thread: processLabel(r.process.pid, r.process.argv.slice(1)), partial: false })));
    target.reader.poll(); // the last worker's report may have landed after the last poll
    captured.push(...readSelfProfiles(target.reader.reports, request.workers !== false));
    if (captured.length === 0) {
      const reason = runs.length === 0
        ? 'no Node.js process of the command started (is it a Node.js program?)'
        : runs.map((r) => `PID ${r.process.pid}: ${r.error ?? 'no profile'}`).join('; ');
      throw new HotpathError(ErrorCode.InspectorUnavailable, `\`${request.command.join(' ')}\` ${target.describeExit()}, but nothing was profiled: ${reason}.${target.output.forMessage()}`);
    }
    // The process that did the most work is the profile (wrappers are skipped by the preload); other
    // processes that did real work are kept beside it, each under its own label and file name.
    const chosen = busiestFirst(captured);
    captured = chosen.kept;
    const left = chosen.dropped;
    progress({ stage: 'analyzing', message: 'Analyzing the profile' });
    const outDir = request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles');
    const saved = await saveProfiles(outDir, request.name, captured);
    // V8's signals were collected in the remotely profiled process: they belong to the profile only if that is it.
    const mainRun = runs.find((r) => r.process.pid === captured[0].pid);
    const v8 = mainRun ? mainRun.signals ?? await mainRun.v8?.finish(captured[0].profile, { targetGone: true }) : undefined;
    await saveV8Signals(saved[0]?.path, v8);
    const analysis = await analyzeProfiles(saved, { limit: request.limit, v8 });
    const main = mainRun?.process ?? target.processes.get(captured[0].pid) ?? runs[0]?.process;
    const warnings: Warning[] = [...analysis.warnings];
    if (timedOut) warnings.unshift({ code: 'SCRIPT_TIMEOUT', message: `The script was stopped after ${Math.round(request.timeoutMs! / 1000)} s (--timeout); the profile covers the time until then.` });
    else if (exit.code !== 0) warnings.unshift({ code: 'SCRIPT_FAILED', message: `The script ${target.describeExit()}; the profile covers its run until then.${target.output.forMessage()}` });
    if (left.count) {
      warnings.push({ code: 'PROCESSES_LEFT_OUT', message: `${left.count} other node process(es) of the command did little work (${left.ms} ms in all, under 5% of the busiest one's); their profiles are not kept.` });
    }
    // No NODE_ENV warning: it is about servers and frameworks; the checklist notes it for scripts (info).
    const result: ScriptResult = {
      kind: 'script',
      target: { command: request.command, pid: captured[0].pid, nodeVersion: main?.nodeVersion ?? process.version, nodeEnv: main?.nodeEnv ?? null, exitCode: exit.code, signal: exit.signal, ...targetFacts(v8, main?.execArgv) },
      profilePath: saved[0].path,
      profiles: saved,
      samplingIntervalMicros,
      durationMs: Date.now() - started,
      ...analysis,
      warnings,
    };
    result.checks = checksAfterRun(result);
    return result;
  } finally {
    if (timer) clearTimeout(timer);
    subs.dispose();
    // Other processes' collectors (and all of them on failure): nothing to read, only files to remove.
    for (const r of runs) await r.v8?.finish(undefined, { targetGone: true }).catch(() => undefined);
    for (const r of runs) { r.run?.dispose(); await r.client?.close(); }
    await target.stop();
    for (const r of runs) removeTraceFile(r.process.pid); // what they traced on their way out
  }
}

/**
 * Threads and processes that profiled themselves in script mode (see the preload), labelled with their
 * process's PID and command (`process 4242 (build.js) worker 1 (w.js)`), so no two profiles share a label
 * or a file name; busiestFirst then names the chosen process `main` and its workers `worker N (file)`.
 */
function readSelfProfiles(reports: readonly TargetReport[], workers: boolean): CapturedProfile[] {
  const out: CapturedProfile[] = [];
  const argvs = new Map<number, readonly string[]>();
  for (const r of reports) {
    if (r.type === 'process') argvs.set(r.pid, r.argv.slice(1));
    if (r.type === 'worker-profile' && r.threadId === 0 && r.argv) argvs.set(r.pid, r.argv);
  }
  for (const r of reports) {
    if (r.type !== 'worker-profile') continue;
    const isMain = r.threadId === 0;
    if (!isMain && !workers) continue;
    const script = r.script ? ` (${path.basename(r.script)})` : '';
    const owner = processLabel(r.pid, argvs.get(r.pid) ?? []);
    const thread = isMain ? owner : `${owner} worker ${r.threadId}${script}`;
    try {
      // Our own temporary directory, but written by the app: read it like any file we did not write.
      const profile = JSON.parse(readBoundedFileSync(r.path, 2 * 1024 * 1024 * 1024 - 1).toString('utf8')) as RawCpuProfile;
      out.push({ thread, pid: r.pid, profile, partial: false });
    } catch { /* a process killed mid-write: nothing usable */ }
  }
  return out;
}

/** `process 4242 (marked -i in.md)`: the PID and a short command (`node_modules/.bin/marked` → `marked`). */
function processLabel(pid: number, argv: readonly string[]): string {
  const [script, ...rest] = argv;
  const command = [script ? path.basename(script) : 'node', ...rest].join(' ').replace(/[()]/g, '').slice(0, 60);
  return `process ${pid} (${command})`;
}
const PROCESS_LABEL = /^process \d+ \([^()]*\)/;

/** Under this share of the busiest process's work, another process is not worth a profile of its own. */
const REAL_WORK_SHARE = 0.05;

/**
 * The busiest process's main thread first, as `main`; other processes that did real work after it
 * (their own labels kept); worker threads kept as they are.
 */
function busiestFirst(captured: CapturedProfile[]): { kept: CapturedProfile[]; dropped: { count: number; ms: number } } {
  const isProcess = (c: CapturedProfile) => new RegExp(`${PROCESS_LABEL.source}$`).test(c.thread);
  const processes = captured.filter(isProcess).map((c) => ({ c, busy: busyMicros(c.profile) })).sort((a, b) => b.busy - a.busy);
  const top = processes[0];
  if (!top) return { kept: captured, dropped: { count: 0, ms: 0 } };
  const dropped = processes.slice(1).filter((p) => p.busy < top.busy * REAL_WORK_SHARE);
  const others = captured.filter((c) => c !== top.c && !dropped.some((d) => d.c === c));
  const main = { ...top.c, thread: 'main' };
  // The chosen process's workers are the main process's: `worker N (file)`, as in HTTP mode.
  const relabel = (c: CapturedProfile) => (c.pid === top.c.pid ? { ...c, thread: c.thread.replace(new RegExp(`${PROCESS_LABEL.source} `), '') } : c);
  return { kept: [main, ...others.map(relabel)], dropped: { count: dropped.length, ms: Math.round(dropped.reduce((n, d) => n + d.busy, 0) / 1000) } };
}
