/**
 * Worktree entries are removed one by one, never with `git worktree prune`: an entry of a Hotpath
 * worktree whose folder is gone is removed; the user's own worktrees (even prunable ones) and a
 * locked entry are left alone.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { adminDirOf, pruneGoneHotpathWorktrees, removeWorktreeSync } from '../../../src/core/variants/worktreeEntry';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

describe('worktree entries', () => {
  let repo: string;
  const made: string[] = [];
  beforeEach(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-wt-repo-'));
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
  });
  afterEach(() => { for (const d of [repo, ...made.splice(0)]) fs.rmSync(d, { recursive: true, force: true }); });

  const add = (tree: string) => { made.push(path.dirname(tree)); git(repo, 'worktree', 'add', '-q', '--detach', tree, 'HEAD'); return tree; };
  const listed = () => git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice(9)).slice(1);
  const commonDir = () => path.join(repo, '.git');

  it('prunes only Hotpath\'s gone worktrees: the user\'s prunable one and a locked one stay', () => {
    const user = add(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'users-own-')), 'wt'));
    const ours = add(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-base-0000-')), 'tree'));
    const locked = add(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-base-1111-')), 'tree'));
    git(repo, 'worktree', 'lock', locked);
    for (const tree of [user, ours, locked]) fs.rmSync(tree, { recursive: true, force: true });
    assert.deepEqual(pruneGoneHotpathWorktrees(commonDir()), [ours]);
    assert.deepEqual(listed().sort(), [user, locked].sort());
  });

  it('removes one worktree and its entry, found from its .git file or by searching', () => {
    const tree = add(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-base-2222-')), 'tree'));
    const admin = adminDirOf(tree);
    assert.ok(admin && fs.existsSync(path.join(admin, 'gitdir')));
    fs.rmSync(path.join(tree, '.git')); // e.g. a checkout that failed before writing it
    assert.equal(adminDirOf(tree, commonDir()), admin, 'found by its back-pointer');
    removeWorktreeSync(tree, commonDir());
    assert.equal(fs.existsSync(tree), false);
    assert.deepEqual(listed(), []);
  });
});
