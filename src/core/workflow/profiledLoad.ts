import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, isHotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { CdpClient, CdpSession } from '../inspector/cdpClient';
import { type CapturedProfile, ProfilingRun } from '../inspector/profilingRun';
import type { LoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { measure } from './loadPhases';
import { type RequestCheck, warmUpChecked } from './requestPath';
import type { ProgressSink } from './progress';
import type { Event } from '../common/events';
import { V8Collector, type V8Mode } from '../v8/collector';
import { WorkerSignals } from '../v8/workerSignals';
import { WorkerHub, type WorkerHandle } from '../inspector/workerHub';
import { CodeMapKeeper } from '../inspector/codeMapKeeper';
import type { V8RawSignals } from '../v8/types';
import { AllocationSampler, type AllocationSamplingOptions } from '../memory/allocationSampler';
import type { SamplingHeapProfile } from '../memory/heapProfile';
import { LoopMonitor } from '../loop/loopMonitor';
import type { MonitorReport, MonitorStartOptions } from '../loop/monitorScript';
import { threadCpu } from '../measure/threadCpu';
import { waitForQuietThreads } from '../measure/quietThreads';
import { measuredProfilerCost, type ProfilerCost } from './profilerCost';

export interface ProfiledLoad {
  profiles: CapturedProfile[];
  /** The load options measured with (the warm-up's route check may have changed the request). */
  loadOptions: LoadOptions;
  load: LoadResult;
  /** The process ended before the load did; the profiles cover the time until then. */
  endedEarly: boolean;
  /** V8's signals of the main thread, collected in the same run (when asked for). */
  v8?: V8RawSignals;
  /** The worker threads' signals, by thread label (as their profiles are labelled). */
  workerV8?: Map<string, V8RawSignals>;
  /** The main thread's allocations over the same window (--memory). */
  heapProfile?: SamplingHeapProfile;
  heapSampling?: AllocationSamplingOptions;
  /** What the event-loop and GC monitor saw over the window, or why it could not run. */
  loop?: MonitorReport;
  loopLimitation?: string;
  /** What V8's profiler thread cost the app over the window (Linux, a local process). */
  profilerCost?: ProfilerCost;
}

export interface ProfiledLoadContext {
  token: CancellationToken;
  logger: Logger;
  progress: ProgressSink;
  samplingIntervalMicros: number;
  workers?: boolean;
  /**
   * The load failed after the process ended (a crash mid-profile): Node kept the profile alive for us.
   * Receives the error and what was captured; must throw. Without it the load's error is rethrown.
   */
  onCrash?: (err: unknown, captured: CapturedProfile[]) => Promise<never>;
  /**
   * Collect V8's signals (tiers, deopts, inlining) in the same run: switched on before the warm-up,
   * read after Profiler.stop. `output`: the target's output, where V8 prints inlining refusals
   * (launch only; when attaching it is the app's own stdout, never touched).
   */
  v8?: { mode: V8Mode; output?: Event<string> };
  /** What the warm-up's route check may offer when it gets only 404s (requestPath.ts). */
  request?: RequestCheck;
  /** Sample allocations over the same window as the CPU profile (V8's sampling heap profiler). */
  memory?: AllocationSamplingOptions;
  /**
   * The pid is a process of this machine (launch, `--attach PID`): measure what V8's profiler thread
   * cost it. Not for an inspector reached by port, whose pid may be of another machine or container.
   */
  localPid?: boolean;
  /** Watch the event loop and GC over the window (default on); false leaves the app's loop alone. */
  loop?: Partial<MonitorStartOptions> | false;
}

/**
 * The one profiling sequence of launch and attach alike: a warm-up without the profiler, then the
 * profiler around exactly the measured load.
 */
export async function profileUnderLoad(client: CdpClient, pid: number, loadOptions: LoadOptions, ctx: ProfiledLoadContext): Promise<ProfiledLoad> {
  const { token, logger, progress } = ctx;
  const phase = { token, logger, progress, totalSeconds: loadOptions.warmupSeconds + loadOptions.durationSeconds };
  // Before the warm-up: V8 optimizes the hot code during it, and those compiles are what we want to see.
  // The guard: should we never switch the signals off, the app does itself a while after the run.
  const guardSeconds = loadOptions.warmupSeconds + loadOptions.durationSeconds + 120;
  // Worker threads first: the hub holds a worker that starts later until V8's signals and the profiler
  // are set up in it. One hub per connection: both use its sessions.
  // With V8's signals, a worker still starting up is waited for (quietMs; see the set-up below).
  const hub = ctx.workers !== false ? await WorkerHub.start(client, logger, { hold: true, ...(ctx.v8 ? { quietMs: 5000 } : {}) }) : undefined;
  let v8: V8Collector | undefined;
  let workerV8: WorkerSignals | undefined;
  const keepers: CodeMapKeeper[] = [];
  const keep = async (session: CdpSession) => {
    const k = await CodeMapKeeper.start(session, ctx.samplingIntervalMicros, logger);
    if (k) keepers.push(k);
  };
  const keepWorkers = hub ? (w: WorkerHandle) => keep(w.session) : undefined;
  try {
    // V8's set-up switches tracing on for a moment in one isolate at a time; a worker still starting up
    // could trace into that isolate's file meanwhile (see windowedProbeExpression), for good: the set-up
    // runs in the hub's queue, after each running worker is quiet (the hub's quietMs).
    // Workers not announced yet are seen by their threads' CPU (quietThreads.ts).
    if (ctx.v8 && hub && ctx.localPid) await waitForQuietThreads(pid, 5000, logger);
    const startV8 = () => V8Collector.start(client, pid, { ...ctx.v8!, logger, guardSeconds, deferTracing: hub !== undefined });
    v8 = ctx.v8 ? await (hub ? hub.runBetween(startV8) : startV8()) : undefined;
    workerV8 = v8 && hub ? await WorkerSignals.start(v8, hub, logger) : undefined;
    // Each isolate running now has its own trace file: tracing on, for all of them (not during a new worker's set-up).
    const collector = v8;
    if (collector && hub) await hub.runBetween(() => collector.startTracing());
    // Every thread's profiler runs from here on, so the measured profile knows the code the warm-up compiles.
    await keep(client);
    if (hub && keepWorkers) await hub.use(keepWorkers);
  } catch (err) {
    // None of these should throw; should one, the process is left as it was.
    await v8?.abandon();
    await workerV8?.abandon();
    for (const k of keepers) await k.stop();
    workerV8?.dispose();
    await hub?.release();
    hub?.dispose();
    throw err;
  } finally {
    // Workers started meanwhile run now, set up like the others (and never stay waiting, whatever happened).
    await hub?.release();
  }
  let succeeded = false;
  let sampler: AllocationSampler | undefined;
  let loopMonitor: LoopMonitor | undefined;
  try {
    loadOptions = await warmUpChecked(loadOptions, { ...phase, offsetSeconds: 0 }, ctx.request ?? {});
    // The same window for all three: allocations, the loop monitor, the CPU profile.
    sampler = ctx.memory ? await AllocationSampler.start(client, ctx.memory) : undefined;
    // The app's threads before the profiler starts and right after the load: what its thread cost, measured.
    const cpuBefore = ctx.localPid ? threadCpu(pid) : null;
    const run = await ProfilingRun.start(client, pid, { samplingIntervalMicros: ctx.samplingIntervalMicros, workers: hub ?? false, logger });
    // After Profiler.start, whose own set-up in the app must not count as a long turn of the loop.
    const monitor = ctx.loop === false ? undefined : await LoopMonitor.start(client, ctx.loop ?? {}, logger);
    loopMonitor = monitor instanceof LoopMonitor ? monitor : undefined;
    try {
      const load = await measure('profiling', loadOptions, { ...phase, offsetSeconds: loadOptions.warmupSeconds });
      const cpuAfter = cpuBefore ? threadCpu(pid) : null;
      progress({ stage: 'stopping', message: 'Stopping the profiler', fraction: 0.97 });
      // The monitor first: what the profiler does while stopping must not count as a long turn of the loop.
      const loop = await loopMonitor?.stop();
      await v8?.stopTracing();
      const profiles = await run.stop();
      if (hub && keepWorkers) hub.stopUsing(keepWorkers);
      for (const k of keepers) await k.stop();
      const profilerCost = measuredProfilerCost(cpuBefore, cpuAfter, profiles, ctx.samplingIntervalMicros);
      const heapProfile = await sampler?.stop();
      // After Profiler.stop: the tier query walks the heap, which must not be in the profile.
      const signals = v8 ? await v8.finish(profiles.find((p) => p.thread === 'main')?.profile, { targetGone: client.isClosed }) : undefined;
      const workerSignals = workerV8 ? await workerV8.finish(profiles, { targetGone: client.isClosed }) : undefined;
      succeeded = true;
      const loopLimitation = monitor && !(monitor instanceof LoopMonitor) ? monitor.limitation : loopMonitor && !loop ? 'the event-loop monitor returned no report (the app may have ended)' : undefined;
      return {
        profiles, load, loadOptions, endedEarly: run.ended && !profiles.some((p) => !p.partial), ...(signals ? { v8: signals } : {}),
        ...(workerSignals?.size ? { workerV8: workerSignals } : {}),
        ...(heapProfile ? { heapProfile, heapSampling: ctx.memory } : {}), ...(loop ? { loop } : {}), ...(loopLimitation ? { loopLimitation } : {}),
        ...(profilerCost ? { profilerCost } : {}),
      };
    } catch (err) {
      if (!ctx.onCrash || !run.ended || isHotpathError(err, ErrorCode.Cancelled)) throw err;
      return await ctx.onCrash(err, await run.stop());
    } finally {
      run.dispose();
    }
  } finally {
    // Errors, cancellation, a crash: leave the process as it was (flags off, no sampling, no monitor) and remove the trace file.
    if (!succeeded) {
      await v8?.abandon();
      await workerV8?.abandon();
      await sampler?.abandon();
    }
    if (hub && keepWorkers) hub.stopUsing(keepWorkers);
    if (!client.isClosed) for (const k of keepers) await k.stop();
    workerV8?.dispose();
    hub?.dispose();
    if (loopMonitor && !client.isClosed) await loopMonitor.dispose();
  }
}
