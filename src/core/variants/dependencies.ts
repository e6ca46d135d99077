/**
 * Dependencies of a revision checked out in a worktree: when its lock file is the working tree's, the
 * working tree's node_modules are reused (symlinked, nothing to install); when it differs, the
 * revision's own dependencies are installed with the package manager the lock file belongs to.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import { startGuarded } from '../target/guardedCommand';

/** Between SIGTERM and SIGKILL when a cancelled command does not stop. */
const STOP_GRACE_MS = 2000;

/** Lock files, most specific first, with the install that reproduces exactly what they pin. */
const LOCKS: { file: string; command: string[] }[] = [
  { file: 'package-lock.json', command: ['npm', 'ci', '--no-audit', '--no-fund'] },
  { file: 'npm-shrinkwrap.json', command: ['npm', 'ci', '--no-audit', '--no-fund'] },
  { file: 'pnpm-lock.yaml', command: ['pnpm', 'install', '--frozen-lockfile'] },
  { file: 'yarn.lock', command: ['yarn', 'install', '--frozen-lockfile'] },
  { file: 'bun.lock', command: ['bun', 'install', '--frozen-lockfile'] },
];

const read = (file: string): string | undefined => { try { return fs.readFileSync(file, 'utf8'); } catch { return undefined; } };

/** Folders from `root` down to `leaf` (both included). */
function chain(root: string, leaf: string): string[] {
  const rel = path.relative(root, leaf);
  const parts = rel ? rel.split(path.sep) : [];
  return parts.reduce((dirs, part) => [...dirs, path.join(dirs[dirs.length - 1], part)], [root]);
}

export interface DependencyPlan {
  /** 'reuse': node_modules symlinked from the working tree; 'install': the revision's own; 'none': no package.json. */
  action: 'reuse' | 'install' | 'none';
  /** Why, in words (for progress and the log). */
  reason: string;
  /** Relative to the repository: where the install runs, or which node_modules are linked. */
  dirs: string[];
  command?: string[];
}

/**
 * Decides what the worktree needs. `app` is the app's folder relative to the repository root. The
 * install root is the nearest folder at or above the app with a lock file (a workspace root in a
 * monorepo); its lock file in both trees decides.
 */
export function planDependencies(workingRoot: string, worktreeRoot: string, app: string): DependencyPlan {
  const dirs = chain(worktreeRoot, path.join(worktreeRoot, app)).map((d) => path.relative(worktreeRoot, d));
  const withPackage = dirs.filter((d) => fs.existsSync(path.join(worktreeRoot, d, 'package.json')));
  if (withPackage.length === 0) return { action: 'none', reason: 'no package.json', dirs: [] };
  for (const dir of [...dirs].reverse()) {
    const lock = LOCKS.find((l) => fs.existsSync(path.join(worktreeRoot, dir, l.file)) || fs.existsSync(path.join(workingRoot, dir, l.file)));
    if (!lock) continue;
    const theirs = read(path.join(worktreeRoot, dir, lock.file));
    const ours = read(path.join(workingRoot, dir, lock.file));
    const linkable = dirs.filter((d) => fs.existsSync(path.join(workingRoot, d, 'node_modules')));
    if (theirs !== undefined && theirs === ours && linkable.length) {
      return { action: 'reuse', reason: `${path.join(dir, lock.file)} is the same in both trees`, dirs: linkable };
    }
    if (theirs === undefined) return { action: 'install', reason: `the revision has no ${path.join(dir, lock.file)}`, dirs: [dir], command: ['npm', 'install', '--no-audit', '--no-fund'] };
    return { action: 'install', reason: ours === undefined ? `the working tree has no ${path.join(dir, lock.file)}` : `${path.join(dir, lock.file)} differs`, dirs: [dir], command: lock.command };
  }
  // No lock file anywhere: the package.json files decide.
  const same = withPackage.every((d) => read(path.join(worktreeRoot, d, 'package.json')) === read(path.join(workingRoot, d, 'package.json')));
  const linkable = dirs.filter((d) => fs.existsSync(path.join(workingRoot, d, 'node_modules')));
  if (same) return linkable.length ? { action: 'reuse', reason: 'package.json is the same in both trees (no lock file)', dirs: linkable } : { action: 'none', reason: 'no node_modules to reuse', dirs: [] };
  return { action: 'install', reason: 'package.json differs (no lock file)', dirs: [withPackage[withPackage.length - 1]], command: ['npm', 'install', '--no-audit', '--no-fund'] };
}

/**
 * Runs a command (no shell unless asked) in `cwd`, its output to the log; cancellable. It runs under
 * a guard (target/guardedCommand.ts): a cancelled command gets SIGTERM, then SIGKILL after 2 s (and
 * the error says so), a second Ctrl-C kills it at once, and it does not outlive Hotpath.
 */
export async function runLogged(command: string[], cwd: string, deps: { token: CancellationToken; logger: Logger; shell?: boolean }): Promise<void> {
  const shown = command.join(' ');
  const exe = process.platform === 'win32' && !deps.shell && /^(npm|pnpm|yarn)$/.test(command[0]) ? `${command[0]}.cmd` : command[0];
  let tail = '';
  const run = startGuarded({ command: [exe, ...command.slice(1)], cwd, shell: deps.shell ?? false, graceMs: STOP_GRACE_MS }, (text) => {
    tail = (tail + text).slice(-4000);
    for (const line of text.split('\n')) if (line.trim()) deps.logger.info(`[${command[0]}] ${line}`);
  });
  const sub = deps.token.onCancellationRequested(() => void run.stop());
  try {
    const exit = await run.exited;
    const killed = await run.stop(); // also whatever it left running in the background
    if (deps.token.isCancellationRequested) {
      if (!killed) throw cancelledError();
      const said = `\`${shown}\` did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM, so it was killed (SIGKILL).`;
      deps.logger.warn(said);
      throw new HotpathError(ErrorCode.Cancelled, `${cancelledError().message} ${said}`);
    }
    if (exit.spawnError) {
      throw new HotpathError(ErrorCode.TargetSpawnFailed, exit.spawnError === 'ENOENT' ? `'${command[0]}' is not installed or not on PATH (needed to run \`${shown}\` in ${cwd}).` : `Could not run \`${shown}\`: ${exit.spawnError}`);
    }
    if (exit.code === 0) return;
    throw new HotpathError(ErrorCode.TargetExited, `\`${shown}\` failed in ${cwd} (${exit.signal ?? `exit code ${exit.code}`}):\n${tail.trim().split('\n').slice(-15).join('\n')}`);
  } finally {
    sub.dispose();
  }
}

/** Carries out the plan in the worktree. */
export async function provideDependencies(plan: DependencyPlan, workingRoot: string, worktreeRoot: string, deps: { token: CancellationToken; logger: Logger }): Promise<void> {
  if (plan.action === 'reuse') {
    for (const dir of plan.dirs) {
      const link = path.join(worktreeRoot, dir, 'node_modules');
      if (fs.existsSync(link)) continue;
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.join(workingRoot, dir, 'node_modules'), link, 'junction');
    }
  } else if (plan.action === 'install' && plan.command) {
    await runLogged(plan.command, path.join(worktreeRoot, plan.dirs[0]), deps);
  }
}
