import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { CdpClient } from '../inspector/cdpClient';
import { type LoadOptions, type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { analyzeProfiles, type Analysis } from './analyze';
import { nodeEnvWarning } from './preflight';
import { saveProfiles, type SavedProfile } from './profileStore';
import type { ProgressSink } from './progress';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { profileUnderLoad } from './profiledLoad';

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
    const client = await CdpClient.connect(ready.process.inspectorUrl!, { token, logger });
    try {
      const profiled = await profileUnderLoad(client, ready.process.pid, loadOptions, {
        token, logger, progress, samplingIntervalMicros: request.samplingIntervalMicros, workers: request.workers,
        onCrash: async (err, partial) => {
          const saved = await saveProfiles(outDir, request.name, partial);
          await client.close(); // the crashed app waits for the debugger to leave before it exits
          await target.exited;
          throw new HotpathError(ErrorCode.TargetExited,
            `The app ${target.describeExit()} while being profiled (${errorMessage(err)}). The profile captured until then is saved at ${saved[0]?.path ?? '(none)'}; open it with \`hotpath report\`.${target.output.forMessage()}`);
        },
      });
      return { ...profiled, loadOptions, ready, target };
    } finally {
      await client.close();
    }
  });

  progress({ stage: 'analyzing', message: 'Analyzing the profile', fraction: 0.98 });
  const saved = await saveProfiles(outDir, request.name, captured.profiles);
  const analysis = await analyzeProfiles(saved, { limit: request.limit });
  const warnings: Warning[] = [...captured.load.warnings, ...analysis.warnings];
  if (captured.endedEarly) {
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
