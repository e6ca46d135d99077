import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compareCommandFor, interleavedHint } from '../../../src/cli/compareHint';
import { parsePsTime } from '../../../src/core/measure/processCpu';
import { planDependencies, provideDependencies } from '../../../src/core/variants/dependencies';
import { revisionLabel, sideCommand } from '../../../src/core/variants/sides';
import { inWorktree } from '../../../src/core/variants/worktree';
import { neverCancelled } from '../../../src/core/common/cancellation';
import { silentLogger } from '../../../src/core/common/logger';

describe('comparison sides', () => {
  const runtime = { version: '24.21.0', path: '/cache/node-24/bin/node', source: 'hotpath-cache' as const };

  it('runs `node …` on the side\'s runtime, puts its folder first on PATH, and node flags after node', () => {
    const r = sideCommand(['node', 'server.js'], { PATH: '/usr/bin' }, runtime, ['--max-semi-space-size=64']);
    assert.deepEqual(r.command, ['/cache/node-24/bin/node', '--max-semi-space-size=64', 'server.js']);
    assert.equal(r.env.PATH, ['/cache/node-24/bin', '/usr/bin'].join(path.delimiter));
  });

  it('wrappers (npm start) get the runtime through PATH and node flags through NODE_OPTIONS', () => {
    const r = sideCommand(['npm', 'start'], { PATH: '/usr/bin', NODE_OPTIONS: '--enable-source-maps' }, runtime, ['--no-opt']);
    assert.deepEqual(r.command, ['npm', 'start']);
    assert.equal(r.env.NODE_OPTIONS, '--enable-source-maps --no-opt');
    assert.ok(r.env.PATH!.startsWith('/cache/node-24/bin'));
    assert.deepEqual(sideCommand(['node', 'a.js'], {}, undefined, []).command, ['node', 'a.js']);
  });

  it('maps paths inside the repository into the worktree and leaves others alone', () => {
    const wt = { root: '/tmp/wt', repoRoot: '/home/u/app' };
    assert.equal(inWorktree('/home/u/app/server.js', wt), path.join('/tmp/wt', 'server.js'));
    assert.equal(inWorktree('/usr/bin/node', wt), '/usr/bin/node');
    assert.equal(inWorktree('server.js', wt), 'server.js');
  });

  describe('dependencies of a revision', () => {
    let dir: string;
    beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-deps-')); });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };

    it('reuses the working tree\'s node_modules (each package linked) when the lock file is the same', async () => {
      for (const t of ['work', 'wt']) { write(`${t}/package.json`, '{}'); write(`${t}/package-lock.json`, '{"lockfileVersion":3}'); }
      write('work/node_modules/express/index.js', '');
      const plan = planDependencies(path.join(dir, 'work'), path.join(dir, 'wt'), '');
      assert.equal(plan.action, 'reuse');
      assert.match(plan.reason, /package-lock\.json is the same in both trees/);
      await provideDependencies(plan, path.join(dir, 'work'), path.join(dir, 'wt'), { token: neverCancelled, logger: silentLogger });
      assert.ok(fs.lstatSync(path.join(dir, 'wt/node_modules/express')).isSymbolicLink());
      assert.ok(fs.existsSync(path.join(dir, 'wt/node_modules/express/index.js')));
      // A side that runs --prepare gets a copy instead.
      assert.equal(planDependencies(path.join(dir, 'work'), path.join(dir, 'wt'), '', { writable: true }).action, 'copy');
    });

    it('says why it installs, truthfully: no node_modules to reuse, another kind of lock file, none in the revision', () => {
      const work = path.join(dir, 'work');
      const wt = path.join(dir, 'wt');
      for (const t of ['work', 'wt']) { write(`${t}/package.json`, '{}'); write(`${t}/package-lock.json`, '{"lockfileVersion":3}'); }
      // The same lock file, but nothing installed in the working tree: not "differs".
      const same = planDependencies(work, wt, '');
      assert.equal(same.action, 'install');
      assert.equal(same.reason, 'package-lock.json is the same in both trees, but the working tree has no node_modules to reuse');
      assert.deepEqual(same.command, ['npm', 'ci', '--no-audit', '--no-fund']);
      // The revision used yarn, the working tree npm: the revision's own package manager installs it.
      fs.rmSync(path.join(wt, 'package-lock.json'));
      write('wt/yarn.lock', '# yarn');
      write('work/node_modules/x/index.js', '');
      const kinds = planDependencies(work, wt, '');
      assert.equal(kinds.reason, 'the revision has yarn.lock, the working tree package-lock.json');
      assert.deepEqual(kinds.command, ['yarn', 'install', '--frozen-lockfile']);
      // No lock file in the revision: its package.json's packageManager decides.
      fs.rmSync(path.join(wt, 'yarn.lock'));
      write('wt/package.json', JSON.stringify({ packageManager: 'pnpm@9.1.0' }));
      const none = planDependencies(work, wt, '');
      assert.equal(none.reason, 'the revision has no lock file at the repository root (the working tree has package-lock.json)');
      assert.deepEqual(none.command, ['pnpm', 'install']);
      // Only the revision has one.
      const back = planDependencies(wt, work, '');
      assert.equal(back.reason, 'the working tree has no lock file at the repository root (the revision has package-lock.json)');
    });

    it('installs with the lock file\'s package manager when it differs (the monorepo root\'s lock decides)', () => {
      write('work/package.json', '{}'); write('work/pnpm-lock.yaml', 'a: 1');
      write('wt/package.json', '{}'); write('wt/pnpm-lock.yaml', 'a: 2');
      write('work/apps/api/package.json', '{}'); write('wt/apps/api/package.json', '{}');
      const plan = planDependencies(path.join(dir, 'work'), path.join(dir, 'wt'), path.join('apps', 'api'));
      assert.equal(plan.action, 'install');
      assert.deepEqual(plan.command, ['pnpm', 'install', '--frozen-lockfile']);
      assert.deepEqual(plan.dirs, ['']);
      assert.match(plan.reason, /pnpm-lock\.yaml differs/);
      write('wt2/package.json', '{"dependencies":{"a":"1"}}'); write('work2/package.json', '{}');
      assert.deepEqual(planDependencies(path.join(dir, 'work2'), path.join(dir, 'wt2'), '').command, ['npm', 'install', '--no-audit', '--no-fund']);
      assert.equal(planDependencies(path.join(dir, 'x'), path.join(dir, 'y'), '').action, 'none');
    });
  });

  it('reads ps\'s CPU time formats', () => {
    assert.equal(parsePsTime('0:01.50'), 1500);
    assert.equal(parsePsTime('01:02:03'), 3_723_000);
    assert.equal(parsePsTime('1-00:00:00'), 86_400_000);
    assert.equal(parsePsTime('n/a'), null);
  });

  it('after a verify against an older commit: the same command line as an interleaved compare', () => {
    assert.equal(
      compareCommandFor(['verify', '--name', 'api', '--runs', '5', '--json', '--duration', '5', '--env', 'NODE_ENV=production', '--', 'node', 'server.js', 'a b'], '0123456789abcdef0123'),
      "hotpath compare --base 0123456789ab --duration 5 --env NODE_ENV=production -- node server.js 'a b'",
    );
    assert.match(interleavedHint({ base: 'abcdef1234567', baselineDirty: false, currentCommit: 'abcdef1234567', currentDirty: true }), /recorded at commit abcdef1234 and the working tree has uncommitted changes/);
    assert.match(interleavedHint({ base: 'abc', baselineDirty: true, currentCommit: 'def', currentDirty: false }), /the baseline itself had uncommitted changes/);
  });
});

describe('revisionLabel: a revision as the user named it', () => {
  const sha = 'c2b85b3f0e1d2c3b4a5968778695a4b3c2d1e0f9';
  it('a name keeps its name, with the commit', () => {
    assert.equal(revisionLabel('HEAD~1', sha), 'HEAD~1 (c2b85b3)');
    assert.equal(revisionLabel('origin/main', sha), 'origin/main (c2b85b3)');
  });
  it('a short hex name that happens to start the commit id is still a name (a tag "c2" on commit c2b85b3…)', () => {
    assert.equal(revisionLabel('c2', sha), 'c2 (c2b85b3)');
    assert.equal(revisionLabel('c2b8', sha), 'c2b8 (c2b85b3)');
  });
  it('a commit id (7 to 40 hex digits, any case) reads as its short form', () => {
    assert.equal(revisionLabel('c2b85b3', sha), 'c2b85b3');
    assert.equal(revisionLabel(sha.toUpperCase(), sha), 'c2b85b3');
    assert.equal(revisionLabel('c2b85b4', sha), 'c2b85b4 (c2b85b3)', 'an id of another commit is shown as typed, beside the one it resolved to');
  });
});
