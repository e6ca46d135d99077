/**
 * Paths of the working tree as the same paths of a revision's worktree. git names the repository by its
 * real path, so a folder reached through a symlink (a symlinked checkout, a VS Code folder opened
 * through a link, `--cwd ~/link`) is matched by where it really is, not by how it was spelled —
 * otherwise it is "outside the repository", left as it is, and the revision's side runs the working tree.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `file` with every existing folder on its way resolved to its real path (the part that does not exist yet kept as spelled). */
function realFolders(file: string): string {
  const rest: string[] = [];
  let dir = file;
  for (;;) {
    try { return path.join(fs.realpathSync(dir), ...rest); } catch { /* not there: try the parent */ }
    const parent = path.dirname(dir);
    if (parent === dir) return file;
    rest.unshift(path.basename(dir));
    dir = parent;
  }
}

const inside = (root: string, file: string): string | undefined => {
  const rel = path.relative(root, file);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? undefined : rel;
};

/**
 * Where `file` (absolute) is in the repository, relative to its root; undefined outside it. Tried as
 * spelled, then with its folders' real paths (a symlink as the last part stays a symlink: git checks
 * it out as one), then as the real path of the file itself.
 */
export function repositoryRelative(repoRoot: string, file: string): string | undefined {
  const root = realFolders(repoRoot);
  const abs = path.resolve(file);
  const direct = inside(repoRoot, abs) ?? inside(root, abs);
  if (direct !== undefined) return direct;
  const viaFolders = inside(root, path.join(realFolders(path.dirname(abs)), path.basename(abs)));
  if (viaFolders !== undefined) return viaFolders;
  try { return inside(root, fs.realpathSync(abs)); } catch { return undefined; }
}

/** Whether a file is part of an installed package (any `node_modules` folder): a dependency, not the code under test. */
export function inPackage(file: string): boolean {
  return file.split(/[\\/]/).includes('node_modules');
}

/** The real path of a file, or the path as given when it does not exist. */
export function realPath(file: string): string {
  try { return fs.realpathSync(file); } catch { return file; }
}
