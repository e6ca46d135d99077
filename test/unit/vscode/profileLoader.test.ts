/**
 * The editor's profile loader (src/vscode/workflow/profileLoader.ts, over the built dist/profileWorker.js):
 * the result arrives with what the editor draws, errors keep their code, Cancel stops the worker at once.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource, neverCancelled } from '../../../src/core/common/cancellation';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';
import { loadProfileInWorker } from '../../../src/vscode/workflow/profileLoader';
import { profileOf } from '../../hostileText';

const WORKER = path.resolve(__dirname, '../../../dist/profileWorker.js');

describe('profile loader (worker thread)', function () {
  this.timeout(60_000);
  let dir: string;
  before(function () {
    if (!fs.existsSync(WORKER)) this.skip(); // needs `npm run build` (npm test builds first)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-loader-'));
  });
  after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

  it('returns hotspots, annotations and the flamegraph payload, with progress', async () => {
    const file = path.join(dir, 'p.cpuprofile');
    fs.writeFileSync(file, JSON.stringify(profileOf([{ name: 'hot', url: 'file:///app/a.js', line: 3, samples: 40 }, { name: 'cold', url: 'file:///app/b.js', samples: 2 }])));
    const stages: string[] = [];
    const view = await loadProfileInWorker({ file, maxFunctions: 15 }, neverCancelled, (s) => stages.push(s), WORKER);
    assert.equal(view.hotspots[0].function, 'hot');
    assert.ok(view.payload && view.annotations);
    assert.ok(!('model' in view), 'the model stays in the worker');
    assert.ok(stages.length >= 3, stages.join(', '));
  });

  it('an invalid profile rejects with its HotpathError code and message', async () => {
    const file = path.join(dir, 'bad.cpuprofile');
    fs.writeFileSync(file, '{"nodes": [');
    await assert.rejects(loadProfileInWorker({ file, maxFunctions: 15 }, neverCancelled, undefined, WORKER), (err) => isHotpathError(err, ErrorCode.ProfileInvalid) && /truncated/.test(err.message));
  });

  it('cancel rejects at once and stops the worker', async () => {
    const file = path.join(dir, 'big.cpuprofile');
    const frames = Array.from({ length: 200 }, (_, i) => ({ name: `f${i}`, url: `file:///app/m${i % 20}.js`, line: i + 1, samples: 2000 }));
    fs.writeFileSync(file, JSON.stringify(profileOf(frames)));
    const cts = new CancellationTokenSource();
    const loading = loadProfileInWorker({ file, maxFunctions: 15 }, cts.token, undefined, WORKER);
    // Chance of failing on a correct product: 0 in practice — a worker thread takes tens of ms to start
    // before it reads a byte of the 200-frame profile, so the cancel 5 ms in always finds it loading.
    setTimeout(() => cts.cancel(), 5);
    await assert.rejects(loading, (err) => isHotpathError(err, ErrorCode.Cancelled));
  });
});
