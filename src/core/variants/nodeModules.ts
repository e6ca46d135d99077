/**
 * A revision's node_modules made from the working tree's, without changing them. Linking the whole
 * folder is not enough in a monorepo: npm, pnpm and yarn workspaces (and `file:` dependencies) are links
 * back into the repository (`node_modules/mylib -> ../packages/lib`), which would resolve into the
 * working tree, and the revision would run today's workspace packages. So the folder is rebuilt entry
 * by entry: links into the repository point at the same folder of the worktree, everything else
 * (registry packages, pnpm's store) is linked — or copied, when the side's `--prepare` may write into it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, throwIfCancelled } from '../common/cancellation';
import { inPackage } from './paths';

export type MirrorMode = 'link' | 'copy';

export interface MirrorResult {
  /** Links into the repository that now point into the worktree: `node_modules/mylib` → `packages/lib` (relative to the roots). */
  relinked: Array<{ link: string; target: string }>;
  /** Of those, targets the revision does not have (a workspace package added since). */
  absent: string[];
}

interface Roots { working: string; worktree: string }

const insideRel = (root: string, file: string): string | undefined => {
  const rel = path.relative(root, file);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? undefined : rel;
};

const dirLink = (target: string, link: string) => fs.symlinkSync(target, link, 'junction');

async function copyEntry(from: string, to: string): Promise<void> {
  // A reflink where the file system has them (btrfs, XFS, APFS), a plain copy elsewhere; links inside
  // stay links (pnpm's store is made of relative ones, which then resolve inside the copy).
  await fs.promises.cp(from, to, { recursive: true, verbatimSymlinks: true, mode: fs.constants.COPYFILE_FICLONE, force: true });
}

/** Where one node_modules folder is being rebuilt, and what has been found so far. */
interface Mirror {
  roots: Roots;
  mode: MirrorMode;
  result: MirrorResult;
  token: CancellationToken;
  /** Folders (relative to the roots) whose node_modules are rebuilt in the worktree. */
  mirrored: Set<string>;
}

const exists = (file: string) => { try { fs.lstatSync(file); return true; } catch { return false; } };

/** The folder whose node_modules hold `rel` (`node_modules/.pnpm/x` → ``, `packages/lib/node_modules/y` → `packages/lib`). */
const ownerOf = (rel: string) => { const parts = rel.split(path.sep); return parts.slice(0, parts.indexOf('node_modules')).join(path.sep); };

/**
 * One symlink of the working tree's node_modules, recreated at `dst`. A workspace package or `file:`
 * dependency (a target in the repository outside node_modules) points at the worktree's copy of that
 * folder; a target in node_modules that are rebuilt too (pnpm's `.pnpm/…` store) at its rebuilt
 * counterpart; anything else (another package folder, a global `npm link`) stays where it is.
 */
function relink(src: string, dst: string, m: Mirror): void {
  const target = path.resolve(path.dirname(src), fs.readlinkSync(src));
  const rel = insideRel(m.roots.working, target);
  if (rel !== undefined && !inPackage(rel)) {
    const mapped = path.join(m.roots.worktree, rel);
    dirLink(mapped, dst);
    m.result.relinked.push({ link: path.relative(m.roots.worktree, dst), target: rel });
    m.mirrored.add(rel);
    if (!fs.existsSync(mapped)) m.result.absent.push(rel);
    return;
  }
  dirLink(rel !== undefined && m.mirrored.has(ownerOf(rel)) ? path.join(m.roots.worktree, rel) : target, dst);
}

/** `.bin`: each command re-created with the same relative link, so it resolves among the rebuilt packages. */
function mirrorBin(from: string, to: string, m: Mirror): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isSymbolicLink()) {
      const text = fs.readlinkSync(src);
      if (path.isAbsolute(text)) relink(src, dst, m);
      else fs.symlinkSync(text, dst);
    } else if (e.isFile()) fs.copyFileSync(src, dst); // Windows' .cmd shims
  }
}

async function mirrorEntries(from: string, to: string, m: Mirror, scope = false): Promise<void> {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    throwIfCancelled(m.token);
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (exists(dst)) continue; // committed into the revision: its own
    if (e.isSymbolicLink()) relink(src, dst, m);
    else if (e.isDirectory() && e.name === '.bin' && !scope) mirrorBin(src, dst, m);
    else if (e.isDirectory() && e.name.startsWith('@') && !scope) await mirrorEntries(src, dst, m, true);
    else if (e.isDirectory()) { if (m.mode === 'copy') await copyEntry(src, dst); else dirLink(src, dst); }
    // Small files (npm's .package-lock.json, pnpm's .modules.yaml) are copied: nothing the side does reaches the user's.
    else if (e.isFile()) fs.copyFileSync(src, dst);
  }
}

/**
 * Makes `<worktree>/<dir>/node_modules` for each of `dirs` (relative to the roots) from the working
 * tree's, then does the same for the workspace packages its links lead to (their own node_modules:
 * pnpm keeps every package's dependencies there, npm the ones it could not hoist).
 */
export async function mirrorNodeModules(dirs: string[], roots: Roots, mode: MirrorMode, token: CancellationToken): Promise<MirrorResult> {
  const result: MirrorResult = { relinked: [], absent: [] };
  const queue = [...dirs];
  const done = new Set<string>();
  const mirrored = new Set(dirs);
  while (queue.length) {
    const dir = queue.shift()!;
    if (done.has(dir)) continue;
    done.add(dir);
    const from = path.join(roots.working, dir, 'node_modules');
    if (!fs.existsSync(from) || !fs.existsSync(path.join(roots.worktree, dir))) continue;
    const seen = result.relinked.length;
    await mirrorEntries(from, path.join(roots.worktree, dir, 'node_modules'), { roots, mode, result, token, mirrored });
    for (const { target } of result.relinked.slice(seen)) queue.push(target);
  }
  return result;
}
