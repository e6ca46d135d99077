import { execFile } from 'node:child_process';
import { ErrorCode, HotpathError } from '../common/errors';

/** Runs git in `cwd`; resolves stdout, rejects with git's own message (what it says is the useful part). */
export function git(args: string[], cwd: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new HotpathError(ErrorCode.InvalidOption, missing
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
