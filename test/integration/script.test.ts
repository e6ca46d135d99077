// test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, runCli, waitForNoProcesses } from '../helpers/cli';

describe('hotpath profile --script', function () {
  this.timeout(120_000);
  let out: string;
  before(() => { out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-script-')); });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it('profiles a script to completion, startup included', async () => {
    // Chance of failing on a correct product: < 1e-6 — crunch is the script's loop (~0.86 s of CPU here),
    // startupWork ~60 ms at module load. Present: 60 ms at 1 ms is ~60 samples (at ~16 ms, census43 run 2
    // saw none, the profiler's sampling thread starved in a busy lane). First: a sample weighs the wall
    // time since the one before, so a descheduled stretch can give startupWork at most its own wall time,
    // and crunch keeps at least its CPU time: to outrank it, startupWork's 60 ms of CPU would have to take
    // over 0.86 s of wall time (the process under 7% of a core); at 94 ms against 345 (census37, beside a
    // CPU competitor) it once did.
    const tag = marker();
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--', 'node', path.join(APPS, 'cpu-script.js'), tag]);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    const names = doc.hotspots.filter((h: any) => h.category === 'user').map((h: any) => h.function);
    const seen = JSON.stringify(doc.hotspots.slice(0, 8).map((h: any) => [h.function, h.selfMs]));
    assert.equal(names[0], 'crunch', seen);
    assert.ok(names.includes('startupWork'), `module-load work is in the profile: ${seen}`);
    assert.equal(doc.target.exitCode, 0);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('profiles worker threads and labels their hotspots with the thread', async () => {
    const tag = marker();
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--', 'node', path.join(APPS, 'worker-script.js'), tag]);
    assert.equal(run.code, 0, run.stderr);
    const doc = run.json();
    const hot = doc.hotspots.find((h: any) => h.function === 'workerHotLoop');
    assert.ok(hot, `workerHotLoop among hotspots: ${JSON.stringify(doc.hotspots.map((h: any) => h.function))}`);
    assert.match(hot.thread, /^worker \d+/);
    assert.ok(doc.profiles.some((p: any) => p.thread.startsWith('worker') && fs.existsSync(p.path)));
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});
