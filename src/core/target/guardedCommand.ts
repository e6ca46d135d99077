/**
 * A command Hotpath runs to completion for the user (a `--prepare` step, a dependency install, an
 * `npm install` of a Node.js version), under a watchdog process (guard.ts) so that it cannot outlive
 * Hotpath: stopped with Hotpath's run (SIGTERM, SIGKILL after the grace period, said so when it came
 * to that), at once on a second Ctrl-C or an editor shutting down, and by the guard when Hotpath
 * itself is killed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Disposable } from '../common/disposable';
import { onEmergencyStop } from '../common/emergency';
import { distFile } from './distFiles';
import { processesWithEnv } from './envProcesses';
import { GUARD_FILE_NAME, GUARD_ID_ENV, type GuardSpec } from './guardSpec';
import { killTree, stopProcesses } from './processTree';

export interface GuardedCommand {
  command: string[];
  cwd: string;
  /** Through the shell (a `--prepare` string); default false. */
  shell?: boolean;
  /** Between SIGTERM and SIGKILL (default 2 s). */
  graceMs?: number;
}

export interface GuardedExit {
  /** The command's own exit, when it ran and ended. */
  code: number | null;
  signal: string | null;
  /** It could not be started (e.g. 'ENOENT': not on PATH). */
  spawnError?: string;
}

export interface GuardedRun {
  readonly pid: number;
  /** When the command (and its guard) ended. */
  readonly exited: Promise<GuardedExit>;
  /**
   * Stops the command and everything it started: SIGTERM, SIGKILL after the grace period. Resolves
   * true when it had to come to SIGKILL. Idempotent.
   */
  stop(): Promise<boolean>;
}

/** dist/hotpath-guard.js. */
export function guardPath(): string {
  return distFile(GUARD_FILE_NAME, 'process guard');
}

/** Starts the command under its guard; `onOutput` gets its stdout and stderr as they come. */
export function startGuarded(spec: GuardedCommand, onOutput: (text: string) => void): GuardedRun {
  const id = randomUUID();
  const graceMs = spec.graceMs ?? 2000;
  const env: NodeJS.ProcessEnv = { ...process.env, [GUARD_ID_ENV]: id };
  const unsetEnv: string[] = [];
  // In VS Code Hotpath runs in Electron, which runs scripts as Node only when told to.
  if (process.versions.electron && env.ELECTRON_RUN_AS_NODE === undefined) { env.ELECTRON_RUN_AS_NODE = '1'; unsetEnv.push('ELECTRON_RUN_AS_NODE'); }
  const guardSpec: GuardSpec = { command: spec.command, cwd: spec.cwd, shell: spec.shell ?? false, unsetEnv, idEnv: GUARD_ID_ENV, id, graceMs };
  const child = spawn(process.execPath, [guardPath(), JSON.stringify(guardSpec)], {
    cwd: spec.cwd, env, detached: process.platform !== 'win32', windowsHide: true,
    // stdin: the guard's lifeline (never written; closed by the system when Hotpath is gone). fd 3: the command's exit status.
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  const escaped = () => processesWithEnv(GUARD_ID_ENV, id);
  let status: GuardedExit | undefined;
  let statusText = '';
  child.stdio[3]?.on('data', (d: Buffer) => {
    statusText += d.toString('utf8');
    const line = statusText.split('\n')[0];
    try {
      const v = JSON.parse(line) as { code?: number | null; signal?: string | null; error?: string };
      status = v.error ? { code: null, signal: null, spawnError: v.error } : { code: v.code ?? null, signal: v.signal ?? null };
    } catch { /* not complete yet */ }
  });
  child.stdout?.on('data', (d: Buffer) => onOutput(d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => onOutput(d.toString('utf8')));
  child.stdin?.on('error', () => undefined);

  let running = true;
  // No time left: SIGKILL the group and whatever left it, synchronously.
  let emergency: Disposable | undefined = onEmergencyStop(() => {
    if (running) { try { process.kill(-child.pid!, 'SIGKILL'); } catch { child.kill('SIGKILL'); } }
    for (const pid of escaped()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  });
  // The status channel closes when the guard exits (the command holds no copy of it): read it to the end.
  const statusRead = new Promise<void>((resolve) => { const s = child.stdio[3]; if (!s) return resolve(); s.once('close', () => resolve()); s.once('error', () => resolve()); });
  const exited = new Promise<GuardedExit>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => { running = false; resolve({ code: null, signal: null, spawnError: err.code ?? err.message }); });
    child.once('exit', (code, signal) => {
      running = false;
      void statusRead.then(() => resolve(status ?? { code, signal }));
    });
  });

  let stopping: Promise<boolean> | undefined;
  const stop = (): Promise<boolean> => {
    stopping ??= (async () => {
      // While the guard lives its group is ours; once it has exited, only the variable names what is left.
      const stubborn = running ? await killTree(child.pid!, { graceMs, processGroup: true, escaped }) : await stopProcesses(escaped, graceMs);
      await exited;
      emergency?.dispose();
      emergency = undefined;
      child.stdin?.destroy();
      return stubborn;
    })();
    return stopping;
  };
  // Whatever the command left running (a background process of a build script) goes with it.
  void exited.then(() => { if (!stopping) void stop(); });
  return { get pid() { return child.pid!; }, exited, stop };
}
