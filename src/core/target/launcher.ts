import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import { EventEmitter } from '../common/events';
import { type Logger, silentLogger } from '../common/logger';
import { onEmergencyStop } from '../common/emergency';
import type { Disposable } from '../common/disposable';
import { removeTraceFile } from '../v8/flags';
import { OutputTail } from './outputTail';
import { StartupAnnouncements } from '../routes/announced';
import { ownedTempDir, removeStaleFiles } from './staleFiles';
import { processesWithEnv } from './envProcesses';
import { killTree } from './processTree';
import { ReportReader } from './reportReader';
import { MODE_ENV, OWNER_PID_ENV, PRELOAD_FILE_NAME, REPORT_FILE_ENV, SAMPLING_ENV, type ProcessReport, type TargetMode, type TargetReport } from './reports';

export interface LaunchSpec {
  /** argv of the command; the first word is looked up on PATH (no shell, so nothing is re-interpreted). */
  command: string[];
  cwd: string;
  /** Merged over this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  mode: TargetMode;
  logger?: Logger;
  /** Where the built preload lives; defaults to dist/hotpath-preload.js next to the running bundle. */
  preloadPath?: string;
  /** Script mode: sampling interval for worker threads, which profile themselves. */
  samplingIntervalMicros?: number;
}

export interface ExitInfo { code: number | null; signal: NodeJS.Signals | null }

/** Finds dist/hotpath-preload.js whether we run from the bundle (dist/*.js) or from sources under tsx (tests). */
export function defaultPreloadPath(): string {
  const candidates = [path.join(__dirname, PRELOAD_FILE_NAME), path.resolve(__dirname, '../../../dist', PRELOAD_FILE_NAME)];
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`Hotpath's preload is missing (looked in ${candidates.join(', ')}); run \`npm run build\`.`);
  return found;
}

