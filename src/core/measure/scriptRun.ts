import { type CancellationToken } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import { launchTarget } from '../target/launcher';
import { timingPreloadPath } from './preloadPath';

/** What one side runs. */
export interface RunnableSide {
  label: string;
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** The app must report this version ("v24.21.0"), when a runtime was asked for. */
  expectedNodeVersion?: string;
}

export interface ScriptRun {
  /** From spawning the command to its exit, as the user waits for it (startup included). */
  wallMs: number;
  /** User + system CPU time of every node process of the command (all threads), from its own accounting. */
  cpuMs: number;
  nodeVersion: string | null;
}

interface CpuReport { type: 'cpu-usage'; pid: number; userUs: number; systemUs: number }

/** The side ran on another Node than the one asked for: the command starts node some other way. */
export function checkNodeVersion(side: RunnableSide, reported: string | null | undefined): void {
  if (!side.expectedNodeVersion || !reported || reported === side.expectedNodeVersion) return;
  throw new HotpathError(ErrorCode.InvalidOption,
    `"${side.label}" was to run on Node ${side.expectedNodeVersion}, but the app reported ${reported}: \`${side.command.join(' ')}\` starts node in a way Hotpath cannot redirect (an absolute path, a version-manager shim). Start the app with \`node …\` in the command, or give --node the runtime that command uses.`);
}

/**
 * One timed run of a command that runs to completion: spawn, wait for the exit, read each node
 * process's CPU time from the timing preload. A run that fails is an error, not a data point: a
 * failing command does different work.
 */
export async function measureScriptRun(side: RunnableSide, deps: { token: CancellationToken; logger: Logger; timeoutMs?: number }): Promise<ScriptRun> {
  const started = performance.now();
  const target = await launchTarget({ command: side.command, cwd: side.cwd, env: side.env, mode: 'script', logger: deps.logger, preloadPath: timingPreloadPath() }, deps.token);
  let timedOut = false;
  const timer = deps.timeoutMs ? setTimeout(() => { timedOut = true; void target.stop(); }, deps.timeoutMs) : undefined;
  const sub = deps.token.onCancellationRequested(() => { void target.stop(); });
  try {
    const exit = await target.exited;
    const wallMs = performance.now() - started;
    if (deps.token.isCancellationRequested) throw cancelledError();
    if (timedOut) throw new HotpathError(ErrorCode.Timeout, `\`${side.command.join(' ')}\` ("${side.label}") did not finish within ${Math.round(deps.timeoutMs! / 1000)} s (--timeout).${target.output.forMessage()}`);
    if (exit.code !== 0) {
      throw new HotpathError(ErrorCode.TargetExited, `\`${side.command.join(' ')}\` ("${side.label}") ${target.describeExit()}; a failing run does different work, so it cannot be compared. Make the command succeed on both sides.${target.output.forMessage()}`);
    }
    target.reader.poll();
    const cpu = target.reader.reports.filter((r) => (r as { type: string }).type === 'cpu-usage') as unknown as CpuReport[];
    if (cpu.length === 0) throw new HotpathError(ErrorCode.InspectorUnavailable, `\`${side.command.join(' ')}\` ran no Node.js process that Hotpath could time (is it a Node.js program?).`);
    const main = [...target.processes.values()].find((p) => !/npm|npx|yarn|pnpm/.test(p.argv[1] ?? '')) ?? [...target.processes.values()][0];
    checkNodeVersion(side, main?.nodeVersion);
    return { wallMs, cpuMs: cpu.reduce((sum, r) => sum + r.userUs + r.systemUs, 0) / 1000, nodeVersion: main?.nodeVersion ?? null };
  } finally {
    if (timer) clearTimeout(timer);
    sub.dispose();
    await target.stop();
  }
}
