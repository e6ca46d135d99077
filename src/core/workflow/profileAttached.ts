import * as path from 'node:path';
import { neverCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import { silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import { attachToProcess, type AttachSpec } from '../target/attach';
import { analyzeProfiles } from './analyze';
import { profileUnderLoad } from './profiledLoad';
import { checksAfterRun, nodeEnvWarning } from './preflight';
import { saveProfiles } from './profileStore';
import { addMemoryAndLoop, memoryAndLoopContext, type ProfileResult, type ProfilingOptions, saveThreadV8Signals, targetFacts, type WorkflowDeps } from './profileWithLoad';
import { defaultSamplingInterval } from '../profile/samplingInterval';

/** `v8`: the flags are switched off again afterwards, since the process keeps running. */
export interface AttachProfileRequest extends ProfilingOptions {
  attach: AttachSpec;
  /** Must name the port or URL: a process we did not start cannot tell us where it listens. */
  load: LoadOptionsInput;
  port?: number;
  cwd: string;
}

export function describeAttach(spec: AttachSpec): string {
  if ('inspectorUrl' in spec) return spec.inspectorUrl;
  if ('pid' in spec) return `PID ${spec.pid}`;
  return `inspector port ${spec.inspectorPort}`;
}

/**
 * Profile a process that is already running (attached over its inspector): the same warm-up,
 * profile and analysis as a launch, but the process is left running afterwards.
 */
export async function profileAttached(request: AttachProfileRequest, deps: WorkflowDeps = {}): Promise<ProfileResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  if (request.load.url === undefined && request.port === undefined) {
    throw new HotpathError(ErrorCode.InvalidOption, 'Attaching needs to know where to send load: add --port N (and --path) or --url URL of the running app.');
  }
  const loadOptions = resolveLoadOptions(request.load, { port: request.port });
  progress({ stage: 'starting', message: `Attaching to ${describeAttach(request.attach)}`, fraction: 0 });
  const attached = await attachToProcess(request.attach, { token, logger });
  const samplingIntervalMicros = request.samplingIntervalMicros ?? defaultSamplingInterval(loadOptions.durationSeconds);
  let profiled;
  try {
    profiled = await profileUnderLoad(attached.client, attached.pid, loadOptions, {
      token, logger, progress, samplingIntervalMicros, workers: request.workers, localPid: 'pid' in request.attach,
      // No output: the app's stdout is its own (V8's inlining trace would land in its logs).
      v8: request.v8 === false ? undefined : { mode: 'attach' },
      ...memoryAndLoopContext(request),
    });
  } finally {
    await attached.detach(); // the process keeps running; an inspector Hotpath opened is closed again
  }
  progress({ stage: 'analyzing', message: 'Analyzing the profile', fraction: 0.98 });
  const saved = await saveProfiles(request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles'), request.name, profiled.profiles);
  await saveThreadV8Signals(saved, profiled.v8, profiled.workerV8);
  const analysis = await analyzeProfiles(saved, { limit: request.limit, v8: profiled.v8, workerV8: profiled.workerV8 });
  const { load } = profiled;
  const warnings: Warning[] = [...load.warnings, ...analysis.warnings];
  const envWarning = nodeEnvWarning(attached.nodeEnv);
  if (envWarning) warnings.unshift(envWarning);
  const result: ProfileResult = {
    kind: 'profile',
    target: { command: [`(attached to ${describeAttach(request.attach)})`], pid: attached.pid, port: loadOptions.port, nodeVersion: attached.nodeVersion, nodeEnv: attached.nodeEnv, ...targetFacts(profiled.v8) },
    load, loadOptions, profilePath: saved[0].path, profiles: saved, samplingIntervalMicros,
    ...(profiled.profilerCost ? { profilerCost: profiled.profilerCost } : {}),
    ...analysis, warnings,
  };
  result.checks = checksAfterRun(result);
  await addMemoryAndLoop(result, profiled, request, analysis);
  return result;
}