export function quoteForNodeOptions(p: string): string {
  return /[\s"\\]/.test(p) ? `"${p.replace(/(["\\])/g, '\\$1')}"` : p;
}

/** A running target: the process tree started from one command, with what its node processes reported. */
export class LaunchedTarget {
  readonly output = new OutputTail();
  /** URLs and routes the app announced on its output while starting (for the request-path offer). */
  readonly announcements = new StartupAnnouncements();
  readonly processes = new Map<number, ProcessReport>();
  private readonly processEmitter = new EventEmitter<ProcessReport>();
  private readonly reportEmitter = new EventEmitter<TargetReport>();
  private readonly outputEmitter = new EventEmitter<string>();
  readonly onProcess = this.processEmitter.event;
  readonly onReport = this.reportEmitter.event;
  readonly onOutput = this.outputEmitter.event;
  readonly exited: Promise<ExitInfo>;
  exitInfo: ExitInfo | undefined;
  /** When the command exited, ms since the epoch on this process's clock (see `spawnedAt`). */
  exitedAt: number | undefined;
  private stopping: Promise<void> | undefined;
  private readonly emergency: Disposable;

  constructor(
    readonly child: ChildProcess,
    readonly reader: ReportReader,
    private readonly reportDir: string,
    readonly commandLine: string,
    /** Right before the process was spawned, ms since the epoch (performance.timeOrigin + performance.now()): startup timing starts here. */
    readonly spawnedAt = performance.timeOrigin + performance.now(),
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => { this.exitedAt = performance.timeOrigin + performance.now(); this.exitInfo = { code, signal }; resolve(this.exitInfo); });
    });
    const onData = (chunk: Buffer) => { const text = chunk.toString('utf8'); this.output.push(text); this.announcements.push(text); this.outputEmitter.fire(text); };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    reader.onReport((report) => {
      if (report.type === 'process') { this.processes.set(report.pid, report); this.processEmitter.fire(report); }
      this.reportEmitter.fire(report);
    });
    this.emergency = onEmergencyStop(() => this.killNow());
  }

  /**
   * No time left (a second Ctrl-C): SIGKILL the group and every process that reported, synchronously,
   * and remove our files. V8's tracing ends with the processes; their trace files are removed too.
   */
  killNow(): void {
    const pids = [...this.processes.keys()];
    try { process.kill(-this.pid, 'SIGKILL'); } catch { /* group gone */ }
    for (const pid of [...pids, ...this.escaped()]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    try { this.reader.dispose(); } catch { /* already */ }
    fs.rmSync(this.reportDir, { recursive: true, force: true });
    for (const pid of pids) removeTraceFile(pid);
  }

  get pid(): number { return this.child.pid!; }
  get hasExited(): boolean { return this.exitInfo !== undefined; }

  /**
   * Processes the command started that left its tree and group (a detached or setsid daemon whose
   * parent exited): they still carry the target's report-file variable (see envProcesses.ts).
   */
  private escaped(): number[] {
    return processesWithEnv(REPORT_FILE_ENV, path.join(this.reportDir, 'reports.jsonl'));
  }

  /** Stops the whole tree (SIGTERM, then SIGKILL after the grace period) and cleans up. Idempotent. */
  stop(graceMs = 2000): Promise<void> {
    this.stopping ??= (async () => {
      const escaped = () => this.escaped();
      if (!this.hasExited) await killTree(this.pid, { graceMs, processGroup: true, escaped });
      else await killTree(this.pid, { graceMs: 0, processGroup: true, escaped }); // orphans of an exited root
      this.reader.poll();
      this.reader.dispose();
      fs.rmSync(this.reportDir, { recursive: true, force: true });
      this.emergency.dispose();
    })();
    return this.stopping;
  }

  describeExit(): string {
    const info = this.exitInfo;
    if (!info) return 'is still running';
    return info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
  }
}

/**
 * Starts the command as the leader of a new process group, with Hotpath's preload in NODE_OPTIONS.
 * Resolves once the process is spawned; readiness (a port, an inspector) is the caller's next step.
 */
export async function launchTarget(spec: LaunchSpec, token: CancellationToken = neverCancelled): Promise<LaunchedTarget> {
  if (token.isCancellationRequested) throw cancelledError();
  if (spec.command.length === 0) throw new HotpathError(ErrorCode.InvalidOption, 'No command to run: pass the app command after `--`, e.g. `hotpath profile -- node app.js`.');
  const logger = spec.logger ?? silentLogger;
  const preload = spec.preloadPath ?? defaultPreloadPath();
  removeStaleFiles(logger); // left by a Hotpath that was killed (SIGKILL) before it could clean up
  const reportDir = ownedTempDir('hotpath-target-');
  const reportFile = path.join(reportDir, 'reports.jsonl');
  fs.writeFileSync(reportFile, '');

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...spec.env })) if (v !== undefined) env[k] = v;
  // --inspect-publish-uid=http: opening the inspector prints no "Debugger listening on …" to the app's stderr.
  env.NODE_OPTIONS = [env.NODE_OPTIONS, '--inspect-publish-uid=http', `--require ${quoteForNodeOptions(preload)}`].filter(Boolean).join(' ');
  env[REPORT_FILE_ENV] = reportFile;
  env[OWNER_PID_ENV] = String(process.pid);
  env[MODE_ENV] = spec.mode;
  if (spec.samplingIntervalMicros) env[SAMPLING_ENV] = String(spec.samplingIntervalMicros);

  const commandLine = spec.command.join(' ');
  logger.info(`Starting ${commandLine} in ${spec.cwd}`);
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = spawn(spec.command[0], spec.command.slice(1), { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (err) => resolve(err));
  });
  if (spawned) {
    fs.rmSync(reportDir, { recursive: true, force: true });
    const code = (spawned as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT'
      ? `'${spec.command[0]}' was not found on PATH (in ${spec.cwd}). Check the command, or run it through npm (e.g. \`-- npm start\`).`
      : `${spawned.message}.`;
    throw new HotpathError(ErrorCode.TargetSpawnFailed, `Could not start \`${commandLine}\`: ${hint}`);
  }
  const target = new LaunchedTarget(child, new ReportReader(reportFile), reportDir, commandLine, spawnedAt);
  if (token.isCancellationRequested) { await target.stop(); throw cancelledError(); }
  return target;
}
