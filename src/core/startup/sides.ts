/**
 * The variants a startup comparison or bisect runs: the same command on other Node runtimes, or at other
 * git revisions. They are resolved exactly as `hotpath compare` resolves its sides (core/variants:
 * runtimes found or installed, revisions in temporary worktrees with their own dependencies, paths by
 * their real location), so each states the same facts — folder, entry file, revision, node binary,
 * dependencies — and the same refusals hold: two variants that would run the same files on the same
 * node (`--node v20 --node 20`, `--base HEAD` on a clean tree, a bisect list naming one entry twice) are
 * an A/A comparison by accident, refused unless `--allow-same-sides`.
 */
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { invalidOption } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import { resolveVariants, type ResolvedVariants, type SideSpec, type VariantsWording } from '../variants/sides';

/** What `hotpath startup --node/--base/--bisect-*` (and `compare --startup`) asked for. */
export interface StartupVariantsSpec {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Two runtimes to compare, or several (oldest first) to bisect. */
  nodes?: string[];
  /** A git revision compared with the working tree (a = the revision, b = the working tree). */
  base?: string;
  /** Git revisions to bisect, oldest first. */
  revisions?: string[];
  bisect: boolean;
  /** Run even when two variants resolve to the same files, node and settings: an A/A comparison on purpose. */
  allowSameSides?: boolean;
}

export interface SideDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: (message: string) => void;
}

/** The specs of the variants, in order, and how messages quote them. */
function specsOf(request: StartupVariantsSpec): { specs: SideSpec[]; wording: VariantsWording } {
  const command = 'hotpath startup';
  if (request.nodes?.length) {
    return { specs: request.nodes.map((node) => ({ node })), wording: { command, revisionFlag: '--base', nodeFlag: request.bisect ? '--bisect-node' : '--node', listFlag: '--bisect-node' } };
  }
  if (request.revisions?.length) {
    return { specs: request.revisions.map((base) => ({ base })), wording: { command, revisionFlag: '--bisect-rev', nodeFlag: '--node', listFlag: '--bisect-rev' } };
  }
  if (request.base !== undefined) return { specs: [{ base: request.base }, {}], wording: { command, revisionFlag: '--base', nodeFlag: '--node' } };
  throw invalidOption('A startup comparison takes two variants: --node A --node B, or --base REV (--bisect-node / --bisect-rev for a list).');
}

/**
 * Resolves every variant (worktrees, dependencies, runtimes) before any start is timed; `dispose`
 * removes the worktrees. Each side's proof is logged once, as compare's are.
 */
export async function startupSides(request: StartupVariantsSpec, deps: SideDeps = {}): Promise<ResolvedVariants> {
  const { specs, wording } = specsOf(request);
  return resolveVariants(
    { command: request.command, cwd: request.cwd, env: request.env, allowSameSides: request.allowSameSides },
    specs,
    { token: deps.token ?? neverCancelled, logger: deps.logger ?? silentLogger, onProgress: (message) => deps.onProgress?.(message) },
    { wording },
  );
}
