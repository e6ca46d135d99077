import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { CdpClient } from '../inspector/cdpClient';
import { ProfilingRun } from '../inspector/profilingRun';
import { type LoadOptions, type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { analyzeProfiles, type Analysis } from './analyze';
import { nodeEnvWarning } from './preflight';
import { saveProfiles, type SavedProfile } from './profileStore';
import type { ProgressSink } from './progress';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import { measure, warmUp } from './loadPhases';
import { errorMessage, ErrorCode, HotpathError, isHotpathError } from '../common/errors';

export interface ProfileRequest extends TargetCommand {
  load: LoadOptionsInput;
  samplingIntervalMicros: number;
  /** Where .cpuprofile files go; default <cwd>/.hotpath/profiles. */
  outDir?: string;
  name: string;
  workers?: boolean;
  limit?: number;
}

export interface TargetInfo { command: string[]; pid: number; port?: number; nodeVersion: string; nodeEnv: string | null }

export interface ProfileResult extends Analysis {
  kind: 'profile';
  target: TargetInfo;
  load: LoadResult;
  loadOptions: LoadOptions;
  profilePath: string;
  profiles: SavedProfile[];
  samplingIntervalMicros: number;
}

export interface WorkflowDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: ProgressSink;
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
  const captured = await withHttpTarget(request, { token, logger }, async (target, ready) => {
    const loadOptions = resolveLoadOptions(request.load, { port: ready.port });
    const phase = { token, logger, progress, totalSeconds: loadOptions.warmupSeconds + loadOptions.durationSeconds };
    const client = await CdpClient.connect(ready.process.inspectorUrl!, { token, logger });
    try {
      await warmUp(loadOptions, { ...phase, offsetSeconds: 0 });
      const run = await ProfilingRun.start(client, ready.process.pid, { samplingIntervalMicros: request.samplingIntervalMicros, workers: request.workers, logger });
      try {
        const load = await measure('profiling', loadOptions, { ...phase, offsetSeconds: loadOptions.warmupSeconds });
        progress({ stage: 'stopping', message: 'Stopping the profiler', fraction: 0.97 });
        const profiles = await run.stop();
        const exitedEarly = run.ended && !profiles.some((p) => !p.partial);
        return { profiles, load, loadOptions, ready, exitedEarly, target };
      } catch (err) {
        // The app died and no load result exists, but Node kept the profile alive for us: save it.
        if (!run.ended || isHotpathError(err, ErrorCode.Cancelled)) throw err;
        const saved = await saveProfiles(outDir, request.name, await run.stop());
        await target.exited;
        throw new HotpathError(ErrorCode.TargetExited,
          `The app ${target.describeExit()} while being profiled (${errorMessage(err)}). The profile captured until then is saved at ${saved[0]?.path ?? '(none)'}; open it with \`hotpath report\`.${target.output.forMessage()}`);
      } finally {
        run.dispose();
      }
    } finally {
      await client.close();
    }
  });

  progress({ stage: 'analyzing', message: 'Analyzing the profile', fraction: 0.98 });
  const saved = await saveProfiles(outDir, request.name, captured.profiles);
  const analysis = await analyzeProfiles(saved, { limit: request.limit });
  const warnings: Warning[] = [...captured.load.warnings, ...analysis.warnings];
  if (captured.exitedEarly) {
    warnings.unshift({ code: 'TARGET_EXITED_DURING_PROFILE', message: `The app ${captured.target.describeExit()} before the load ended; the profile covers the time until then.${captured.target.output.forMessage()}` });
  }
  const envWarning = nodeEnvWarning(captured.ready.process.nodeEnv);
  if (envWarning) warnings.unshift(envWarning);
  return {
    kind: 'profile',
    target: { command: request.command, pid: captured.ready.process.pid, port: captured.ready.port, nodeVersion: captured.ready.process.nodeVersion, nodeEnv: captured.ready.process.nodeEnv },
    load: captured.load,
    loadOptions: captured.loadOptions,
    profilePath: saved[0].path,
    profiles: saved,
    samplingIntervalMicros: request.samplingIntervalMicros,
    ...analysis,
    warnings,
  };
}
