// `hotpath startup` across variants, on the interleaved engine: --bisect-rev finds the first git
// revision that starts slower (a repository whose CLI builds a 150× bigger table from the fourth commit
// on), and --node A --node B times cold starts of a real npm CLI on two runtimes.
//
// test-lane: measured — interleaved verdicts on start times.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';
import { versions } from '../helpers/nodeVersions';
import { logVerdict } from '../helpers/verdicts';

const APP = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'startup-cli');

describe('hotpath startup across variants', function () {
  this.timeout(300_000);
  let repo: string;

  /** A git repository whose CLI starts several times slower from the fourth commit on (a table built on load). */
  before(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bisect-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q');
    const rows = [2_000, 2_000, 2_000, 300_000, 300_000];
    rows.forEach((n, i) => {
      fs.writeFileSync(path.join(repo, 'cli.js'), `const t = new Map(); for (let i = 0; i < ${n}; i++) t.set(i, { i, s: String(i) });\nconsole.log(t.size, ${i});\n`);
      git('add', '.');
      git('commit', '-q', '-m', `c${i}`);
      git('tag', `c${i}`);
    });
  });
  after(() => { if (repo) fs.rmSync(repo, { recursive: true, force: true }); });

  it('--bisect-rev finds the first revision that starts slower, with the verdict of each step; worktrees are removed', async () => {
    // Chance of failing on a correct product: ≤ 1/1000. The search probes c2 against c0 — the same code,
    // an A/A comparison — and a false "slower" there sends it to c1 or c2. That chance is the alpha the
    // test sets: 0.001 (it was the default 0.05 with 4 pairs: one run in 40 could fail on a correct
    // product). The real probes (c3, c4: 150× the rows) keep their power at that alpha with 8 pairs (was
    // 4): at load average 15 c3 against c2 measured CPU per start ×3.6, 8.2 half-widths of its interval
    // from 1 (wall time ×4.0, 1.9), and one metric past 1 half-width is enough for "slower".
    const run = await runCli(['startup', '--bisect-rev', 'c0,c1,c2,c3,c4', '--pairs', '8', '--alpha', '0.001', '--json', '--', 'node', path.join(repo, 'cli.js')], { cwd: repo, timeoutMs: 290_000 });
    assert.equal(run.code, 0, run.stderr);
    const b = run.json().bisect;
    console.log(`      # bisect steps (startup): ${b.steps.map((x: any) => `${x.b} vs ${x.a}: ${x.verdict} ×${x.ratio?.toFixed(2)} (${x.ciLow?.toFixed(2)} … ${x.ciHigh?.toFixed(2)})`).join('; ')}`);
    logVerdict('bisect: c3 against c2 directly', b.step.comparison);
    assert.match(b.firstSlower, /^c3 \(/, JSON.stringify(b.steps));
    assert.match(b.lastGood, /^c2 \(/);
    assert.equal(b.steps[0].verdict, 'slower', 'the last revision against the first');
    assert.ok(b.steps.every((s: any) => s.pairs === 8 && ['faster', 'slower', 'no-significant-change'].includes(s.verdict)));
    assert.ok(b.steps.find((s: any) => /^c3 /.test(s.b)).ratio > 2);
    assert.equal(b.step.comparison.verdict, 'slower', 'c3 against c2 directly');
    const worktrees = execFileSync('git', ['worktree', 'list'], { cwd: repo, encoding: 'utf8' }).trim().split('\n');
    assert.equal(worktrees.length, 1, `only the main worktree is left: ${worktrees.join('; ')}`);
    // Each variant states what it ran, as compare's sides do: its worktree, the file it started there, its node.
    for (const c of b.candidates) {
      assert.match(c.root, /hotpath-base-[0-9a-f]{8}-/, JSON.stringify(c));
      assert.equal(c.entry, path.join(c.root, 'cli.js'), 'the worktree is gone now: this machine\'s tmpdir is not behind a symlink');
      assert.ok(c.cwd.startsWith(c.root) && c.nodePath && c.dependencies === 'no package.json', JSON.stringify(c));
    }
  });

  const worktreeCount = () => execFileSync('git', ['worktree', 'list'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').length;

  // An A/A comparison by accident is refused as compare refuses it, before anything starts or is checked out.
  for (const [what, args, message] of [
    ['--node v20 --node 20 (one binary)', ['--node', `v${process.versions.node.split('.')[0]}`, '--node', process.versions.node.split('.')[0]], /^Both sides would run the same files on the same Node .*--node v\d+ and --node \d+ are one binary, \/\S+ \(Node \d+\..*hotpath startup --allow-same-sides/],
    ['--base HEAD on a clean tree', ['--base', 'HEAD'], /^Both sides would run the same files .*--base HEAD \([0-9a-f]{7}\) has the same files as the working tree \([0-9a-f]{7}, no uncommitted changes\)/],
    ['a bisect list naming one revision twice', ['--bisect-rev', 'c1,c2,c1'], /^Entries 1 and 3 of --bisect-rev would run the same files .*--bisect-rev c1 \([0-9a-f]{7}\) has the same files as --bisect-rev c1/],
    ['a bisect list naming one Node twice', ['--bisect-node', `${process.versions.node.split('.')[0]},v${process.versions.node.split('.')[0]}`], /^Both sides would run the same files .*--bisect-node \d+ and --bisect-node v\d+ are one binary/],
  ] as const) {
    it(`refuses ${what}: a usage error before anything starts`, async () => {
      const tag = marker();
      const run = await runCli(['startup', ...args, '--pairs', '2', '--json', '--', 'node', path.join(repo, 'cli.js'), tag], { cwd: repo });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.json().error.message, message);
      assert.deepEqual(await waitForNoProcesses(tag), [], 'no start ran');
      assert.equal(worktreeCount(), 1, 'nothing was checked out');
    });
  }

  it('refuses a command file outside the repository, which no revision can change', async () => {
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-outside-')), 'cli.js');
    fs.copyFileSync(path.join(repo, 'cli.js'), outside);
    try {
      const run = await runCli(['compare', '--startup', '--base', 'c1', '--pairs', '2', '--json', '--', 'node', outside], { cwd: repo });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.json().error.message, /cli\.js, the file the command starts, is outside the repository .*both sides would run that one file/);
      assert.equal(worktreeCount(), 1);
    } finally {
      fs.rmSync(path.dirname(outside), { recursive: true, force: true });
    }
  });

  it('--base REV states each side\'s folder, file, revision, node and dependencies (text and JSON); --allow-same-sides runs an A/A on purpose and says so', async () => {
    const text = await runCli(['compare', '--startup', '--base', 'c3', '--pairs', '2', '--', 'node', 'cli.js'], { cwd: repo, timeoutMs: 200_000 });
    assert.ok(text.code === 0 || text.code === 3, text.stderr);
    const real = fs.realpathSync(repo);
    assert.match(text.stdout, /A: c3 \([0-9a-f]{7}\).*\n {5}in \/\S*hotpath-base-[0-9a-f]{8}-\S+ · runs cli\.js · node \/\S+\n {5}dependencies: no package\.json\n/);
    assert.ok(text.stdout.includes(`\n     in ${real} · runs cli.js · node `), text.stdout);
    assert.match(text.stdout, /B: working tree .*\n.*\n {5}dependencies: the working tree's own \(nothing reused\)\n/);
    const major = process.versions.node.split('.')[0];
    const aa = await runCli(['startup', '--node', major, '--node', `v${major}`, '--allow-same-sides', '--pairs', '2', '--json', '--', 'node', 'cli.js'], { cwd: repo, timeoutMs: 200_000 });
    assert.ok(aa.code === 0 || aa.code === 3, aa.stderr);
    const doc = aa.json();
    assert.deepEqual(doc.warnings.map((w: any) => w.code), ['SIDES_IDENTICAL']);
    for (const side of doc.sides) {
      assert.equal(side.entry, path.join(real, 'cli.js'));
      assert.equal(side.nodePath, fs.realpathSync(process.execPath));
      assert.equal(side.gitRev.length, 40);
      assert.equal(side.dependencies, 'the working tree\'s own (nothing reused)');
    }
    assert.notEqual(doc.sides[0].label, doc.sides[1].label, 'two entries alike are still told apart');
    assert.equal(worktreeCount(), 1);
  });

  it('--node A --node B: interleaved cold starts on two runtimes, each side on the Node it names', async function () {
    // No random outcome asserted: any verdict (exit 0 or 3) is accepted; the sides' versions are facts.
    const [a, b] = ['22', '24'].map((m) => versions.VERSIONS[m]);
    if (!versions.isInstalled(a) || !versions.isInstalled(b)) { if (process.env.HOTPATH_NODE_VERSIONS === 'skip') this.skip(); }
    const run = await runCli(['startup', '--node', versions.nodeBinary(a), '--node', versions.nodeBinary(b), '--pairs', '3', '--json', '--', 'node', 'cli.js'], { cwd: APP, timeoutMs: 290_000 });
    assert.equal(run.code === 0 || run.code === 3, true, run.stderr);
    const doc = run.json();
    assert.deepEqual(doc.sides.map((s: any) => s.nodeVersion), [`v${a}`, `v${b}`]);
    assert.equal(doc.comparison.pairs, 3);
    assert.ok(doc.comparison.metrics.startupMs.ratio > 0 && 'ciLow' in doc.comparison.metrics.startupMs);
  });
});
