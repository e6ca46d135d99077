import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCli } from '../helpers/cli';

const SUITE = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite');
/** As in bench.test.ts: tasks of 400 ms. */
const SHORT = ['--env', 'BENCH_TIME_MS=400'];

/**
 * `hotpath bench --save` and `--baseline`: what is stored and how it is compared. Any verdict is
 * accepted, so this file runs in the shared lane (it was part of bench.test.ts, whose order and flag
 * assertions keep that file measured).
 */
describe('hotpath bench: stored baselines', function () {
  this.timeout(300_000);
  let cwd: string;
  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-'));
  });
  after(() => { if (cwd) fs.rmSync(cwd, { recursive: true, force: true }); });

  it('--save then --baseline: stored per-process means, compared on the ratio scale; a missing baseline says how to make one', async () => {
    // No random outcome asserted: any of the three verdicts (and exit 0 or 3) is accepted.
    const base = ['bench', path.join(SUITE, 'checksum.bench.js'), '--runs', '2', '--tasks', 'fast', ...SHORT, '--no-v8', '--json'];
    const saved = await runCli([...base, '--save', 'checksum'], { cwd, timeoutMs: 200_000 });
    assert.equal(saved.code, 0, saved.stderr);
    const file = saved.json().bench.baselinePath;
    assert.ok(fs.existsSync(file) && JSON.parse(fs.readFileSync(file, 'utf8')).tasks.fast.runMeansNs.length === 2);
    const again = await runCli([...base, '--baseline', 'checksum'], { cwd, timeoutMs: 200_000 });
    assert.ok(again.code === 0 || again.code === 3, again.stderr);
    const c = again.json().bench.comparison;
    assert.equal(c.kind, 'baseline');
    assert.ok(['faster', 'slower', 'no-significant-change'].includes(c.verdict));
    assert.ok(c.metrics['meanNs:fast'].ratio > 0);
    const missing = await runCli([...base, '--baseline', 'nope'], { cwd });
    assert.equal(missing.code, 1);
    assert.match(missing.json().error.message, /hotpath bench FILE --save nope/);
  });
});
