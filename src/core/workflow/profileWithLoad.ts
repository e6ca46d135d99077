import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { CdpClient } from '../inspector/cdpClient';
import { type LoadOptions, type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { analyzeProfiles, type Analysis } from './analyze';
import { checksAfterRun, nodeEnvWarning } from './preflight';
import { writeV8Sidecar } from '../v8/sidecar';
import { removeTraceFile } from '../v8/flags';
import type { V8RawSignals } from '../v8/types';
import { saveProfiles, type SavedProfile } from './profileStore';
import type { ProgressSink } from './progress';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { profileUnderLoad, type ProfiledLoad } from './profiledLoad';
import { type RequestChooser, resolveRequest } from './requestPath';
import { analyzeMemoryAndLoop, memorySampling, type EventLoopResult, type MemoryAndLoopExtras, type MemoryResult } from './memoryAndLoop';
import { runtimeChecks } from './runtimeChecks';
import { DEFAULT_MONITOR_OPTIONS } from '../loop/loopMonitor';
import { defaultSamplingInterval } from '../profile/samplingInterval';
import type { ProfilerCost } from './profilerCost';
import type { Analysis as AnalysisType } from './analyze';

/** What every profiling run (launch, script, attach) takes besides its target. */
export interface ProfilingOptions {
  /** µs between CPU samples; unset: chosen from the measured window's length (profile/samplingInterval.ts). */
  samplingIntervalMicros?: number;
  /** Where .cpuprofile files go; default <cwd>/.hotpath/profiles. */
  outDir?: string;
  /** Part of the saved file names. */
  name: string;
  workers?: boolean;
  /** Rows of hotspots and lines in the result. */
  limit?: number;
  /** Collect V8's signals (tiers, deopts, inlining) in the same run; default true. */
  v8?: boolean;
  /** Sample allocations over the profiled window (V8's sampling heap profiler), every this many bytes on average. */
  memoryIntervalBytes?: number;
  /** Loop turns at least this long are blocking episodes (default 20 ms). */
  blockThresholdMs?: number;
}

export interface ProfileRequest extends TargetCommand, ProfilingOptions {
  load: LoadOptionsInput;
}

export interface TargetInfo {
  command: string[];
  pid: number;
  port?: number;
  nodeVersion: string;
  nodeEnv: string | null;
  /** The node flags of the profiled process, when known (for the production-parity checks). */
  execArgv?: string[];
  /** Its NODE_OPTIONS as it saw them (Hotpath's own `--require` preload included), when known. */
  nodeOptions?: string | null;
  /** process.sourceMapsEnabled in the app (--enable-source-maps), when known. */
  sourceMapsEnabled?: boolean | null;
}

/** The facts V8's collection read from the target, for TargetInfo. */
export function targetFacts(v8: V8RawSignals | undefined, execArgv?: string[]): Pick<TargetInfo, 'execArgv' | 'nodeOptions' | 'sourceMapsEnabled'> {
  const t = v8?.target;
  const out: Pick<TargetInfo, 'execArgv' | 'nodeOptions' | 'sourceMapsEnabled'> = {};
  if (t?.execArgv ?? execArgv) out.execArgv = t?.execArgv ?? execArgv;
  if (t) { out.nodeOptions = t.nodeOptions; out.sourceMapsEnabled = t.sourceMapsEnabled; }
  return out;
}

/** Saves the run's V8 signals next to the main profile (so `hotpath report` shows them again); best effort. */
export async function saveV8Signals(profilePath: string | undefined, v8: V8RawSignals | undefined): Promise<void> {
  if (!profilePath || !v8) return;
  try { await writeV8Sidecar(profilePath, v8); } catch { /* the analysis still has them; only a later report would not */ }
}

/** The main thread's signals beside the main profile, each worker's beside its own profile. */
export async function saveThreadV8Signals(saved: readonly SavedProfile[], main: V8RawSignals | undefined, workers: ReadonlyMap<string, V8RawSignals> | undefined): Promise<void> {
  await saveV8Signals(saved[0]?.path, main);
  for (const s of saved.slice(1)) await saveV8Signals(s.path, workers?.get(s.thread));
}

export interface ProfileResult extends Analysis {
  kind: 'profile';
  target: TargetInfo;
  load: LoadResult;
  loadOptions: LoadOptions;
  profilePath: string;
  profiles: SavedProfile[];
  samplingIntervalMicros: number;
  /** What V8's profiler thread cost the app over the window, measured (Linux, a local process). */
  profilerCost?: ProfilerCost;
  /** Allocations (--memory) and GC during the profiled window. */
  memory?: MemoryResult;
  /** Event-loop delay, utilization and blocking episodes during the profiled window. */
  eventLoop?: EventLoopResult;
  /** Allocation model and blocking attribution for the front ends. Not in the JSON. */
  memoryExtras?: MemoryAndLoopExtras;
}

/** The profile's view of memory and the event loop, with its warnings and checks added to `result`. */
export async function addMemoryAndLoop(result: ProfileResult, captured: Pick<ProfiledLoad, 'heapProfile' | 'heapSampling' | 'loop' | 'loopLimitation' | 'profiles' | 'v8'>, request: Pick<ProfilingOptions, 'blockThresholdMs' | 'limit'>, analysis: Pick<AnalysisType, 'model'>): Promise<void> {
  const found = await analyzeMemoryAndLoop({
    captured, model: analysis.model, profilePath: result.profilePath, load: result.load, v8: captured.v8,
    thresholdMs: request.blockThresholdMs ?? DEFAULT_MONITOR_OPTIONS.thresholdMs, limit: request.limit,
  });
  result.memory = found.memory;
  result.eventLoop = found.eventLoop;
  result.memoryExtras = found.extras;
  result.warnings.push(...found.warnings);
  result.checks = [...(result.checks ?? []), ...runtimeChecks(found.memory, found.eventLoop)];
}

/** What profileUnderLoad is asked to collect besides the CPU profile, from the request. */
export function memoryAndLoopContext(request: Pick<ProfilingOptions, 'memoryIntervalBytes' | 'blockThresholdMs'>) {
  return {
    ...(request.memoryIntervalBytes ? { memory: memorySampling(request.memoryIntervalBytes) } : {}),
    // Each GC pause recorded costs the app (a fast endpoint: +4.5% main-thread CPU per request, measured
    // with `npm run bench -- overhead`), so only --memory lists them; otherwise the CPU profile's GC samples
    // give the share of the time.
    loop: { thresholdMs: request.blockThresholdMs ?? DEFAULT_MONITOR_OPTIONS.thresholdMs, gcPauses: Boolean(request.memoryIntervalBytes) },
  };
}

export interface WorkflowDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: ProgressSink;
  /** Asks which request to load when none was given, and again when the warm-up gets only 404s (VS Code). */
  chooseRequest?: RequestChooser;
}

