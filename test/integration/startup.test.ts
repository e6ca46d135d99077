// `hotpath startup` on a real npm CLI (semver as its dependency) whose start is dominated by one
// module's top-level work (lib/rules.js builds a table on load), on every Node version the project
// supports: the statistics, the module that costs the start (first) and the line in it, the npm
// package by name, the merged profile, and no process left. The CLI runs on the version under test,
// and so does the app. ES modules (cli.mjs) where module.registerHooks exists (Node 22.15+).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker, ROOT, runCli, runCliOn, waitForNoProcesses } from '../helpers/cli';
import { NODE_MATRIX, nodeFor, versions } from '../helpers/nodeVersions';

const APP = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'startup-cli');
/** Few starts: the test is about what is found, not about precision (the machine is shared). */
const QUICK = ['--runs', '4', '--warmup', '1', '--profile-runs', '3', '--no-compile-cache', '--json'];
const lineOf = (file: string, text: string) => fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

for (const [major, label] of NODE_MATRIX) {
  describe(`hotpath startup, Node ${major} (${label})`, function () {
    this.timeout(180_000);
    let node = process.execPath;
    let out: string;

    before(function () {
      node = nodeFor(this, major);
      out = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-startup-${major}-`));
    });
    after(() => { if (out) fs.rmSync(out, { recursive: true, force: true }); });

    it('CommonJS: names lib/rules.js first (required at cli.js:3) and its hot line; semver by package; statistics and the merged profile', async () => {
      const tag = marker();
      const run = await runCliOn(node, ['startup', ...QUICK, '--out', out, '--', node, 'cli.js', tag], { cwd: APP, timeoutMs: 170_000 });
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      const s = doc.startup;
      for (const key of ['runs', 'warmup', 'meanMs', 'stddevMs', 'medianMs', 'minMs', 'maxMs', 'outliers', 'modules']) assert.ok(key in s, `startup.${key}`);
      assert.equal(s.runs, 4);
      assert.equal(s.warmup, 1);
      assert.ok(s.minMs <= s.medianMs && s.medianMs <= s.maxMs && s.minMs <= s.meanMs && s.meanMs <= s.maxMs, JSON.stringify(s));
      assert.equal(s.runsMs.length, 4);
      assert.equal(s.end, 'exit');

      const rules = path.join(APP, 'lib', 'rules.js');
      const top = s.modules[0];
      assert.equal(top.file, rules, `the module whose top-level work dominates comes first: ${JSON.stringify(s.modules.slice(0, 3))}`);
      assert.deepEqual(top.requiredFrom, { file: path.join(APP, 'cli.js'), line: 3 });
      assert.equal(top.package, null);
      assert.equal(top.timing, 'measured');
      assert.ok(top.selfMs > 0 && top.totalMs >= top.selfMs);
      for (const key of ['module', 'package', 'file', 'requiredFrom', 'selfMs', 'totalMs']) assert.ok(key in top, `modules[].${key}`);

      const semver = s.modules.find((m: any) => m.package === 'semver' && m.requiredFrom?.file === path.join(APP, 'cli.js'));
      assert.ok(semver, `the npm dependency appears with its package name: ${JSON.stringify(s.modules.map((m: any) => m.package))}`);
      assert.equal(semver.module, 'semver');
      assert.equal(semver.requiredFrom.line, 2);
      assert.ok(semver.modules > 10, 'semver loads many modules of its own');
      assert.ok(s.packages.some((p: any) => p.package === 'semver' && p.modules === semver.modules));

      // The merged profile: the hot line is in rules.js's table-building loop.
      const hotLine = doc.lines[0];
      assert.equal(hotLine.file, rules, JSON.stringify(doc.lines.slice(0, 3)));
      assert.ok(hotLine.line > lineOf(rules, 'function buildRules') && hotLine.line < lineOf(rules, 'return table'), `a line of buildRules's loop, got ${hotLine.line}`);
      assert.ok(doc.hotspots.some((h: any) => h.function === 'buildRules' && h.file === rules));
      assert.equal(s.profileRuns, 3);
      assert.equal(s.samplingIntervalMicros, 100);
      assert.ok(fs.existsSync(doc.profilePath) && fs.existsSync(doc.flamegraphPath), 'the merged profile and its flamegraph are saved');
      assert.ok(doc.advice.some((a: any) => a.id === 'lazy-require' && a.file === path.join(APP, 'cli.js') && a.line === 3), JSON.stringify(doc.advice));
      assert.deepEqual(await waitForNoProcesses(tag), [], 'no start left running');
    });

    if (Number(major) >= 22) {
      it('ES modules: lib/rules.mjs first (imported at cli.mjs:2, evaluation from the profile); semver imported at cli.mjs:1', async () => {
        const tag = marker();
        const run = await runCliOn(node, ['startup', ...QUICK, '--out', out, '--', node, 'cli.mjs', tag], { cwd: APP, timeoutMs: 170_000 });
        assert.equal(run.code, 0, run.stderr);
        const doc = run.json();
        const s = doc.startup;
        const top = s.modules[0];
        assert.equal(top.file, path.join(APP, 'lib', 'rules.mjs'), JSON.stringify(s.modules.slice(0, 3)));
        assert.deepEqual(top.requiredFrom, { file: path.join(APP, 'cli.mjs'), line: 2 });
        assert.equal(top.format, 'esm');
        assert.equal(top.timing, 'sampled');
        const semver = s.modules.find((m: any) => m.package === 'semver' && m.requiredFrom?.file === path.join(APP, 'cli.mjs'));
        assert.ok(semver && semver.module === 'semver' && semver.requiredFrom.line === 1, JSON.stringify(s.modules.filter((m: any) => m.package === 'semver').slice(0, 2)));
        assert.equal(doc.lines[0].file, path.join(APP, 'lib', 'rules.mjs'));
        assert.ok(!doc.warnings.some((w: any) => w.code === 'ESM_GRAPH_UNAVAILABLE'));
        assert.deepEqual(await waitForNoProcesses(tag), []);
      });
    }
  });
}

