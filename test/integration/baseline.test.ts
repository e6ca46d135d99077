import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, runCli, waitForNoProcesses } from '../helpers/cli';
import { logVerdict } from '../helpers/verdicts';

/**
 * Baseline then verify on the same app with a known change in CPU per request: FIB_N=22 costs about 1/7
 * of FIB_N=27 (×0.14 measured) and FIB_N=31 about 6× of 27 (the handler's fixed cost included), far
 * beyond run-to-run noise. On a busy machine throughput tracks the CPU the app gets rather than its code,
 * and the verdict then rests on CPU per request (its supporting metric when req/s and p99 do not move),
 * which contention does not change: the effects are sized on it (see each test).
 *
 * test-lane: measured — verify compares sessions run minutes apart (independent design): load added by a
 * parallel suite in one session and not the other is exactly what it cannot cancel.
 */
describe('hotpath baseline / verify', function () {
  this.timeout(180_000);
  let cwd: string;
  const load = ['--duration', '2', '--warmup', '1', '--connections', '4', '--runs', '3'];
  before(() => { cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bl-')); });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('stores a baseline of independent runs with its environment', async () => {
    const tag = marker();
    const run = await runCli(['baseline', ...load, '--name', 'fib', '--env', 'FIB_N=27', '--json', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    assert.equal(doc.runs.length, 3);
    assert.ok(doc.runs.every((r: any) => r.requestsPerSecond > 0));
    const stored = JSON.parse(fs.readFileSync(path.join(cwd, '.hotpath', 'baselines', 'fib.json'), 'utf8'));
    assert.equal(stored.runs.length, 3);
    assert.equal(stored.environment.nodeVersion, process.version);
    assert.equal(stored.environment.nodeEnv, null);
    assert.ok(stored.environment.cpuCount >= 1);
    assert.ok(doc.warnings.some((w: any) => w.code === 'NODE_ENV_NOT_PRODUCTION'));
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('verify reports a faster app as faster, with a confidence interval', async () => {
    // Chance of failing on a correct product: < 1/1,000,000. Sized on CPU/req: FIB_N 27 → 22 measured
    // ×0.142, 24.5 half-widths of its 98.33% interval from 1, at load average 16 (req/s ×8.4, 3.4
    // half-widths); a "faster" needs only one of them past 1 half-width. Even one run off by 20% (log
    // 0.18) leaves CPU/req more than 5 half-widths clear. Was FIB_N 24 → 21: CPU/req ×0.44, 3.5
    // half-widths, req/s ×1.47 not significant, under the same load.

    const run = await runCli(['verify', ...load, '--name', 'fib', '--env', 'FIB_N=22', '--json', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    assert.equal(run.code, 0, run.stderr);
    const c = run.json().comparison;
    logVerdict('verify FIB_N 27 → 22', c);
    assert.equal(c.verdict, 'faster', JSON.stringify(c, null, 1));
    assert.deepEqual(c.n, { a: 3, b: 3 });
    assert.equal(c.design, 'independent');
    // The ratio metrics: req/s up, p99 down, each with its interval on the ratio scale.
    const rps = c.metrics.requestsPerSecond;
    assert.ok(rps.ratio > 1 && rps.ciHigh > rps.ciLow && rps.ciLow > 0, JSON.stringify(rps));
    assert.ok(c.metrics.p99LatencyMs.ratio < 1);
    assert.ok(typeof rps.pValue === 'number');
    assert.ok(c.moved.length > 0);
  });

  it('verify exits 3 on a significant regression, so CI can gate on it', async () => {
    // Chance of failing on a correct product: < 1/1,000,000, sized as above on CPU/req: FIB_N 27 → 31
    // measured ×6.2, 10.6 half-widths from 1 (req/s −78%, 2.5; p99 ×3.0, 1.9) at load average 15. Was
    // FIB_N 24 → 28.

    const run = await runCli(['verify', ...load, '--name', 'fib', '--env', 'FIB_N=31', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    console.log(`      # verify FIB_N 27 → 31: ${run.stdout.split('\n').filter((l) => /Verdict|req\/s|p99|CPU\/req/.test(l)).slice(0, 5).map((l) => l.trim()).join(' | ')}`);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /Verdict: SLOWER/);
  });

  it('verify without a baseline says how to make one', async () => {
    const run = await runCli(['verify', ...load, '--name', 'nope', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No baseline named 'nope'/);
  });
});
