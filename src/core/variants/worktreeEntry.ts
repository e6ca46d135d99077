/**
 * A temporary worktree's entry in its repository, removed without running git: synchronously (a second
 * Ctrl-C, an editor shutting down, the next run sweeping up after a killed one) and for exactly one
 * worktree. A linked worktree is a folder whose `.git` file names its admin folder,
 * `<common git dir>/worktrees/<id>`, whose `gitdir` file points back at that `.git` file
 * (gitrepository-layout(5)); removing both is what `git worktree remove` does, and removing the admin
 * folder of a worktree whose folder is gone is what `git worktree prune` does — for that one entry,
 * never for worktrees the user made.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const read = (file: string): string | undefined => { try { return fs.readFileSync(file, 'utf8'); } catch { return undefined; } };
const real = (p: string): string => { try { return fs.realpathSync(p); } catch { return path.resolve(p); } };

/** Does the admin folder's `gitdir` point at `<tree>/.git`? (Paths compared as written and resolved.) */
function pointsAt(admin: string, tree: string): boolean {
  const back = read(path.join(admin, 'gitdir'))?.trim();
  if (!back) return false;
  const want = path.join(tree, '.git');
  return path.resolve(back) === path.resolve(want) || real(path.dirname(back)) === real(tree);
}

/** The admin folder of the worktree at `tree`: from its `.git` file, else by searching `commonDir`'s worktrees. */
export function adminDirOf(tree: string, commonDir?: string): string | undefined {
  const link = /^gitdir:\s*(.+)$/m.exec(read(path.join(tree, '.git')) ?? '')?.[1]?.trim();
  if (link) {
    const admin = path.resolve(tree, link);
    if (path.basename(path.dirname(admin)) === 'worktrees' && pointsAt(admin, tree)) return admin;
  }
  if (!commonDir) return undefined;
  const worktrees = path.join(commonDir, 'worktrees');
  let ids: string[] = [];
  try { ids = fs.readdirSync(worktrees); } catch { return undefined; }
  return ids.map((id) => path.join(worktrees, id)).find((admin) => pointsAt(admin, tree));
}

// An install killed a moment ago may still be letting go of files in the tree: retry a few times.
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 50 } as const;

/** Removes the worktree folder and its entry (found before the folder goes). Idempotent. */
export function removeWorktreeSync(tree: string, commonDir?: string): void {
  const admin = adminDirOf(tree, commonDir);
  try { fs.rmSync(tree, RM); } finally { if (admin) fs.rmSync(admin, RM); }
}

/** The same without blocking the thread on a large tree (an installed node_modules). */
export async function removeWorktree(tree: string, commonDir?: string): Promise<void> {
  const admin = adminDirOf(tree, commonDir);
  try { await fs.promises.rm(tree, RM); } finally { if (admin) await fs.promises.rm(admin, RM); }
}

/** Is `tree` the worktree folder of a Hotpath run (`<tmpdir>/hotpath-base-*` or its `tree`)? */
export function isHotpathWorktreePath(tree: string, tmp = os.tmpdir()): boolean {
  const dir = path.basename(tree) === 'tree' ? path.dirname(tree) : tree;
  return path.basename(dir).startsWith('hotpath-base-') && real(path.dirname(dir)) === real(tmp);
}

/**
 * Entries of this repository for Hotpath worktrees whose folder is gone (removed by a sweep that could
 * not reach the repository, or by the system cleaning its temporary directory). An entry locked by
 * the user (`git worktree lock`) is left alone. Returns the folders whose entries were removed.
 */
export function pruneGoneHotpathWorktrees(commonDir: string): string[] {
  const worktrees = path.join(commonDir, 'worktrees');
  let ids: string[] = [];
  try { ids = fs.readdirSync(worktrees); } catch { return []; }
  const pruned: string[] = [];
  for (const id of ids) {
    const admin = path.join(worktrees, id);
    const back = read(path.join(admin, 'gitdir'))?.trim();
    if (!back || path.basename(back) !== '.git') continue;
    const tree = path.dirname(back);
    if (fs.existsSync(back) || !isHotpathWorktreePath(tree) || fs.existsSync(path.join(admin, 'locked'))) continue;
    fs.rmSync(admin, { recursive: true, force: true });
    pruned.push(tree);
  }
  return pruned;
}
