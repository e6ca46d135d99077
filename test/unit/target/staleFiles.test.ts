/**
 * The sweep each run makes of what killed runs left (src/core/target/staleFiles.ts), in a temporary
 * directory of its own: only folders whose owner is dead (or, without an owner file, a day old) go,
 * with the git worktree entry and the processes they stand for; a live run's folders, other users'
 * and other names, and symlinks are never touched.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeStaleFiles } from '../../../src/core/target/staleFiles';
import { isRunning } from '../../../src/core/target/processTree';

const deadPid = () => Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim());
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

describe('removing what killed runs left', () => {
  let tmp: string;
  let repo: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-sweep-'));
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-sweep-repo-'));
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
  });
  afterEach(() => { fs.rmSync(tmp, { recursive: true, force: true }); fs.rmSync(repo, { recursive: true, force: true }); });

  const folder = (name: string, owner?: number) => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir);
    if (owner !== undefined) fs.writeFileSync(path.join(dir, 'owner.pid'), String(owner));
    return dir;
  };
  const worktree = (name: string, owner: number) => {
    const tree = path.join(folder(name, owner), 'tree');
    git(repo, 'worktree', 'add', '-q', '--detach', tree, 'HEAD');
    return tree;
  };
  const entries = () => git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice(9));

  it('removes dead owners\' folders of each kind, keeps live ones, young unowned ones, other names and symlinks', () => {
    const dead = deadPid();
    const keep = [folder('hotpath-target-live', process.pid), folder('hotpath-bench-young'), folder('hotpath-other-kind', dead), folder('not-hotpath', dead)];
    const gone = [folder('hotpath-target-dead', dead), folder('hotpath-bench-dead', dead), folder('hotpath-node-dead', dead)];
    const old = folder('hotpath-node-old');
    const dayAndAHalf = (Date.now() - 36 * 3600 * 1000) / 1000;
    fs.utimesSync(old, dayAndAHalf, dayAndAHalf);
    gone.push(old);
    fs.symlinkSync(path.join(tmp, 'hotpath-target-dead'), path.join(tmp, 'hotpath-target-link'));
    const removed = removeStaleFiles(undefined, tmp);
    assert.deepEqual(removed.filter((r) => r.startsWith(tmp)).sort(), gone.sort());
    for (const dir of keep) assert.ok(fs.existsSync(dir), dir);
    assert.ok(fs.lstatSync(path.join(tmp, 'hotpath-target-link')).isSymbolicLink(), 'a symlink is never followed or removed');
  });

  it('a dead run\'s worktree goes with its entry in the repository; a live run\'s stays', () => {
    const live = worktree('hotpath-base-live', process.pid);
    const dead = worktree('hotpath-base-dead', deadPid());
    assert.equal(entries().length, 3);
    removeStaleFiles(undefined, tmp);
    assert.equal(fs.existsSync(dead), false);
    assert.ok(fs.existsSync(live));
    assert.deepEqual(entries().slice(1), [fs.realpathSync(live)], 'only the live run\'s entry is left');
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').includes('prunable'), false);
  });

  it('stops processes still carrying a dead run\'s target variable (a daemon without the preload)', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = folder('hotpath-target-dead', deadPid());
    const daemon = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore', env: { ...process.env, HOTPATH_REPORT_FILE: path.join(dir, 'reports.jsonl') } });
    const neighbour = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore', env: { ...process.env, HOTPATH_REPORT_FILE: path.join(tmp, 'hotpath-target-other', 'reports.jsonl') } });
    const spawned = Promise.all([daemon, neighbour].map((c) => new Promise((r) => c.once('spawn', r))));
    try {
      await spawned;
      removeStaleFiles(undefined, tmp);
      await new Promise((r) => daemon.once('exit', r));
      assert.equal(daemon.signalCode, 'SIGKILL');
      assert.ok(isRunning(neighbour.pid!), 'a process of another run is left alone');
    } finally {
      daemon.kill('SIGKILL');
      neighbour.kill('SIGKILL');
    }
  });
});
