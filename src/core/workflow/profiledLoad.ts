import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, isHotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { CdpClient } from '../inspector/cdpClient';
import { type CapturedProfile, ProfilingRun } from '../inspector/profilingRun';
import type { LoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { measure, warmUp } from './loadPhases';
import type { ProgressSink } from './progress';

export interface ProfiledLoad {
  profiles: CapturedProfile[];
  load: LoadResult;
  /** The process ended before the load did; the profiles cover the time until then. */
  endedEarly: boolean;
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
}

/**
 * The one profiling sequence of launch and attach alike: a warm-up without the profiler, then the
 * profiler around exactly the measured load.
 */
export async function profileUnderLoad(client: CdpClient, pid: number, loadOptions: LoadOptions, ctx: ProfiledLoadContext): Promise<ProfiledLoad> {
  const { token, logger, progress } = ctx;
  const phase = { token, logger, progress, totalSeconds: loadOptions.warmupSeconds + loadOptions.durationSeconds };
  await warmUp(loadOptions, { ...phase, offsetSeconds: 0 });
  const run = await ProfilingRun.start(client, pid, { samplingIntervalMicros: ctx.samplingIntervalMicros, workers: ctx.workers, logger });
  try {
    const load = await measure('profiling', loadOptions, { ...phase, offsetSeconds: loadOptions.warmupSeconds });
    progress({ stage: 'stopping', message: 'Stopping the profiler', fraction: 0.97 });
    const profiles = await run.stop();
    return { profiles, load, endedEarly: run.ended && !profiles.some((p) => !p.partial) };
  } catch (err) {
    if (!ctx.onCrash || !run.ended || isHotpathError(err, ErrorCode.Cancelled)) throw err;
    return await ctx.onCrash(err, await run.stop());
  } finally {
    run.dispose();
  }
}
