/**
 * `compare --base` in a repository with a submodule (a local-path one: no network here or in the
 * product): the temporary worktree gets the submodule at the commit the base revision pins, cloned
 * from the user's own clone of it; a pinned commit that clone lacks is a clear error; a submodule the
 * user never initialised is left out on both sides.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../helpers/cli';

const RUN = ['--script', '--pairs', '2', '--no-profile', '--json'];

describe('compare --base: submodules in the temporary worktree', function () {
  this.timeout(180_000);
  let root: string;
  let app: string;
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8' }).trim();
  const linked = (dir: string) => git(dir, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length - 1;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-sub-'));
    const lib = path.join(root, 'lib-src');
    fs.mkdirSync(lib);
    git(lib, 'init', '-q');
    const version = (v: string) => { fs.writeFileSync(path.join(lib, 'index.js'), `module.exports = () => '${v}';\n`); git(lib, 'add', '-A'); git(lib, 'commit', '-qm', v); return git(lib, 'rev-parse', 'HEAD'); };
    const v1 = version('lib v1');
    version('lib v2');
    app = path.join(root, 'app');
    fs.mkdirSync(app);
    git(app, 'init', '-q');
    // Each side writes what its submodule says into the file its OUT names.
    fs.writeFileSync(path.join(app, 'script.js'), "require('node:fs').appendFileSync(process.env.OUT, require('./lib')() + '\\n');\n");
    git(app, 'submodule', 'add', '-q', lib, 'lib');
    git(path.join(app, 'lib'), 'checkout', '-q', v1);
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'app with lib v1');
    git(path.join(app, 'lib'), 'checkout', '-q', 'master');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'app with lib v2');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('side A runs the submodule at the commit its revision pins, from the local clone', async () => {
    const out = { a: path.join(root, 'a.txt'), b: path.join(root, 'b.txt') };
    const run = await runCli(['compare', '--base', 'HEAD~1', ...RUN, '--env-a', `OUT=${out.a}`, '--env-b', `OUT=${out.b}`, '--cwd', app, '--', 'node', 'script.js'], { cwd: app });
    assert.ok(run.code === 0 || run.code === 3, run.stderr);
    assert.deepEqual([...new Set(fs.readFileSync(out.a, 'utf8').trim().split('\n'))], ['lib v1'], 'HEAD~1 pins lib v1');
    assert.deepEqual([...new Set(fs.readFileSync(out.b, 'utf8').trim().split('\n'))], ['lib v2'], 'the working tree has lib v2');
    assert.equal(linked(app), 0, 'the worktree is removed, submodule and all');
    assert.equal(git(app, 'status', '--porcelain'), '');
  });

  it('a pinned commit the local clone does not have: a clear error that says how to fetch it, and nothing left', async () => {
    const missing = '0123456789abcdef0123456789abcdef01234567';
    git(app, 'update-index', '--cacheinfo', `160000,${missing},lib`);
    git(app, 'commit', '-qm', 'pins a commit nobody has');
    const pinned = git(app, 'rev-parse', 'HEAD');
    git(app, 'reset', '-q', 'HEAD~1'); // the working tree is back at v2; the commit stays as the base
    try {
      const run = await runCli(['compare', '--base', pinned, ...RUN, '--env', `OUT=${path.join(root, 'x.txt')}`, '--cwd', app, '--', 'node', 'script.js'], { cwd: app });
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /Submodule lib could not be checked out at 0123456789, the commit this revision pins: your local clone of it \(.*\) does not have it\. Fetch it \(`git -C lib fetch`, or `git submodule update --init --recursive` at that revision\) and run again/);
      assert.equal(linked(app), 0, 'no worktree entry is left');
    } finally {
      git(app, 'checkout', '-q', '--', '.');
    }
  });

  it('a submodule the working tree never initialised is left out on both sides, without an error', async () => {
    const clone = path.join(root, 'clone');
    git(root, 'clone', '-q', app, clone); // no --recurse-submodules: lib is an empty folder
    const run = await runCli(['compare', '--base', 'HEAD~1', ...RUN, '--cwd', clone, '--', 'node', '-e', "require('node:fs').readdirSync('lib')"], { cwd: clone });
    assert.ok(run.code === 0 || run.code === 3, run.stderr);
    assert.equal(linked(clone), 0);
  });
});
