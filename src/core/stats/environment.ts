import { execFile } from 'node:child_process';
import * as os from 'node:os';
import type { Warning } from '../common/warnings';

/**
 * Where and on what a set of runs was measured. Stored with a baseline so a later verify can say when
 * a difference may come from the environment (another Node, another machine, a busy one) rather than
 * from the code.
 */
export interface RunEnvironment {
  /** The target app's Node version (e.g. 'v22.3.0'), not necessarily Hotpath's own. */
  nodeVersion: string;
  nodeEnv: string | null;
  /** HEAD of the workspace's repository; null outside a repository, without git, or before the first commit. */
  gitCommit: string | null;
  /** Uncommitted changes (Hotpath's own .hotpath folder excluded); null outside a repository or without git. */
  gitDirty: boolean | null;
  cpuCount: number;
  cpuModel: string;
  hostname: string;
  platform: string;
  /** 1, 5 and 15 minute load averages at capture (always zeros on Windows). */
  loadAverage: number[];
  capturedAt: string;
}

export interface EnvironmentDeps {
  /** Runs git with `args` in `cwd`; resolves its stdout, or null when git is missing or fails. */
  runGit(args: string[], cwd: string): Promise<string | null>;
  os: Pick<typeof os, 'cpus' | 'hostname' | 'platform' | 'loadavg'>;
  now(): Date;
}

function runGit(args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 5000, windowsHide: true }, (err, stdout) => resolve(err ? null : stdout));
  });
}

export const defaultEnvironmentDeps: EnvironmentDeps = { runGit, os, now: () => new Date() };

export async function captureEnvironment(
  input: { cwd: string; nodeVersion: string; nodeEnv: string | null | undefined },
  deps: EnvironmentDeps = defaultEnvironmentDeps,
): Promise<RunEnvironment> {
  const [head, status] = await Promise.all([
    // --verify -q: prints nothing (instead of an error about 'HEAD') in a repository with no commits yet.
    deps.runGit(['rev-parse', '--verify', '-q', 'HEAD'], input.cwd),
    // The whole repository (':/'), minus the workspace's .hotpath folder that baselines are written to.
    deps.runGit(['status', '--porcelain', '--', ':/', ':(exclude).hotpath'], input.cwd),
  ]);
  const cpus = deps.os.cpus();
  return {
    nodeVersion: input.nodeVersion,
    nodeEnv: input.nodeEnv ?? null,
    gitCommit: head?.trim() || null,
    gitDirty: status === null ? null : status.trim() !== '',
    cpuCount: cpus.length,
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    hostname: deps.os.hostname(),
    platform: deps.os.platform(),
    loadAverage: deps.os.loadavg().map((l) => Math.round(l * 100) / 100),
    capturedAt: deps.now().toISOString(),
  };
}

const quoted = (value: string | null): string => (value === null ? 'unset' : `'${value}'`);

function nodeVersionDiffers(b: RunEnvironment, c: RunEnvironment): Warning | undefined {
  if (b.nodeVersion === c.nodeVersion) return undefined;
  return {
    code: 'ENV_NODE_VERSION_DIFFERS',
    message:
      `The baseline ran on Node ${b.nodeVersion} and this run on ${c.nodeVersion}: a different V8 alone can move ` +
      `throughput by several percent, so the difference may not come from your code. Re-create the baseline on ${c.nodeVersion}.`,
  };
}

function machineDiffers(b: RunEnvironment, c: RunEnvironment): Warning | undefined {
  const diffs: string[] = [];
  if (b.cpuModel !== c.cpuModel) diffs.push(`CPU '${b.cpuModel}' → '${c.cpuModel}'`);
  if (b.cpuCount !== c.cpuCount) diffs.push(`${b.cpuCount} → ${c.cpuCount} cores`);
  if (b.hostname !== c.hostname) diffs.push(`host '${b.hostname}' → '${c.hostname}'`);
  if (b.platform !== c.platform) diffs.push(`platform ${b.platform} → ${c.platform}`);
  if (diffs.length === 0) return undefined;
  return {
    code: 'ENV_MACHINE_DIFFERS',
    message:
      `The baseline was measured on a different machine (${diffs.join(', ')}): throughput depends on the hardware ` +
      'as much as on the code, so the comparison is not like for like. Re-create the baseline on this machine.',
  };
}

function nodeEnvDiffers(b: RunEnvironment, c: RunEnvironment): Warning | undefined {
  if (b.nodeEnv === c.nodeEnv) return undefined;
  return {
    code: 'ENV_NODE_ENV_DIFFERS',
    message:
      `NODE_ENV was ${quoted(b.nodeEnv)} for the baseline and is ${quoted(c.nodeEnv)} now. If switching NODE_ENV is the change ` +
      'you are verifying, the verdict measures exactly that. Otherwise the comparison mixes two configurations (frameworks such as ' +
      'Express cache views and skip checks only in production): record the baseline again with the same NODE_ENV.',
  };
}

function busyMachine(b: RunEnvironment, c: RunEnvironment): Warning | undefined {
  const busy = (env: RunEnvironment) => (env.loadAverage[0] ?? 0) > env.cpuCount;
  const sides = [
    busy(b) ? `the baseline was captured (load average ${b.loadAverage[0]} on ${b.cpuCount} cores)` : undefined,
    busy(c) ? `this run started (load average ${c.loadAverage[0]} on ${c.cpuCount} cores)` : undefined,
  ].filter((s): s is string => s !== undefined);
  if (sides.length === 0) return undefined;
  return {
    code: 'ENV_BUSY_MACHINE',
    message:
      `The machine was busy when ${sides.join(' and when ')}: other programs competed with the app and the load ` +
      'generator for CPU, so those numbers are likely low and noisy. Close other programs and run again, or use `hotpath compare`, ' +
      'which runs both sides interleaved so that the load hits them alike.',
  };
}

/** Differences between two environments that can explain a change in throughput on their own. */
export function compareEnvironments(baseline: RunEnvironment, current: RunEnvironment): Warning[] {
  return [nodeVersionDiffers, machineDiffers, nodeEnvDiffers, busyMachine]
    .map((check) => check(baseline, current))
    .filter((w): w is Warning => w !== undefined);
}
