/**
 * verify against its own baseline on an app that waits on I/O (test/fixtures/npm-apps/wait-api: Express,
 * each request waits on a 20 ms timer and a socket round trip): the case CI got wrong (issue 22), where
 * an unchanged Express app was called "slower" from CPU per request alone. With the default 3 runs a
 * side, `verify` must not call an unchanged app faster or slower.
 *
 * Sizing: a false verdict on an unchanged app has a chance of at most 5% per verify — the family-wise α
 * the verdict is built for (Bonferroni over req/s, p99 and CPU/req) and the A/A rate the calibration holds
 * it to (README, "Benchmarks": `npm run bench -- stats`, the wait-api rows; its smoke run: 0 of 6 on
 * wait-api, 0 of 18 on the three apps, at 3 runs a side and at 2). Four independent repetitions (each its
 * own baseline, then a verify) fail the test only when at least three give a false verdict:
 * P = 4·0.05³·0.95 + 0.05⁴ ≈ 4.8 × 10⁻⁴ < 1/1,000 on a correct product. A product that calls half of
 * unchanged apps changed fails it 5 times in 16; one that always does, every time.
 *
 * test-lane: measured — the 5% is the rate on a machine whose load does not change between the baseline
 * and the verify; a parallel suite starting or ending between them is the drift the sizing did not assume.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { marker, ROOT, runCli, waitForNoProcesses } from '../helpers/cli';

const APP = path.join(ROOT, 'test/fixtures/npm-apps/wait-api/server.js');
/** The calibration's per-run load (the compare defaults), with verify's default runs (3, the baseline's). */
const LOAD = ['--duration', '3', '--warmup', '1', '--connections', '10', '--env', 'NODE_ENV=production'];
const REPETITIONS = 4;
const MOST_FALSE = 2;

describe('verify A/A on an app that waits on I/O (wait-api)', function () {
  this.timeout(900_000);
  let cwd: string;
  before(() => { cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-aa-')); });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it(`an unchanged app: at most ${MOST_FALSE} false verdicts in ${REPETITIONS} baselines and verifies with the default runs`, async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < REPETITIONS; i++) {
      const tag = marker();
      const name = `aa-${i}`;
      const base = await runCli(['baseline', ...LOAD, '--name', name, '--json', '--cwd', cwd, '--', 'node', APP, tag], { cwd, timeoutMs: 240_000 });
      assert.equal(base.code, 0, base.stderr);
      assert.equal(base.json().runs.length, 3, 'the default runs');
      const verify = await runCli(['verify', ...LOAD, '--name', name, '--json', '--cwd', cwd, '--', 'node', APP, tag], { cwd, timeoutMs: 240_000 });
      const doc = verify.json();
      const c = doc.comparison;
      assert.equal(c.n.b, 3);
      // Exit 3 is the slower verdict's (the default policy), 0 otherwise.
      assert.equal(verify.code, c.verdict === 'slower' ? 3 : 0, verify.stderr);
      const moved = Object.entries<any>(c.metrics).filter(([, m]) => m.significant).map(([k, m]) => `${k} ×${m.ratio.toFixed(3)} (${m.ciLow.toFixed(3)} … ${m.ciHigh.toFixed(3)})`);
      outcomes.push(`${c.verdict}${moved.length ? `: ${moved.join(', ')}` : ''}; ${c.method.replace(/^.*intervals include/, 'intervals include')}`);
      assert.deepEqual(await waitForNoProcesses(tag), []);
    }
    console.log(outcomes.map((o, i) => `      verify ${i + 1}: ${o}`).join('\n'));
    const falseVerdicts = outcomes.filter((o) => !o.startsWith('no-significant-change')).length;
    assert.ok(falseVerdicts <= MOST_FALSE, `${falseVerdicts} of ${REPETITIONS} unchanged apps were called changed:\n${outcomes.join('\n')}`);
  });
});
