import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, runCli } from '../helpers/cli';

/**
 * verify against a baseline recorded at another commit points to the interleaved comparison. No
 * verdict is asserted (exit 0 or 3, any verdict): only what verify says about the two commits, so this
 * file runs in the shared lane (it was part of baseline.test.ts, whose verdicts keep it measured).
 */
describe('hotpath verify across commits', function () {
  this.timeout(180_000);

  it('verify against a baseline of another commit offers the interleaved comparison (CLI and JSON)', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bl-git-'));
    try {
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
      fs.copyFileSync(path.join(APPS, 'hot-server.js'), path.join(repo, 'server.js'));
      fs.writeFileSync(path.join(repo, '.gitignore'), '.hotpath/\n');
      git('init', '-q');
      git('add', '-A');
      git('commit', '-qm', 'one');
      const sha = git('rev-parse', 'HEAD');
      const quick = ['--duration', '1', '--warmup', '1', '--connections', '2', '--runs', '2', '--name', 'rev'];
      const base = await runCli(['baseline', ...quick, '--cwd', repo, '--', 'node', 'server.js'], { cwd: repo });
      assert.equal(base.code, 0, base.stderr);
      fs.appendFileSync(path.join(repo, 'server.js'), '\n// a change after the baseline\n');
      const run = await runCli(['verify', ...quick, '--cwd', repo, '--', 'node', 'server.js'], { cwd: repo });
      assert.ok(run.code === 0 || run.code === 3, run.stderr);
      assert.match(run.stdout, new RegExp(`recorded at commit ${sha.slice(0, 10)} and the working tree has uncommitted changes`));
      assert.ok(run.stdout.includes(`hotpath compare --base ${sha.slice(0, 12)} --duration 1 --warmup 1 --connections 2 --cwd ${repo} -- node server.js`), run.stdout);
      const json = await runCli(['verify', ...quick, '--json', '--cwd', repo, '--', 'node', 'server.js'], { cwd: repo });
      assert.deepEqual(json.json().interleavedCompare, { base: sha, baselineDirty: false, currentCommit: sha, currentDirty: true });
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});