/**
 * Profile with load: start the app, warm it up without the profiler, profile exactly the measured
 * load, save the profile, stop the app, then rank where the time went.
 */
export async function profileWithLoad(request: ProfileRequest, deps: WorkflowDeps = {}): Promise<ProfileResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  resolveLoadOptions(request.load, { port: request.port ?? 1 }); // fail on bad flags before starting anything
  progress({ stage: 'starting', message: `Starting ${request.command.join(' ')}`, fraction: 0 });

  const outDir = request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles');
  let profiledPid: number | undefined;
  let samplingIntervalMicros = request.samplingIntervalMicros ?? 1000;
  const captured = await withHttpTarget(request, { token, logger }, async (target, ready) => {
    profiledPid = ready.process.pid;
    const { options: requested, offer } = await resolveRequest(request.load, target, ready, { chooser: deps.chooseRequest, logger, token, progress });
    samplingIntervalMicros = request.samplingIntervalMicros ?? defaultSamplingInterval(requested.durationSeconds);
    const client = await CdpClient.connect(ready.process.inspectorUrl!, { token, logger });
    try {
      const profiled = await profileUnderLoad(client, ready.process.pid, requested, {
        token, logger, progress, samplingIntervalMicros, workers: request.workers, localPid: true,
        request: { offer, chooser: deps.chooseRequest },
        v8: request.v8 === false ? undefined : { mode: 'launch', output: target.onOutput },
        ...memoryAndLoopContext(request),
        onCrash: async (err, partial) => {
          const saved = await saveProfiles(outDir, request.name, partial);
          await client.close(); // the crashed app waits for the debugger to leave before it exits
          await target.exited;
          throw new HotpathError(ErrorCode.TargetExited,
            `The app ${target.describeExit()} while being profiled (${errorMessage(err)}). The profile captured until then is saved at ${saved[0]?.path ?? '(none)'}; open it with \`hotpath report\`.${target.output.forMessage()}`);
        },
      });
      return { ...profiled, ready, target };
    } finally {
      await client.close();
    }
  // The app has exited here; it may have traced on its way out (after a crash, say): remove the file.
  }).finally(() => { if (profiledPid !== undefined) removeTraceFile(profiledPid); });

  progress({ stage: 'analyzing', message: 'Analyzing the profile', fraction: 0.98 });
  const saved = await saveProfiles(outDir, request.name, captured.profiles);
  await saveThreadV8Signals(saved, captured.v8, captured.workerV8);
  const analysis = await analyzeProfiles(saved, { limit: request.limit, v8: captured.v8, workerV8: captured.workerV8 });
  const warnings: Warning[] = [...captured.load.warnings, ...analysis.warnings];
  if (captured.endedEarly) {
    warnings.unshift({ code: 'TARGET_EXITED_DURING_PROFILE', message: `The app ${captured.target.describeExit()} before the load ended; the profile covers the time until then.${captured.target.output.forMessage()}` });
  }
  const envWarning = nodeEnvWarning(captured.ready.process.nodeEnv);
  if (envWarning) warnings.unshift(envWarning);
  const result: ProfileResult = {
    kind: 'profile',
    target: {
      command: request.command, pid: captured.ready.process.pid, port: captured.ready.port, nodeVersion: captured.ready.process.nodeVersion, nodeEnv: captured.ready.process.nodeEnv,
      ...targetFacts(captured.v8, captured.ready.process.execArgv),
    },
    load: captured.load,
    loadOptions: captured.loadOptions,
    profilePath: saved[0].path,
    profiles: saved,
    samplingIntervalMicros,
    ...(captured.profilerCost ? { profilerCost: captured.profilerCost } : {}),
    ...analysis,
    warnings,
  };
  result.checks = checksAfterRun(result);
  await addMemoryAndLoop(result, captured, request, analysis);
  return result;
}
