import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invalidOption } from '../common/errors';
import type { Logger } from '../common/logger';
import { git, repositoryRoot, unknownRevisionMessage } from './git';
import { repositoryRelative } from './paths';

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

/**
 * `git worktree add --detach` of the revision into a temporary folder: the user's working tree, index
 * and branches are left alone. The caller removes it (also on failure and cancellation).
 */
export async function checkoutRevision(cwd: string, rev: string, logger: Logger): Promise<Worktree> {
  const repoRoot = await repositoryRoot(cwd);
  if (!repoRoot) throw invalidOption(`Running revision ${rev} needs a git repository, but ${cwd} is not inside one: run Hotpath in the repository's folder (or give --cwd).`);
  const sha = await resolveCommit(repoRoot, rev);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-base-${sha.slice(0, 8)}-`));
  try {
    await git(['worktree', 'add', '--detach', root, sha], repoRoot, 300_000);
  } catch (err) {
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
  logger.info(`Checked out ${rev} (${sha.slice(0, 10)}) in ${root}`);
  let removed = false;
  return {
    root, repoRoot, sha,
    async remove() {
      if (removed) return;
      removed = true;
      await git(['worktree', 'remove', '--force', root], repoRoot).catch((err) => logger.warn(`git worktree remove: ${err.message}`));
      fs.rmSync(root, { recursive: true, force: true });
      await git(['worktree', 'prune'], repoRoot).catch(() => undefined);
    },
  };
}

/** A path inside the repository (also through a symlink), as the same path inside the worktree; other paths unchanged. */
export function inWorktree(file: string, wt: Pick<Worktree, 'root' | 'repoRoot'>): string {
  if (!path.isAbsolute(file)) return file;
  const rel = repositoryRelative(wt.repoRoot, file);
  return rel === undefined ? file : path.join(wt.root, rel);
}
