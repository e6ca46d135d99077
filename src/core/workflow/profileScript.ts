import * as path from 'node:path';
import { neverCancelled } from '../common/cancellation';
import { DisposableStore } from '../common/disposable';
import { cancelledError, errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { CdpClient } from '../inspector/cdpClient';
import { type CapturedProfile, ProfilingRun, type RawCpuProfile } from '../inspector/profilingRun';
import { launchTarget } from '../target/launcher';
import * as fs from 'node:fs';
import type { ProcessReport, TargetReport } from '../target/reports';
import { analyzeProfiles, type Analysis } from './analyze';
import { checksAfterRun, nodeEnvWarning } from './preflight';
import { saveProfiles, type SavedProfile } from './profileStore';
import { type ProfilingOptions, saveV8Signals, targetFacts, type TargetInfo, type WorkflowDeps } from './profileWithLoad';
import { V8Collector } from '../v8/collector';
import { installExitHook } from '../v8/exitHook';
import { removeTraceFile } from '../v8/flags';
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
 * Script mode: profile a command that runs to completion, startup included. Each node process of
 * the command pauses in the preload until we have started its profiler; at exit Node waits for us
 * to collect the profile ("Waiting for the debugger to disconnect").
 */
export async function profileScript(request: ScriptRequest, deps: WorkflowDeps = {}): Promise<ScriptResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const started = Date.now();
  progress({ stage: 'starting', message: `Running ${request.command.join(' ')}` });
  const target = await launchTarget({ command: request.command, cwd: request.cwd, env: request.env, mode: 'script', logger, samplingIntervalMicros: request.samplingIntervalMicros }, token);
  const subs = new DisposableStore();
  const runs: Array<{ process: ProcessReport; run?: ProfilingRun; client?: CdpClient; error?: string; v8?: V8Collector; signals?: V8RawSignals }> = [];

  const attach = async (proc: ProcessReport) => {
    const entry: (typeof runs)[number] = { process: proc };
    runs.push(entry);
    if (!proc.inspectorUrl) { entry.error = proc.inspectorError ?? 'no inspector'; return; }
    try {
      entry.client = await CdpClient.connect(proc.inspectorUrl, { token, logger });
      entry.run = await ProfilingRun.start(entry.client, proc.pid, { samplingIntervalMicros: request.samplingIntervalMicros, workers: false, logger });
      // The process waits at exit while we are attached: once its profile is collected, let it go.
      const client = entry.client;
      entry.run.onEnded(() => void client.close());
      if (request.v8 !== false) await startV8(entry, client);
      progress({ stage: 'profiling', message: `Profiling PID ${proc.pid} (${path.basename(proc.argv[1] ?? 'node')})` });
    } catch (err) {
      entry.error = errorMessage(err);
      logger.warn(`Could not profile PID ${proc.pid}: ${entry.error}`);
    } finally {
      // Always let it run: a process left paused would hang the command.
      await entry.client?.trySend('Runtime.runIfWaitingForDebugger');
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
    for (const r of runs) if (r.run) captured.push(...(await r.run.stop()).map((c) => ({ ...c, partial: false })));
    target.reader.poll(); // the last worker's report may have landed after the last poll
    if (request.workers !== false) captured.push(...readWorkerProfiles(target.reader.reports));
    if (captured.length === 0) {
      const reason = runs.length === 0
        ? 'no Node.js process of the command started (is it a Node.js program?)'
        : runs.map((r) => `PID ${r.process.pid}: ${r.error ?? 'no profile'}`).join('; ');
      throw new HotpathError(ErrorCode.InspectorUnavailable, `\`${request.command.join(' ')}\` ${target.describeExit()}, but nothing was profiled: ${reason}.${target.output.forMessage()}`);
    }
    // The longest-profiled main thread is the one the user meant (launchers are skipped by the
    // preload, so what remains is the program and anything it forked); keep the others too.
    captured = longestMainFirst(captured);
    progress({ stage: 'analyzing', message: 'Analyzing the profile' });
    const outDir = request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles');
    const saved = await saveProfiles(outDir, request.name, captured);
    const mainRun = runs.find((r) => r.process.pid === captured[0].pid)!;
    const v8 = mainRun.signals ?? await mainRun.v8?.finish(captured[0].profile, { targetGone: true });
    await saveV8Signals(saved[0]?.path, v8);
    const analysis = await analyzeProfiles(saved, { limit: request.limit, v8 });
    const main = mainRun.process;
    const warnings: Warning[] = [...analysis.warnings];
    if (timedOut) warnings.unshift({ code: 'SCRIPT_TIMEOUT', message: `The script was stopped after ${Math.round(request.timeoutMs! / 1000)} s (--timeout); the profile covers the time until then.` });
    else if (exit.code !== 0) warnings.unshift({ code: 'SCRIPT_FAILED', message: `The script ${target.describeExit()}; the profile covers its run until then.${target.output.forMessage()}` });
    const envWarning = nodeEnvWarning(main.nodeEnv);
    if (envWarning) warnings.unshift(envWarning);
    const result: ScriptResult = {
      kind: 'script',
      target: { command: request.command, pid: main.pid, nodeVersion: main.nodeVersion, nodeEnv: main.nodeEnv, exitCode: exit.code, signal: exit.signal, ...targetFacts(v8, main.execArgv) },
      profilePath: saved[0].path,
      profiles: saved,
      samplingIntervalMicros: request.samplingIntervalMicros,
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

/** Worker threads profiled themselves in script mode (see the preload); pick up what they wrote. */
function readWorkerProfiles(reports: readonly TargetReport[]): CapturedProfile[] {
  const out: CapturedProfile[] = [];
  for (const r of reports) {
    if (r.type !== 'worker-profile') continue;
    try {
      const profile = JSON.parse(fs.readFileSync(r.path, 'utf8')) as RawCpuProfile;
      out.push({ thread: `worker ${r.threadId}${r.script ? ` (${path.basename(r.script)})` : ''}`, pid: r.pid, profile, partial: false });
    } catch { /* a worker killed mid-write: nothing usable */ }
  }
  return out;
}

function profiledMicros(c: CapturedProfile): number {
  return (c.profile.endTime ?? 0) - (c.profile.startTime ?? 0);
}

function longestMainFirst(captured: CapturedProfile[]): CapturedProfile[] {
  const mainThreads = captured.filter((c) => c.thread === 'main').sort((a, b) => profiledMicros(b) - profiledMicros(a));
  const top = mainThreads[0];
  return [top, ...captured.filter((c) => c !== top)];
}
