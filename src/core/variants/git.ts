import { execFile } from 'node:child_process';
import { ErrorCode, HotpathError } from '../common/errors';

/**
 * Runs git in `cwd`; resolves stdout, rejects with git's own message (what it says is the useful part).
 * A failure of git is GIT_FAILED (exit 1), not a usage error: a revision the user named wrongly is
 * turned into INVALID_OPTION by the caller that knows it came from the command line.
 */
export function git(args: string[], cwd: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new HotpathError(ErrorCode.GitFailed, missing
        ? 'git is not installed or not on PATH; comparing git revisions needs it.'
        : `git ${args.join(' ')} failed in ${cwd}: ${(stderr || err.message).trim()}`));
    });
  });
}

/** The repository's top folder, or undefined outside a repository. */
export async function repositoryRoot(cwd: string): Promise<string | undefined> {
  try { return (await git(['rev-parse', '--show-toplevel'], cwd)).trim(); } catch { return undefined; }
}

export interface CommitInfo { sha: string; subject: string; author: string; date: string }

/** Recent commits of HEAD, newest first (for a picker). */
export async function recentCommits(cwd: string, count = 30): Promise<CommitInfo[]> {
  const out = await git(['log', `-n${count}`, '--format=%H%x1f%s%x1f%an%x1f%cI'], cwd);
  return out.split('\n').filter(Boolean).map((line) => {
    const [sha, subject, author, date] = line.split('\x1f');
    return { sha, subject, author, date };
  });
}

/** HEAD and whether the working tree has changes (Hotpath's own .hotpath folder excluded). */
export async function workingTreeState(cwd: string): Promise<{ head: string | null; dirty: boolean }> {
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], cwd).then((s) => s.trim() || null, () => null);
  const status = await git(['status', '--porcelain', '--', ':/', ':(exclude).hotpath'], cwd).catch(() => '');
  return { head, dirty: status.trim() !== '' };
}

/** Whether the repository has a commit at all (a fresh `git init` has none). */
export async function hasCommits(cwd: string): Promise<boolean> {
  return git(['rev-parse', '--verify', '-q', 'HEAD'], cwd).then((s) => s.trim() !== '', () => false);
}

/**
 * The tree (the files' content) of a commit: two commits with one tree run the same code, whatever
 * their ids (an empty commit, a revert of a revert, a tag on HEAD).
 */
export async function treeOf(cwd: string, commit: string): Promise<string> {
  return (await git(['rev-parse', '--verify', '-q', `${commit}^{tree}`], cwd)).trim();
}

/**
 * Why `--base REV` named nothing, and what would: a repository with no commits has no revision at all,
 * one with a single commit has no HEAD~1.
 */
export async function unknownRevisionMessage(repoRoot: string, rev: string): Promise<string> {
  const count = Number((await git(['rev-list', '--count', '--max-count=2', 'HEAD'], repoRoot).catch(() => '0')).trim()) || 0;
  if (count === 0) return `--base ${rev}: the repository ${repoRoot} has no commits yet, so there is no revision to compare with. Commit the code first (git add -A && git commit), then compare your changes with it: --base HEAD.`;
  const example = count === 1 ? '--base HEAD (its only commit; your uncommitted changes are side B)' : '--base HEAD~1 or --base main';
  return `--base ${rev}: git knows no such commit in ${repoRoot}. Use a commit id, tag or branch, e.g. ${example}.`;
}
