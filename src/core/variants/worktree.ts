import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, HotpathError, invalidOption } from '../common/errors';
import { onEmergencyStop } from '../common/emergency';
import type { Logger } from '../common/logger';
import { ownedTempDir, removeStaleFiles } from '../target/staleFiles';
import { git, repositoryRoot, unknownRevisionMessage } from './git';
import { repositoryRelative } from './paths';
import { pruneGoneHotpathWorktrees, removeWorktree, removeWorktreeSync } from './worktreeEntry';

/** A revision checked out in a temporary `git worktree`, removed again by `remove()`. */
export interface Worktree {
  /** The worktree's top folder (the repository root's counterpart). */
  root: string;
  /** The repository the revision comes from. */
  repoRoot: string;
  /** The full commit id the revision named. */
  sha: string;
  remove(): Promise<void>;
}

/** The commit a revision names (`HEAD~1`, a tag, a branch, a short id), or a clear error. */
export async function resolveCommit(repoRoot: string, rev: string): Promise<string> {
  if (rev.startsWith('-')) throw invalidOption(`--base ${rev}: a revision cannot start with '-'.`);
  const sha = await git(['rev-parse', '--verify', '-q', `${rev}^{commit}`], repoRoot).then((s) => s.trim(), () => '');
  if (!sha) throw invalidOption(await unknownRevisionMessage(repoRoot, rev));
  return sha;
}

/** The repository's common git folder (the main `.git`, shared by its worktrees), absolute. */
async function commonGitDir(repoRoot: string): Promise<string> {
  return path.resolve(repoRoot, (await git(['rev-parse', '--git-common-dir'], repoRoot)).trim());
}

/**
 * `git worktree add --detach` of the revision into `<tmpdir>/hotpath-base-<sha>-XXXXXX/tree` (the folder
 * above holds the owner's PID, so a run that was killed is cleaned up by the next one), then its
 * submodules from the local clones of them. The user's working tree, index and branches are left
 * alone. The caller removes it (also on failure and cancellation); a second Ctrl-C or an editor
 * shutting down removes it at once.
 */
export async function checkoutRevision(cwd: string, rev: string, logger: Logger): Promise<Worktree> {
  const repoRoot = await repositoryRoot(cwd);
  if (!repoRoot) throw invalidOption(`Running revision ${rev} needs a git repository, but ${cwd} is not inside one: run Hotpath in the repository's folder (or give --cwd).`);
  const sha = await resolveCommit(repoRoot, rev);
  const commonDir = await commonGitDir(repoRoot);
  // What killed runs left: their folders (any repository), and this repository's entries of folders gone since.
  removeStaleFiles(logger);
  const pruned = pruneGoneHotpathWorktrees(commonDir);
  if (pruned.length) logger.info(`Removed the worktree entries of ${pruned.join(', ')}, left by earlier Hotpath runs (their folders were gone).`);

  const holder = ownedTempDir(`hotpath-base-${sha.slice(0, 8)}-`);
  const root = path.join(holder, 'tree');
  let removed = false;
  const removeNow = () => {
    if (removed) return;
    removed = true;
    removeWorktreeSync(root, commonDir);
    fs.rmSync(holder, { recursive: true, force: true });
  };
  const emergency = onEmergencyStop(removeNow);
  try {
    // A failure half-way (a post-checkout hook, a smudge filter) leaves an entry: removed with the folder below.
    await git(['worktree', 'add', '--detach', root, sha], repoRoot, 300_000);
    await checkoutSubmodules(repoRoot, commonDir, root, logger);
  } catch (err) {
    emergency.dispose();
    removeNow();
    throw err;
  }
  logger.info(`Checked out ${rev} (${sha.slice(0, 10)}) in ${root}`);
  return {
    root, repoRoot, sha,
    async remove() {
      if (removed) return;
      removed = true;
      emergency.dispose();
      await removeWorktree(root, commonDir).catch((err) => logger.warn(`Removing the worktree ${root}: ${(err as Error).message}`));
      await fs.promises.rm(holder, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/** Nested submodules are followed this deep. */
const SUBMODULE_DEPTH = 8;

/** The git folder of a checkout at `dir` (its `.git` folder, or where its `.git` file points); undefined if none. */
function gitDirOf(dir: string): string | undefined {
  const dotGit = path.join(dir, '.git');
  try {
    if (fs.statSync(dotGit).isDirectory()) return dotGit;
    const link = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    return link ? path.resolve(dir, link) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `git worktree add` leaves submodules as empty folders. Each submodule the checked-out revision
 * declares is cloned from the user's own clone of it — checked out at `<sourceTree>/<path>`, else kept
 * in `<sourceGitDir>/modules/<name>` — with no network, and checked out at the commit the revision
 * pins; nested ones likewise. A submodule the working tree has not initialised either is left out on
 * both sides; one whose pinned commit the local clone lacks is an error that says how to fetch it.
 */
async function checkoutSubmodules(sourceTree: string, sourceGitDir: string, tree: string, logger: Logger, depth = 0): Promise<void> {
  const declared = path.join(tree, '.gitmodules');
  if (depth > SUBMODULE_DEPTH || !fs.existsSync(declared)) return;
  const lines = await git(['config', '-f', declared, '--get-regexp', '^submodule\\..*\\.path$'], tree).catch(() => '');
  for (const line of lines.split('\n').filter(Boolean)) {
    const m = /^submodule\.(.+)\.path (.+)$/.exec(line);
    if (!m) continue;
    const [, name, sub] = m;
    // Only a gitlink at that path is a submodule of this revision (.gitmodules can be stale).
    const entry = /^160000 commit ([0-9a-f]{40,64})\t/.exec(await git(['ls-tree', 'HEAD', '--', sub], tree).catch(() => ''));
    if (!entry) continue;
    const pinned = entry[1];
    const checkedOut = gitDirOf(path.join(sourceTree, sub));
    const kept = path.join(sourceGitDir, 'modules', name);
    const from = checkedOut ?? (fs.existsSync(path.join(kept, 'HEAD')) ? kept : undefined);
    if (!from) {
      logger.info(`Submodule ${sub}: not initialised in ${sourceTree} either, so it is left out of the worktree too (both sides run without it).`);
      continue;
    }
    const dest = path.join(tree, sub);
    fs.mkdirSync(dest, { recursive: true });
    // --shared: the clone borrows the local objects (nothing copied, nothing fetched).
    await git(['clone', '--quiet', '--no-checkout', '--shared', from, dest], tree, 300_000);
    try {
      await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', pinned], dest, 300_000);
    } catch (err) {
      throw new HotpathError(ErrorCode.TargetSpawnFailed,
        `Submodule ${sub} could not be checked out at ${pinned.slice(0, 10)}, the commit this revision pins: your local clone of it (${from}) does not have it. Fetch it (\`git -C ${sub} fetch\`, or \`git submodule update --init --recursive\` at that revision) and run again. (${(err as Error).message.trim().split('\n').slice(-1)[0]})`);
    }
    logger.info(`Submodule ${sub} checked out at ${pinned.slice(0, 10)} from ${from}`);
    await checkoutSubmodules(path.join(sourceTree, sub), from, dest, logger, depth + 1);
  }
}

/** A path inside the repository (also through a symlink), as the same path inside the worktree; other paths unchanged. */
export function inWorktree(file: string, wt: Pick<Worktree, 'root' | 'repoRoot'>): string {
  if (!path.isAbsolute(file)) return file;
  const rel = repositoryRelative(wt.repoRoot, file);
  return rel === undefined ? file : path.join(wt.root, rel);
}
