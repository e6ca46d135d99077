// test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
import { strict as assert } from 'node:assert';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, QUICK_LOAD, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';
import { idleFraction, ofBusy } from '../helpers/busyShare';

describe('hotpath profile (real app, real load, real inspector)', function () {
  this.timeout(120_000);
  let out: string;
  before(() => { out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-it-')); });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it('names the known hot function as the top user-code hotspot, with file:line, and stops the app', async () => {
    // Chance of failing on a correct product: < 1e-6 — fib(25) per request is nearly all of the app's
    // CPU (in CI fibonacciHot's self share reads far above the asserted 30%; sampling error ~1.5 points).
    // The same holds for the three tests below: each app's handler calls one hot function.
    const tag = marker();
    // FIB_N=25: the recursion costs far more than writing the response, so fibonacciHot leads by own
    // cost too (at the default 20 the handler's res.end can take turns with it on a busy machine).
    const run = await runCli(['profile', ...QUICK_LOAD, '--json', '--env', 'FIB_N=25', '--out', out, '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    const top = doc.hotspots.find((h: any) => h.category === 'user');
    assert.equal(top.function, 'fibonacciHot');
    assert.equal(top.file, path.join(APPS, 'hot-server.js'));
    assert.equal(top.line, 4, 'fibonacciHot is declared on line 4 (1-based)');
    // Of the app's busy time, not of the whole profile: a load generator starved by parallel test files
    // leaves the app idle (test/helpers/busyShare.ts; seen: 26.3% of the profile, with the app mostly idle).
    const idle = await idleFraction(doc.profilePath);
    assert.ok(ofBusy(top.selfPct, idle) > 30, `fibonacciHot should dominate the app's busy time, got ${top.selfPct}% of the profile, ${(idle * 100).toFixed(1)}% idle`);
    assert.ok(doc.load.requests.total > 0 && doc.load.requests.perSecond.length >= 2);
    assert.ok(doc.lines.some((l: any) => l.file === top.file && l.line >= 4 && l.line <= 6), 'a hot line inside fibonacciHot');
    assert.ok(fs.existsSync(doc.profilePath), 'the raw .cpuprofile is saved');
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(doc.profilePath, 'utf8'))).sort().slice(0, 5), ['endTime', 'nodes', 'samples', 'startTime', 'timeDeltas']);
    const envWarning = doc.warnings.find((w: any) => w.code === 'NODE_ENV_NOT_PRODUCTION');
    assert.ok(envWarning, 'NODE_ENV warning present');
    assert.match(envWarning.message, /NODE_ENV=production/);
    assert.ok(doc.target.pid > 0 && doc.target.port > 0);
    // No --sampling-interval: chosen from the load's length (a run this short keeps 1000 µs); what the
    // profiler cost is measured in the app's own threads (Linux), and the checklist says so.
    assert.equal(doc.samplingIntervalMicros, 1000);
    const sampling = doc.checks.find((c: any) => c.id === 'sampling-interval');
    if (process.platform === 'linux') assert.match(sampling.observed, /^Profiler cost measured at \+\d+\.\d% CPU per request: V8's profiler thread used [\d,]+ ms while the app used [\d,]+ ms \([\d,]+ samples, every 1,000 µs\)$/);
    assert.deepEqual(await waitForNoProcesses(tag), [], 'no target process left behind');
  });

  it('drops the NODE_ENV warning when the app runs in production, and prints a readable table', async () => {
    const tag = marker();
    const run = await runCli(['profile', ...QUICK_LOAD, '--env', 'NODE_ENV=production', '--env', 'FIB_N=25', '--out', out, '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Top user-code hotspot: fibonacciHot at test\/fixtures\/apps\/hot-server\.js:4/);
    assert.match(run.stdout, /Hotspots \(by own cost: self time plus/);
    assert.doesNotMatch(run.stdout, /NODE_ENV_NOT_PRODUCTION/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('finds the port and the right process behind `npm start`', async () => {
    const tag = marker();
    const run = await runCli(['profile', ...QUICK_LOAD, '--json', '--out', out, '--cwd', path.join(APPS, 'npm-app'), '--', 'npm', 'start', '--', tag]);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    const top = doc.hotspots.find((h: any) => h.category === 'user');
    assert.equal(top.function, 'slugifyHot');
    assert.equal(top.file, path.join(APPS, 'npm-app', 'server.js'));
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('maps a TypeScript app back to its .ts file and lines through the source map', async () => {
    const build = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-ts-'));
    try {
      esbuild.buildSync({ entryPoints: [path.join(APPS, 'ts-server/server.ts')], bundle: true, platform: 'node', sourcemap: true, outfile: path.join(build, 'server.js'), logLevel: 'silent' });
      const tag = marker();
      // --no-turbo-inlining: otherwise V8 may inline distanceSumHot into the request handler and charge
      // its ticks to the handler (v8-signals §1.6). This test is about source maps, not inlining.
      const run = await runCli(['profile', ...QUICK_LOAD, '--json', '--out', out, '--', 'node', '--no-turbo-inlining', path.join(build, 'server.js'), tag]);
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      const top = doc.hotspots.find((h: any) => h.category === 'user');
      assert.equal(top.file, path.join(APPS, 'ts-server', 'server.ts'));
      // distanceSumHot (line 7) — or the request handler (line 21): under a CPU competitor at load average
      // 11 (a clean-clone census run) V8 charged the loop's samples to the handler even with
      // --no-turbo-inlining. Both are real .ts declarations, which is what this test is about (the tsx test
      // below accepts the same two); a build whose map were not used would name server.js's lines.
      // Chance of failing on a correct product: < 1e-6. Here the loop's line 13 owns 72% and line 22 (res.end)
      // 1.4%; the CI run that failed with 400 points (line 22 25%, line 13 14%) would, at 9× the loop work,
      // give line 13 about 5× line 22's share.
      assert.ok((top.function === 'distanceSumHot' && top.line === 7) || (top.function === '(anonymous)' && top.line === 21), `a .ts declaration: distanceSumHot at 7 or the handler at 21, got ${top.function} at ${top.line}`);
      const loop = doc.lines.filter((l: any) => l.file.endsWith('server.ts') && l.line >= 8 && l.line <= 13);
      assert.ok(loop.length && loop[0] === doc.lines.find((l: any) => l.file.endsWith('server.ts')), `the hottest .ts line is inside the loop: ${JSON.stringify(doc.lines.filter((l: any) => l.file.endsWith('server.ts')).slice(0, 3))}`);
      assert.deepEqual(await waitForNoProcesses(tag), []);
    } finally {
      fs.rmSync(build, { recursive: true, force: true });
    }
  });
});

describe('hotpath profile through tsx (TypeScript compiled in memory)', function () {
  this.timeout(120_000);

  it('finds the app behind the tsx wrapper, maps functions through the in-memory source map, and does not invent lines', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-tsx-'));
    try {
      const tag = marker();
      const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
      const run = await runCli(['profile', ...QUICK_LOAD, '--json', '--out', out, '--', tsx, path.join(APPS, 'ts-server', 'server.ts'), tag]);
      assert.equal(run.code, 0, run.stderr);
      const doc = run.json();
      const top = doc.hotspots.find((h: any) => h.category === 'user');
      assert.equal(top.file, path.join(APPS, 'ts-server', 'server.ts'));
      // distanceSumHot (line 7) or, when V8 inlined it, the request handler (line 21): both are real .ts lines.
      assert.ok([7, 21].includes(top.line), `a .ts declaration line, got ${top.line}`);
      assert.ok(fs.existsSync(`${doc.profilePath}.sourcemaps.json`), 'the runtime source-map URLs are kept next to the profile');
      // tsx puts the whole file on one generated line: per-line self time cannot be placed, and we say so.
      // A call-site line found by parsing server.ts (res.end(...) on line 22) carries only the callees' time.
      const tsLines = doc.lines.filter((l: any) => l.file.endsWith('server.ts'));
      assert.ok(tsLines.every((l: any) => l.selfMs === 0 && l.calls.length > 0), JSON.stringify(tsLines));
      const source = fs.readFileSync(path.join(APPS, 'ts-server', 'server.ts'), 'utf8').split('\n');
      for (const l of tsLines) {
        for (const call of l.calls) assert.ok(source[l.line - 1].includes(`${call.function}(`), `line ${l.line} calls ${call.function}: ${source[l.line - 1]}`);
      }
      assert.ok(doc.warnings.some((w: any) => w.code === 'LINES_NOT_MAPPABLE'));
      // `hotpath report` on the saved file maps it the same way, thanks to the sidecar.
      const report = (await runCli(['report', '--json', doc.profilePath])).json();
      assert.equal(report.hotspots.find((h: any) => h.category === 'user').file, top.file);
      assert.deepEqual(await waitForNoProcesses(tag), []);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