describe('hotpath startup: servers and wrappers', function () {
  this.timeout(180_000);

  it('a server is timed until it listens, through npm start; npm\'s own time is measured and `node --run` advised', async () => {
    const app = path.join(ROOT, 'test', 'fixtures', 'apps', 'npm-app');
    const tag = marker();
    const run = await runCli(['startup', '--runs', '3', '--warmup', '1', '--profile-runs', '0', '--json', '--', 'npm', 'start', '--', tag], { cwd: app, timeoutMs: 170_000 });
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    const s = doc.startup;
    assert.equal(s.end, 'listen');
    assert.match(doc.target.wrappers.join(' '), /^npm/);
    assert.ok(s.phases.launchMs > 0 && s.phases.launchMs < s.meanMs, JSON.stringify(s.phases));
    const advice = doc.advice.find((a: any) => a.id === 'node-run');
    assert.ok(advice, JSON.stringify(doc.advice));
    assert.match(advice.text, /node --run start|node` directly/);
    assert.equal(doc.profilePath, null);
    assert.deepEqual(await waitForNoProcesses(tag), [], 'the server was stopped after it listened');
  });

  it('a CLI that exits from its top-level code (as tsc does) still has its module-load tree: the modules still loading count', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-exit-cli-'));
    try {
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.writeFileSync(path.join(dir, 'cli.js'), "require('./lib/main.js');\n");
      // The whole program runs while its module loads, and exits there: the require never returns.
      fs.writeFileSync(path.join(dir, 'lib', 'main.js'), "let x = 0; const end = Date.now() + 30; while (Date.now() < end) x++;\nprocess.stdout.write(String(x > 0) + '\\n');\nprocess.exit(0);\n");
      const run = await runCli(['startup', '--runs', '3', '--warmup', '1', '--profile-runs', '0', '--json', '--', 'node', 'cli.js'], { cwd: dir, timeoutMs: 120_000 });
      assert.equal(run.code, 0, run.stderr);
      const modules = run.json().startup.modules as any[];
      const main = modules.find((m) => m.file.endsWith(path.join('lib', 'main.js')));
      assert.ok(main, JSON.stringify(modules));
      assert.ok(main.selfMs >= 20, `its top-level work counts as its load time: ${JSON.stringify(main)}`);
      assert.deepEqual([path.basename(main.requiredFrom.file), main.requiredFrom.line], ['cli.js', 1]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a start that fails is an error with the app\'s output, not a data point', async () => {
    const run = await runCli(['startup', '--runs', '2', '--warmup', '0', '--json', '--', process.execPath, '-e', 'console.error("config missing"); process.exit(3)']);
    assert.equal(run.code, 1);
    const doc = run.json();
    assert.equal(doc.error.code, 'TARGET_EXITED');
    assert.match(doc.error.message, /exited with code 3 during startup[\s\S]*config missing/);
  });
});


describe('hotpath startup across variants', function () {
  this.timeout(300_000);
  let repo: string;

  /** A git repository whose CLI starts ~8× slower from the fourth commit on (a table built on load). */
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
    const run = await runCli(['startup', '--bisect-rev', 'c0,c1,c2,c3,c4', '--pairs', '4', '--json', '--', 'node', path.join(repo, 'cli.js')], { cwd: repo, timeoutMs: 290_000 });
    assert.equal(run.code, 0, run.stderr);
    const b = run.json().bisect;
    assert.match(b.firstSlower, /^c3 \(/, JSON.stringify(b.steps));
    assert.match(b.lastGood, /^c2 \(/);
    assert.equal(b.steps[0].verdict, 'slower', 'the last revision against the first');
    assert.ok(b.steps.every((s: any) => s.pairs === 4 && ['faster', 'slower', 'no-significant-change'].includes(s.verdict)));
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
