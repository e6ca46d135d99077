// `hotpath startup` on a real npm CLI (semver as its dependency) whose start is dominated by one
// module's top-level work (lib/rules.js builds a table on load), on every Node version the project
// supports: the statistics, the module that costs the start (first) and the line in it, the npm
// package by name, the merged profile, and no process left. The CLI runs on the version under test,
// and so does the app. ES modules (cli.mjs) where module.registerHooks exists (Node 22.15+).
//
// The interleaved comparisons of starts (--bisect-rev, --node A --node B) are verdicts: they are in
// startupVariants.test.ts, which runs alone.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker, ROOT, runCli, runCliOn, waitForNoProcesses } from '../helpers/cli';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';

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
      // Chance of failing on a correct product: < 1e-6. rules.js's table costs most of the start (in the
      // real-VS-Code run at load average 15: +915 ms of a 1,514 ms start, semver's 20-odd modules a few
      // tens of ms), so its rank and its loop's lines as the hottest do not depend on the machine; the
      // rest is structure (require lines, packages), not measurement.
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
        // Chance of failing on a correct product: < 1e-6, as for CommonJS (the same table, sampled).
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
    // Chance of failing on a correct product: 0 — npm's launch phase is a part of each start, so its mean
    // is below the starts' mean whatever the machine does.
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
    // Chance of failing on a correct product: 0 — the module busy-waits 30 ms of wall time (Date.now),
    // and its load time is wall time: a busy machine only lengthens it past the asserted 20 ms.
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
