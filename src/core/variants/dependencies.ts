/**
 * Dependencies of a revision checked out in a worktree: when its lock file is the working tree's, the
 * working tree's node_modules are reused (linked package by package, workspace packages from the
 * revision; nothing to install); when it differs, the revision's own dependencies are installed with
 * the package manager the lock file belongs to.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import type { Logger } from '../common/logger';
import { type MirrorResult, mirrorNodeModules } from './nodeModules';
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
  /**
   * 'reuse': the working tree's node_modules linked package by package; 'copy': the same, copied (the
   * side's --prepare may write into them); 'install': the revision's own; 'none': no package.json.
   */
  action: 'reuse' | 'copy' | 'install' | 'none';
  /** Why, in words (for progress and the log). */
  reason: string;
  /** Relative to the repository: where the install runs, or which node_modules are linked. */
  dirs: string[];
  command?: string[];
}

/** The install a revision's package.json asks for with no lock file: its `packageManager` field, else npm. */
function installWithoutLock(dir: string): string[] {
  let manager = 'npm';
  try { manager = String(JSON.parse(read(path.join(dir, 'package.json')) ?? '{}').packageManager ?? 'npm').split('@')[0]; } catch { /* npm */ }
  return manager === 'pnpm' || manager === 'yarn' || manager === 'bun' ? [manager, 'install'] : ['npm', 'install', '--no-audit', '--no-fund'];
}

/**
 * Decides what the worktree needs. `app` is the app's folder relative to the repository root. The
 * install root is the nearest folder at or above the app with a lock file (a workspace root in a
 * monorepo); the lock files there in both trees decide. `writable`: the side runs a --prepare, which
 * may write into node_modules (generated clients, caches), so reused ones are copied, never linked —
 * the user's own node_modules are not the revision's to change.
 */
export function planDependencies(workingRoot: string, worktreeRoot: string, app: string, options: { writable?: boolean } = {}): DependencyPlan {
  const dirs = chain(worktreeRoot, path.join(worktreeRoot, app)).map((d) => path.relative(worktreeRoot, d));
  const withPackage = dirs.filter((d) => fs.existsSync(path.join(worktreeRoot, d, 'package.json')));
  if (withPackage.length === 0) return { action: 'none', reason: 'no package.json', dirs: [] };
  const linkable = dirs.filter((d) => fs.existsSync(path.join(workingRoot, d, 'node_modules')));
  const reuse = (reason: string, install: { dir: string; command: string[] }): DependencyPlan => {
    if (!linkable.length) return { action: 'install', reason: `${reason}, but the working tree has no node_modules to reuse`, dirs: [install.dir], command: install.command };
    return { action: options.writable ? 'copy' : 'reuse', reason, dirs: linkable };
  };
  for (const dir of [...dirs].reverse()) {
    const theirs = LOCKS.find((l) => fs.existsSync(path.join(worktreeRoot, dir, l.file)));
    const ours = LOCKS.find((l) => fs.existsSync(path.join(workingRoot, dir, l.file)));
    if (!theirs && !ours) continue;
    const where = (file: string) => path.join(dir, file);
    const folder = dir ? `in ${dir}` : 'at the repository root';
    if (!theirs) return { action: 'install', reason: `the revision has no lock file ${folder} (the working tree has ${where(ours!.file)})`, dirs: [dir], command: installWithoutLock(path.join(worktreeRoot, dir)) };
    if (!ours) return { action: 'install', reason: `the working tree has no lock file ${folder} (the revision has ${where(theirs.file)})`, dirs: [dir], command: theirs.command };
    if (theirs.file !== ours.file) return { action: 'install', reason: `the revision has ${where(theirs.file)}, the working tree ${where(ours.file)}`, dirs: [dir], command: theirs.command };
    if (read(path.join(worktreeRoot, dir, theirs.file)) !== read(path.join(workingRoot, dir, ours.file))) {
      return { action: 'install', reason: `${where(theirs.file)} differs`, dirs: [dir], command: theirs.command };
    }
    return reuse(`${where(theirs.file)} is the same in both trees`, { dir, command: theirs.command });
  }
  // No lock file anywhere: the package.json files decide.
  const same = withPackage.every((d) => read(path.join(worktreeRoot, d, 'package.json')) === read(path.join(workingRoot, d, 'package.json')));
  const root = withPackage[0];
  if (same) return linkable.length ? reuse('package.json is the same in both trees (no lock file)', { dir: root, command: installWithoutLock(path.join(worktreeRoot, root)) }) : { action: 'none', reason: 'no node_modules to reuse', dirs: [] };
  return { action: 'install', reason: 'package.json differs (no lock file)', dirs: [withPackage[withPackage.length - 1]], command: installWithoutLock(path.join(worktreeRoot, withPackage[withPackage.length - 1])) };
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

/** What providing the dependencies did, beyond the plan: workspace links pointed into the worktree. */
export type ProvidedDependencies = MirrorResult;

/**
 * Carries out the plan in the worktree. Reused node_modules are rebuilt entry by entry (linked, or
 * copied for a side that prepares), with workspace links pointing into the worktree; the working
 * tree's node_modules are only read.
 */
export async function provideDependencies(plan: DependencyPlan, workingRoot: string, worktreeRoot: string, deps: { token: CancellationToken; logger: Logger }): Promise<ProvidedDependencies> {
  if (plan.action === 'reuse' || plan.action === 'copy') {
    const result = await mirrorNodeModules(plan.dirs, { working: workingRoot, worktree: worktreeRoot }, plan.action === 'copy' ? 'copy' : 'link', deps.token);
    for (const r of result.relinked) deps.logger.info(`${r.link} → ${r.target} of the revision${result.absent.includes(r.target) ? ' (the revision has no such folder)' : ''}`);
    return result;
  }
  if (plan.action === 'install' && plan.command) await runLogged(plan.command, path.join(worktreeRoot, plan.dirs[0]), deps);
  return { relinked: [], absent: [] };
}
