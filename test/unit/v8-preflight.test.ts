import { strict as assert } from 'node:assert';
import { buildProfileModel } from '../../src/core/profile';
import type { LoadResult } from '../../src/core/load/result';
import { checksAfterRun, checksBeforeRun, nodeEnvWarning, type PreflightCheck } from '../../src/core/workflow/preflight';
import { perSecondSpread } from '../../src/core/load/perSecondSpread';
import { loadLine } from '../../src/cli/humanOutput';
import { formatPct } from '../../src/shared/text/numbers';

const byId = (checks: PreflightCheck[]) => Object.fromEntries(checks.map((c) => [c.id, c]));

function load(perSecond: number[], cpu: number): LoadResult {
  const mean = perSecond.reduce((a, b) => a + b, 0) / perSecond.length;
  return {
    url: 'http://127.0.0.1:1/', method: 'GET', connections: 10, pipelining: 1, durationSeconds: perSecond.length,
    requests: { total: mean * perSecond.length, perSecond, mean, stddev: 0, min: Math.min(...perSecond), max: Math.max(...perSecond) },
    latencyMs: { mean: 1, stddev: 0, p50: 1, p90: 1, p99: 1, max: 1 }, throughputBytesPerSec: { mean: 0, stddev: 0 },
    errors: 0, timeouts: 0, non2xx: 0, statusCodes: { 200: 1 }, loadGeneratorCpuPct: cpu, warnings: [],
  };
}

/** A profile whose main thread is idle for `idleShare` of its samples. */
function model(idleShare: number) {
  const idle = Math.round(100 * idleShare);
  return buildProfileModel(JSON.stringify({
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2, 3] },
      { id: 2, callFrame: { functionName: 'work', scriptId: '1', url: 'file:///app.js', lineNumber: 0, columnNumber: 13 }, hitCount: 100 - idle },
      { id: 3, callFrame: { functionName: '(idle)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: idle },
    ],
    startTime: 0, endTime: 100_000, samples: [...Array(100 - idle).fill(2), ...Array(idle).fill(3)], timeDeltas: Array(100).fill(1000),
  }), { sourceMaps: false });
}

