import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, runCli, waitForNoProcesses } from '../helpers/cli';

/**
 * Baseline then verify on the same app with a known change in cost: FIB_N=24 is about 4× the work
 * of FIB_N=21 per request and FIB_N=28 about 7× that of 24, far beyond run-to-run noise, so the
 * verdicts are not a coin toss (unless another heavy job shares the machine: the test is honest
 * statistics with n = 3, and a disturbed baseline run widens the interval).
 */
describe('hotpath baseline / verify', function () {
  this.timeout(180_000);
  let cwd: string;
  const load = ['--duration', '2', '--warmup', '1', '--connections', '4', '--runs', '3'];
  before(() => { cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bl-')); });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('stores a baseline of independent runs with its environment', async () => {
    const tag = marker();
    const run = await runCli(['baseline', ...load, '--name', 'fib', '--env', 'FIB_N=24', '--json', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
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
    const run = await runCli(['verify', ...load, '--name', 'fib', '--env', 'FIB_N=21', '--json', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    assert.equal(run.code, 0, run.stderr);
    const c = run.json().comparison;
    assert.equal(c.verdict, 'faster', JSON.stringify(c, null, 1));
    assert.equal(c.n.baseline, 3);
    assert.equal(c.n.current, 3);
    assert.ok(c.requestsPerSecond.ciLowPct > 0, 'the whole CI is an improvement');
  });

  it('verify exits 3 on a significant regression, so CI can gate on it', async () => {
    const run = await runCli(['verify', ...load, '--name', 'fib', '--env', 'FIB_N=28', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /Verdict: SLOWER/);
  });

  it('verify without a baseline says how to make one', async () => {
    const run = await runCli(['verify', ...load, '--name', 'nope', '--cwd', cwd, '--', 'node', path.join(APPS, 'hot-server.js')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /No baseline named 'nope'/);
  });
});
