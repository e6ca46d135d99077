/**
 * The variants a startup comparison or bisect runs: the same command on another Node runtime, or at
 * another git revision. Both come from what `hotpath compare` uses: runtimes found on the machine or
 * installed from the npm registry (core/runtimes), revisions in a temporary git worktree with their
 * dependencies reused or installed (core/variants). A bisect may need many sides, so each is made on
 * its own here rather than as compare's pair.
 */
import * as path from 'node:path';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { type Logger, silentLogger } from '../common/logger';
import { resolveRuntime } from '../runtimes/resolve';
import { withV } from '../runtimes/version';
import { planDependencies, provideDependencies } from '../variants/dependencies';
import { sideCommand } from '../variants/sides';
import { checkoutRevision, inWorktree } from '../variants/worktree';

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

interface BaseCommand { command: string[]; cwd: string; env?: Record<string, string | undefined> }

/** The command on the Node runtime `spec` names (`24`, `22.23.3`, or a path to a node binary). */
export async function runtimeSide(spec: string, base: BaseCommand, deps: SideDeps = {}): Promise<StartupSide> {
  const token = deps.token ?? neverCancelled;
  deps.onProgress?.(`Finding Node ${spec}`);
  const rt = await resolveRuntime(spec, { installDeps: { token, onProgress: (p) => deps.onProgress?.(p.message) } });
  (deps.logger ?? silentLogger).info(`Node ${spec}: ${rt.version} at ${rt.path} (${rt.source})`);
  const on = sideCommand(base.command, base.env ?? {}, rt, []);
  return { label: `Node ${rt.version}`, command: on.command, cwd: base.cwd, env: on.env, expectedNodeVersion: withV(rt.version), dispose: async () => undefined };
}

/** The command at git revision `rev`, from a temporary detached worktree with its dependencies. */
export async function revisionSide(rev: string, base: BaseCommand, deps: SideDeps = {}): Promise<StartupSide> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  deps.onProgress?.(`Checking out ${rev} in a temporary git worktree`);
  const wt = await checkoutRevision(base.cwd, rev, logger);
  try {
    throwIfCancelled(token);
    const plan = planDependencies(wt.repoRoot, wt.root, path.relative(wt.root, inWorktree(base.cwd, wt))); // the real folder, also through a symlink
    deps.onProgress?.(plan.action === 'install' ? `Installing the dependencies of ${rev}: ${plan.reason}, running ${plan.command?.join(' ')}` : `Dependencies of ${rev}: ${plan.reason}`);
    await provideDependencies(plan, wt.repoRoot, wt.root, { token, logger });
    return {
      label: `${rev} (${wt.sha.slice(0, 7)})`,
      command: base.command.map((word) => inWorktree(word, wt)),
      cwd: inWorktree(base.cwd, wt), env: { ...base.env }, gitRev: wt.sha,
      dispose: () => wt.remove(),
    };
  } catch (err) {
    await wt.remove();
    throw err;
  }
}