describe('production-parity checks', () => {
  it('before the run: from the command, the environment and the sampling interval', () => {
    const checks = byId(checksBeforeRun({ mode: 'launch', command: ['node', '--inspect-brk', '--enable-source-maps', 'app.js'], env: { NODE_ENV: 'development' }, samplingIntervalMicros: 100 }));
    assert.equal(checks['node-env'].status, 'warn');
    assert.match(checks['node-env'].observed, /NODE_ENV=development/);
    assert.equal(checks['sampling-interval'].status, 'warn');
    assert.match(checks['sampling-interval'].observed, /10,000 samples a second/);
    assert.equal(checks.debugger.status, 'warn');
    assert.match(checks.debugger.observed, /--inspect-brk/);
    assert.equal(checks['source-maps'].status, 'warn');
    assert.match(checks['source-maps'].advice!, /Error\.stack/);
    assert.equal(checks['v8-flags'].status, 'pass');
    assert.ok(!('load-generator' in checks), 'load checks come after the run');

    const clean = byId(checksBeforeRun({ mode: 'launch', command: ['node', 'app.js'], env: { NODE_ENV: 'production', NODE_OPTIONS: '--max-opt=2' }, samplingIntervalMicros: 1000 }));
    assert.deepEqual([clean['node-env'].status, clean['sampling-interval'].status, clean.debugger.status, clean['source-maps'].status], ['pass', 'pass', 'pass', 'pass']);
    assert.equal(clean['v8-flags'].status, 'warn', 'NODE_OPTIONS counts too');
    assert.equal(byId(checksBeforeRun({ mode: 'attach', samplingIntervalMicros: 1000 }))['node-env'].status, 'info');
  });

  it('after the run: what the app reported, load-generator saturation, stability, an idle app', () => {
    const result = {
      kind: 'profile',
      target: { command: ['node', 'app.js'], nodeEnv: 'production', execArgv: [], sourceMapsEnabled: true },
      load: load([500, 1000, 1010, 990, 1000], 92),
      samplingIntervalMicros: 1000,
      model: model(0.7),
      v8: { collected: true, nodeVersion: 'v20.0.0', findings: [{ id: 'V8_HOT_FUNCTION_NEVER_COMPILED', title: 't', text: 't', fix: 'f' }] },
    };
    const checks = byId(checksAfterRun(result));
    assert.equal(checks['node-env'].status, 'pass');
    assert.equal(checks['source-maps'].status, 'warn', 'process.sourceMapsEnabled as the app reported it');
    assert.equal(checks.debugger.status, 'warn', 'a breakpoint seen by V8');
    assert.equal(checks['load-generator'].status, 'warn');
    assert.match(checks['load-generator'].observed, /92\.0%/);
    assert.equal(checks.stability.status, 'pass', 'the first second (connections opening) is left out');
    assert.equal(checks['target-cpu'].status, 'warn');
    assert.match(checks['target-cpu'].observed, /busy 30\.3%.*idle 69\.7%/);

    const shaky = byId(checksAfterRun({ ...result, load: load([1000, 1000, 600, 1400, 700, 1300], 40), model: model(0.05) }));
    assert.equal(shaky.stability.status, 'warn');
    assert.equal(shaky['load-generator'].status, 'pass');
    assert.equal(shaky['target-cpu'].status, 'pass');
    assert.ok(!('load-generator' in byId(checksAfterRun({ ...result, kind: 'script', load: null }))), 'no load, no load checks');
  });

  it('nodeEnvWarning: a first sentence that reads on its own (summaries quote it)', () => {
    assert.equal(nodeEnvWarning('production'), undefined);
    const unset = nodeEnvWarning(null)!;
    assert.equal(unset.code, 'NODE_ENV_NOT_PRODUCTION');
    assert.equal(unset.message.split('. ')[0], 'The app ran without NODE_ENV=production (NODE_ENV was not set)');
    assert.equal(nodeEnvWarning('development')!.message.split('. ')[0], 'The app ran with NODE_ENV=development, not production');
  });

  it('titles state what was found: a warning never carries the goal it missed as its title', () => {
    const bad = checksAfterRun({
      kind: 'profile',
      target: { command: ['node', '--inspect-brk', '--jitless', 'app.js'], nodeEnv: null, sourceMapsEnabled: true },
      load: load([100, 1000, 400, 1600, 500, 1500], 95), samplingIntervalMicros: 100, model: model(0.78),
    });
    const good = checksAfterRun({
      kind: 'profile',
      target: { command: ['node', 'app.js'], nodeEnv: 'production', sourceMapsEnabled: false },
      load: load([100, 1000, 1000, 1000, 1000], 10), samplingIntervalMicros: 1000, model: model(0),
    });
    const titles = (list: PreflightCheck[]) => Object.fromEntries(list.map((c) => [c.id, `${c.status}: ${c.title}`]));
    assert.deepEqual(titles(bad), {
      'node-env': 'warn: NODE_ENV is not production',
      'sampling-interval': 'warn: Sampling overhead high',
      debugger: 'warn: Started for a debugger',
      'source-maps': 'warn: Source-map support on',
      'v8-flags': 'warn: V8 flags change the tiers',
      'load-generator': 'warn: Load generator saturated',
      stability: 'warn: Unstable run',
      'target-cpu': 'warn: App mostly idle under this load',
    });
    assert.deepEqual(titles(good), {
      'node-env': 'pass: NODE_ENV is production',
      'sampling-interval': 'pass: Sampling overhead low',
      debugger: 'pass: No debugger attached',
      'source-maps': 'pass: Source-map support off',
      'v8-flags': 'pass: V8 optimizing compilers on',
      'load-generator': 'pass: Load generator not saturated',
      stability: 'pass: Stable run',
      'target-cpu': 'pass: App CPU-bound under this load',
    });
  });

  it('the sampling check: chosen from the run\'s length before it, the cost the run measured after it', () => {
    const auto = byId(checksBeforeRun({ mode: 'launch', command: ['node', 'app.js'], env: { NODE_ENV: 'production' } }))['sampling-interval'];
    assert.equal(auto.status, 'pass');
    assert.equal(auto.title, 'Sampling interval chosen from the run\'s length');
    assert.match(byId(checksBeforeRun({ mode: 'launch', command: ['node', 'app.js'], env: {}, durationSeconds: 10 }))['sampling-interval'].observed, /2,000 µs for this 10 s run/);
    const after = (pct: number) => byId(checksAfterRun({
      kind: 'profile', target: { command: ['node', 'app.js'], nodeEnv: 'production' }, samplingIntervalMicros: 2000,
      profilerCost: { profilerCpuMs: pct * 100, appCpuMs: 10_000, pct, samples: 5012, intervalMicros: 2000 },
    }))['sampling-interval'];
    assert.equal(after(4.1).observed, 'Profiler cost measured at +4.1% CPU per request: V8\'s profiler thread used 410 ms while the app used 10,000 ms (5,012 samples, every 2,000 µs)');
    assert.deepEqual([after(4.1).status, after(9).status, after(20).status], ['pass', 'info', 'warn']);
    // Not measured (another OS, an inspector reached by port): the interval's rate, no figure made up.
    const unmeasured = byId(checksAfterRun({ kind: 'profile', target: { command: ['node', 'app.js'], nodeEnv: 'production' }, samplingIntervalMicros: 2000 }))['sampling-interval'];
    assert.doesNotMatch(unmeasured.observed, /measured at/);
    assert.match(unmeasured.observed, /500 samples a second/);
  });

  it('script mode: NODE_ENV is information, not a warning (no servers or templates in play)', () => {
    const before = byId(checksBeforeRun({ mode: 'script', command: ['node', 'build.js'], env: {}, samplingIntervalMicros: 1000 }));
    assert.equal(before['node-env'].status, 'info');
    assert.equal(before['node-env'].title, 'NODE_ENV not checked for scripts');
    const after = byId(checksAfterRun({ kind: 'script', target: { command: ['node', 'build.js'], nodeEnv: null }, load: null }));
    assert.equal(after['node-env'].status, 'info');
  });

  it('the stability check and the load line quote one spread (first second left out)', () => {
    const perSecond = [300, 2400, 2200, 2500, 2100, 2400];
    const check = byId(checksAfterRun({ kind: 'profile', target: { command: ['node', 'app.js'], nodeEnv: 'production' }, load: load(perSecond, 10) })).stability;
    const spread = perSecondSpread(perSecond)!;
    assert.equal(spread.seconds, 5);
    assert.ok(spread.firstSecondDropped);
    assert.match(check.observed, new RegExp(`±${formatPct(spread.cvPct).replace('.', '\\.')} second to second`));
    assert.match(loadLine(load(perSecond, 10)), new RegExp(`±${formatPct(spread.cvPct).replace('.', '\\.')} second to second`));
    // Over all six seconds the ramp-up second alone would have made it ±~45%.
    assert.ok(spread.cvPct < 10, `steady-state spread ${spread.cvPct}`);
  });
});
