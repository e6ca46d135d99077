/**
 * `hotpath compare` across git revisions (a temporary worktree with its own dependencies) and across
 * Node versions (a script on two runtimes): the sides, the worktree's clean-up, Ctrl-C, and the diff of
 * the two profiles, with one verdict each on a large change (fib(25) against fib(21) per request; three
 * times the work in one function of a script).
 *
 * Shared lane (split from compare.test.ts, whose competitor tests stay measured): in the shared lane the
 * verdicts' deciding metric was 2.0–7.5 (--base) and 2.1–5.8 (--node) half-widths from no change over 5
 * runs, as in the measured lane (2.5–9.1); their comments give each one's chance.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, processesWith, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';
import { logVerdict } from '../helpers/verdicts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const versions = require(path.join(ROOT, 'scripts/ensure-node-versions.js')) as { VERSIONS: Record<string, string>; isInstalled(v: string): boolean; nodeBinary(v: string): string };

const LOAD = ['--duration', '2', '--warmup', '1', '--connections', '4'];

/** A git repository with a local dependency whose cost per request differs between two commits. */
function makeRepo(dir: string): { sha1: string; sha2: string } {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  const write = (file: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
  const dep = (version: string, n: number) => {
    write('vendor/local-dep/package.json', JSON.stringify({ name: 'local-dep', version, main: 'index.js' }));
    write('vendor/local-dep/index.js', `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nexports.cost = () => fib(${n});\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'ignore' });
  };
  git('init', '-q');
  write('.gitignore', 'node_modules/\n.hotpath/\n');
  write('package.json', JSON.stringify({ name: 'rev-app', version: '1.0.0', private: true, dependencies: { 'local-dep': 'file:vendor/local-dep' } }));
  write('server.js', [
    "const http = require('node:http');",
    "const { cost } = require('local-dep');",
    'function handle(req, res) { res.end(String(cost())); }',
    "http.createServer(handle).listen(0, '127.0.0.1');",
  ].join('\n'));
  dep('1.0.0', 25);
  git('add', '-A');
  git('commit', '-qm', 'slow');
  const sha1 = git('rev-parse', 'HEAD');
  dep('2.0.0', 21); // ~7× less work per request; the lock file changes with the version
  git('add', '-A');
  git('commit', '-qm', 'fast');
  return { sha1, sha2: git('rev-parse', 'HEAD') };
}

describe('hotpath compare --base: a git revision from a temporary worktree', function () {
  this.timeout(240_000);
  let dir: string;
  let shas: { sha1: string; sha2: string };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-rev-'));
    shas = makeRepo(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs HEAD~1 (its dependencies installed: the lock file differs) against the working tree, and diffs the profiles', async () => {
    const { sha1, sha2 } = shas;
    const tag = marker();
    const run = await runCli(['compare', '--base', 'HEAD~1', '--pairs', '4', ...LOAD, '--json', '--cwd', dir, '--', 'node', 'server.js', tag], { timeoutMs: 200_000, cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assert.equal(doc.sides[0].gitRev, sha1);
    assert.equal(doc.sides[1].gitRev, sha2);
    assert.match(doc.sides[0].label, /^HEAD~1 \([0-9a-f]{7}\)$/);
    assert.match(doc.sides[0].dependencies, /^installed \(package-lock\.json differs: npm ci/);
    // Chance of failing on a correct product: < 1e-6 — fib(25) against fib(21) per request: at load average
    // 15, 4 pairs measured req/s ×3.8 (4.5 half-widths of its interval from 1) and CPU/req ×0.28 (11.6);
    // one metric past 1 half-width is enough.
    logVerdict('compare --base', doc.comparison);
    assert.equal(doc.comparison.verdict, 'faster', JSON.stringify(doc.comparison.metrics, null, 1));
    // The profiles of both sides: fib matched although the two checkouts live in different folders.
    const fib = doc.diff.functions.find((f: any) => f.function === 'fib');
    assert.ok(fib, `fib in the diff: ${JSON.stringify(doc.diff.functions.slice(0, 5))}`);
    assert.equal(fib.file, 'vendor/local-dep/index.js');
    assert.ok(fib.selfPctBefore > 0 && fib.selfPctAfter > 0, JSON.stringify(fib));
    assert.ok(fs.existsSync(doc.diffHtmlPath));
    const html = fs.readFileSync(doc.diffHtmlPath, 'utf8');
    assert.ok(html.includes(sha1.slice(0, 7)), 'the differential flamegraph names the base revision');
    // The worktree is gone; the repository is as it was.
    assert.equal(execFileSync('git', ['worktree', 'list'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').length, 1);
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }).trim(), '');
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('Ctrl-C mid-comparison stops both sides\' apps and removes the worktree', async () => {
    // No random outcome: the interrupt waits for an app of one side to run (state, not time).
    const tag = marker();
    let interrupted = false;
    const run = await runCli(['compare', '--base', 'HEAD~1', '--pairs', '6', ...LOAD, '--no-profile', '--cwd', dir, '--', 'node', 'server.js', tag], {
      cwd: dir, timeoutMs: 120_000,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          // The CLI's own command line carries the tag too: wait for an app of one side.
          if (processesWith(tag).some((pid) => pid !== child.pid)) { clearInterval(poll); interrupted = true; child.kill('SIGINT'); }
        }, 100);
        child.once('exit', () => clearInterval(poll));
      },
    });
    assert.ok(interrupted, 'an app of the comparison was running when Ctrl-C came');
    assert.equal(run.code, 130, run.stderr);
    assert.deepEqual(await waitForNoProcesses(tag), []);
    assert.equal(execFileSync('git', ['worktree', 'list'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').length, 1, 'the worktree is removed');
  });

  it('says clearly when the revision does not exist, and starts nothing', async () => {
    const tag = marker();
    const run = await runCli(['compare', '--base', 'no-such-branch', '--pairs', '2', '--cwd', dir, '--', 'node', 'server.js', tag], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--base no-such-branch: git knows no such commit/);
    assert.deepEqual(processesWith(tag), []);
  });
});

describe('hotpath compare --node: two Node versions on a script', function () {
  this.timeout(240_000);
  const installed = Object.values(versions.VERSIONS).every((v) => versions.isInstalled(v));
  before(function () { if (!installed || process.env.HOTPATH_NODE_VERSIONS === 'skip') this.skip(); });

  it('report --diff of two --cpu-prof recordings on Node 22 and 24 matches the script\'s functions, not "all new"', async () => {
    // Chance of failing on a correct product: 0 in practice — sumX and steady each run for hundreds of ms
    // on both runtimes (150 rounds), so both have samples on both sides.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-rtdiff-'));
    try {
      const record = (version: string, name: string) => execFileSync(versions.nodeBinary(version), ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', name, path.join(APPS, 'runtime-script.js')]);
      record(versions.VERSIONS['22'], 'n22.cpuprofile');
      record(versions.VERSIONS['24'], 'n24.cpuprofile');
      const run = await runCli(['report', '--json', '--html', path.join(dir, 'd.html'), '--diff', path.join(dir, 'n22.cpuprofile'), path.join(dir, 'n24.cpuprofile')]);
      assert.equal(run.code, 0, run.stderr);
      const byName = new Map(run.json().diff.functions.map((f: any) => [f.function, f]));
      for (const name of ['sumX', 'steady']) {
        const f: any = byName.get(name);
        assert.ok(f && f.selfPctBefore > 0 && f.selfPctAfter > 0, `${name} has time on both sides: ${JSON.stringify(f)}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('times both runtimes interleaved, and the diff matches the function whose share changed on both sides', async () => {
    const tag = marker();
    const run = await runCli(['compare', '--script', '--node', '22', '--node', '24', '--pairs', '10', '--json', '--', 'node', path.join(APPS, 'runtime-script.js'), tag], { timeoutMs: 200_000 });
    assert.ok(run.code === 0 || run.code === 3, run.stderr);
    const doc = run.json();
    assert.match(doc.sides[0].nodeVersion, /^v22\./);
    assert.match(doc.sides[1].nodeVersion, /^v24\./);
    assert.deepEqual(doc.sides.map((s: any) => s.label), [`Node ${doc.sides[0].nodeVersion.slice(1)}`, `Node ${doc.sides[1].nodeVersion.slice(1)}`]);
    assert.ok(doc.comparison.metrics.wallMs && doc.comparison.metrics.cpuMs);
    // Chance of failing on a correct product: about 1e-5 — sumX does 3× the work on Node 24: the script's
    // CPU time ×1.32–1.45 (its wall time moves with the machine: CPU time carries the verdict). With 6
    // pairs, CPU time was 2.1–9.1 half-widths of its interval from 1 over 9 runs (measured lane, shared lane,
    // idle): a log-normal fit (mean log 1.2, sd 0.4) puts a flip near 1 in 1,000 — too close. 10 pairs
    // (≈ 4 s more) widen the margin about 1.6× (√(10/6) and a smaller t quantile): z ≈ 4.2.
    logVerdict('compare --node 22 24 --script', doc.comparison);
    assert.equal(doc.comparison.verdict, 'slower', 'three times the work in sumX on Node 24');
    assert.equal(run.code, 3, 'a significant regression exits 3, for CI');
    const sumX = doc.diff.functions.find((f: any) => f.function === 'sumX');
    assert.ok(sumX, `sumX in the diff: ${JSON.stringify(doc.diff.functions.slice(0, 5))}`);
    assert.ok(sumX.selfPctBefore > 0 && sumX.selfPctAfter > 0, `matched on both sides: ${JSON.stringify(sumX)}`);
    // Chance for the share: idle, sumX's self share reads 19–24% on Node 22 and 41–43% on Node 24 (4 runs).
    // Beside the busy shared lane each sample carries its wall time, descheduled stretches included, so
    // with ~150 samples a side (the script's old 30 rounds) the order flipped once (clean52). 150 rounds
    // give 5× the samples: by my estimate the difference's SD falls from ~11 to ~5 points against a
    // 20-point gap, z ≈ 4, about 3e-5.
    assert.ok(sumX.selfPctAfter > sumX.selfPctBefore, `its share grew on Node 24: ${sumX.selfPctBefore}% → ${sumX.selfPctAfter}%`);
    assert.equal(sumX.file, 'test/fixtures/apps/runtime-script.js', 'relative to the repository, the same on both sides');
    assert.ok(sumX.v8Before && sumX.v8After, 'V8\'s view of sumX on both runtimes');
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});
