/**
 * One cold start of the command: spawn it (a fresh process tree), wait until startup ends — the
 * command exits, or one of its processes starts listening on a port — and collect what the startup
 * preload reported. A start that fails is an error, not a data point: it did different work.
 */
import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFileSync } from '../common/boundedRead';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { RawCpuProfile } from '../inspector/profilingRun';
import { distFile } from '../target/distFiles';
import { launchTarget } from '../target/launcher';
import type { TargetReport } from '../target/reports';
import { SAMPLING_ENV } from '../target/reports';
import { type ModulesFile, STARTUP_MODE_ENV, STARTUP_PRELOAD_FILE_NAME, type StartupEndReport, type StartupProcessReport, type StartupRunMode } from './reports';

/** When startup is over: the command's exit, its first listening port, or whichever comes first. */
export type StartupEnd = 'auto' | 'exit' | 'listen';

export interface StartRunRequest {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  mode: StartupRunMode;
  until: StartupEnd;
  /** `profile` mode: the sampling interval (µs). */
  samplingIntervalMicros?: number;
  timeoutMs: number;
  preloadPath?: string;
}

export interface StartRun {
  /** From spawning the command to the end of startup, as a user waits for it. */
  ms: number;
  end: 'exit' | 'listen';
  port: number | null;
  /** The program: the first node process that is not a wrapper (npm run, npx…). */
  program: StartupProcessReport | null;
  /** Wrapper processes that ran before it (`npm run`'s npm), by command. */
  wrappers: string[];
  /** From the spawn to the program's own clock starting (the wrapper's time, plus exec), ms. */
  launchMs: number | null;
  /** Node's own bootstrap in the program, ms after its clock started. */
  bootstrapMs: number | null;
  /** CPU time of the program process until the end of startup. */
  cpuMs: number | null;
  modules?: ModulesFile;
  profile?: RawCpuProfile;
}

export interface StartRunDeps {
  token?: CancellationToken;
  logger?: Logger;
}

/** dist/hotpath-startup-preload.js. */
export function startupPreloadPath(): string {
  return distFile(STARTUP_PRELOAD_FILE_NAME, 'startup preload');
}

const isStartupProcess = (r: TargetReport | { type: string }): r is StartupProcessReport => r.type === 'startup-process';
const isStartupEnd = (r: TargetReport | { type: string }): r is StartupEndReport => r.type === 'startup-end';

function readJson<T>(file: string): T | undefined {
  try {
    // Written by the app's process into our directory: read like any file we did not write.
    return JSON.parse(readBoundedFileSync(file, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

export async function startOnce(request: StartRunRequest, deps: StartRunDeps = {}): Promise<StartRun> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const env: Record<string, string | undefined> = { ...request.env, [STARTUP_MODE_ENV]: request.mode };
  if (request.samplingIntervalMicros) env[SAMPLING_ENV] = String(request.samplingIntervalMicros);
  const target = await launchTarget({ command: request.command, cwd: request.cwd, env, mode: 'script', logger, preloadPath: request.preloadPath ?? startupPreloadPath() }, token);
  const commandLine = request.command.join(' ');
  try {
    const reports = () => target.reader.reports as Array<TargetReport | StartupProcessReport | StartupEndReport>;
    const listened = new Promise<StartupEndReport>((resolve) => {
      if (request.until === 'exit') return;
      target.onReport((r) => { const x = r as unknown as StartupEndReport; if (isStartupEnd(x) && x.reason === 'listen') resolve(x); });
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), request.timeoutMs); });
    let onCancel: { dispose(): void } | undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => { onCancel = token.onCancellationRequested(() => resolve('cancelled')); });
    const outcome = await Promise.race([target.exited.then(() => 'exit' as const), listened, timedOut, cancelled]);
    if (timer) clearTimeout(timer);
    onCancel?.dispose();
    if (outcome === 'cancelled' || token.isCancellationRequested) throw cancelledError();
    if (outcome === 'timeout') {
      const hint = request.until === 'exit' ? 'did not exit' : request.until === 'listen' ? 'did not listen on a port' : 'neither exited nor listened on a port';
      throw new HotpathError(ErrorCode.Timeout, `\`${commandLine}\` ${hint} within ${Math.round(request.timeoutMs / 1000)} s, so its startup has no end to time. Give a command that exits when started (e.g. \`node cli.js --version\`) or a server that listens; raise the limit with --timeout.${target.output.forMessage()}`);
    }
    if (outcome === 'exit') {
      const exit = target.exitInfo!;
      if (exit.code !== 0) {
        throw new HotpathError(ErrorCode.TargetExited, `\`${commandLine}\` ${target.describeExit()} during startup; a start that fails does different work, so it cannot be timed. Make the command succeed first.${target.output.forMessage()}`);
      }
      if (request.until === 'listen') {
        throw new HotpathError(ErrorCode.TargetNeverListened, `\`${commandLine}\` exited without listening on a port (--until listen).${target.output.forMessage()}`);
      }
    }
    target.reader.poll(); // the exit report may have landed after the last poll
    const all = reports();
    const processes = all.filter(isStartupProcess);
    const program = processes.find((p) => !p.wrapper) ?? null;
    if (!program) {
      throw new HotpathError(ErrorCode.InspectorUnavailable, `\`${commandLine}\` ran no Node.js program Hotpath could time (is it a Node.js program?).${target.output.forMessage()}`);
    }
    const ends = all.filter(isStartupEnd);
    const listen = outcome === 'exit' ? undefined : outcome;
    const programEnd = listen ?? ends.find((e) => e.pid === program.pid);
    const endAt = listen ? listen.at : target.exitedAt!;
    const run: StartRun = {
      ms: endAt - target.spawnedAt,
      end: listen ? 'listen' : 'exit',
      port: listen?.port ?? null,
      program,
      wrappers: processes.filter((p) => p.wrapper && p.timeOrigin <= program.timeOrigin).map((p) => path.basename(p.argv[1] ?? 'node')),
      launchMs: program.timeOrigin - target.spawnedAt,
      bootstrapMs: programEnd?.pid === program.pid ? programEnd.bootstrapMs : ends.find((e) => e.pid === program.pid)?.bootstrapMs ?? null,
      cpuMs: programEnd?.pid === program.pid ? programEnd.cpuMs : null,
    };
    // The end report of the process whose startup this was (the listening one, else the program).
    const endOf = programEnd ?? ends.find((e) => e.pid === program.pid);
    if (endOf?.modulesPath) run.modules = readJson<ModulesFile>(endOf.modulesPath);
    if (endOf?.profilePath) run.profile = readJson<RawCpuProfile>(endOf.profilePath);
    return run;
  } finally {
    await target.stop();
  }
}
