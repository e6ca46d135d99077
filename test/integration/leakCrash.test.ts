// The leak check when the app does not survive it, through every entry point that runs one: `hotpath
// leak`, `baseline --leak`, verify's leak check, and VS Code's Check for Leaks (the engine's run and the
// status bar and notification it leads to). Two fixtures, both deterministic in request counts:
// - test/fixtures/apps/leak-exits-mid-rung.js exits with code 3 after 300 requests when it runs under a
//   heap ceiling (as the leak check starts it; baseline's and verify's timed runs do not): with
//   `--warmup 0 --rung 200` that is in the second load rung, after the rungs at 0 and 200 requests;
// - test/fixtures/apps/leak-oom.js keeps ~180 KB per request: under --max-old-space-size=64 it runs out
//   of heap between 200 and 400 requests (rungs of 100).
// Before the fix the first hung for ever (a load of N requests against a closed port never completes)
// and the second ended in "HeapProfiler.collectGarbage failed: WebSocket is not open" with the rungs
// dropped. Nothing here asserts a duration or a leak verdict: a crashed check has none.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, runCli, runCliOn, waitForNoProcesses } from '../helpers/cli';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';
import { defaultCeilingMb } from '../../src/core/memory/heapCeiling';
import { executeRun } from '../../src/vscode/workflow/engine';
import { leakCrashView } from '../../src/vscode/workflow/leakCrashStatus';
import { renderStatus } from '../../src/vscode/status/render';
import type { LeakResult } from '../../src/core/workflow/leakCheck';

const EXITS = path.join(APPS, 'leak-exits-mid-rung.js');
const OOM = path.join(APPS, 'leak-oom.js');
const EXIT_LINE = 'leak-exits-mid-rung: served 300 requests, exiting with code 3';
const RUNGS = ['--warmup', '0', '--idle', '1', '--connections', '4'];

/** The crash fields a test can know in advance. */
const crashOf = (c: any) => ({ code: c.code, signal: c.signal, outOfMemory: c.outOfMemory, during: c.during, afterRequests: c.afterRequests, rungTarget: c.rungTarget });
const EXITED_MID_RUNG = { code: 3, signal: null, outOfMemory: false, during: 'load', afterRequests: 200, rungTarget: 400 };

describe('leak check: an app that exits in the middle of a load rung', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => { dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-leak-crash-'))); });
  after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

  async function cli(args: string[], app: string, tag: string, env: string[] = []) {
    const run = await runCli([...args, ...env, '--', process.execPath, app, tag], { cwd: dir, timeoutMs: 150_000 });
    assert.deepEqual(await waitForNoProcesses(tag), [], 'no app process left behind');
    return run;
  }

  it('hotpath leak --json: the exit named (code, last output, where), the two rungs before it kept, the check\'s heap ceiling, exit 1', async () => {
    const tag = marker();
    const run = await cli(['leak', '--json', ...RUNGS, '--rung', '200', '--name', 'exits'], EXITS, tag);
    assert.equal(run.code, 1, run.stderr);
    const doc = run.json();
    assert.equal(doc.error.code, 'TARGET_EXITED');
    const l = doc.leak;
    assert.equal(l.verdict, 'incomplete');
    assert.deepEqual(l.rungs.map((r: any) => [r.phase, r.requests]), [['warmup', 0], ['load', 200]]);
    assert.ok(l.rungs.every((r: any) => r.heapUsedBytes > 0), JSON.stringify(l.rungs));
    assert.deepEqual(crashOf(l.crash), EXITED_MID_RUNG);
    assert.ok(l.crash.output.includes(EXIT_LINE), JSON.stringify(l.crash.output));
    assert.match(l.crash.message, /^The app exited with code 3 during the load between 200 and 400 requests\. The check is incomplete: the 2 heap measurements before the end are kept/);
    assert.equal(doc.error.message, l.crash.message);
    assert.deepEqual(l.sites, []);
    // The check ran the app under its own ceiling (the fixture exits only under one, so the crash proves it too).
    assert.deepEqual({ setBy: l.heapCeiling.setBy, maxOldSpaceMb: l.heapCeiling.maxOldSpaceMb }, { setBy: 'hotpath', maxOldSpaceMb: defaultCeilingMb() });
    assert.ok(l.heapCeiling.heapSizeLimitBytes >= defaultCeilingMb() * 2 ** 20 && l.heapCeiling.heapSizeLimitBytes < (defaultCeilingMb() + 256) * 2 ** 20, String(l.heapCeiling.heapSizeLimitBytes));
    assert.equal(doc.checks[0].id, 'heap-growth');
    assert.equal(doc.checks[0].title, 'The app ended during the leak check');
    // An incomplete check is not stored: the next check compares with the last complete one.
    assert.ok(!fs.existsSync(path.join(dir, '.hotpath', 'leaks', 'exits.json')));
  });

  it('hotpath leak (text): INCOMPLETE, how the app ended, its last output, the rungs table', async () => {
    const tag = marker();
    const run = await cli(['leak', ...RUNGS, '--rung', '200'], EXITS, tag);
    assert.equal(run.code, 1, run.stderr);
    const out = run.stdout;
    assert.match(out, /Heap after full GC: INCOMPLETE: the app ended before the check did, no verdict \(2 heap measurements before the end\)/);
    assert.match(out, /The app exited with code 3 during the load between 200 and 400 requests\./);
    assert.match(out, /Last output of the app \(exit code 3\):\n {2}leak-exits-mid-rung: served 300 requests, exiting with code 3\n/);
    assert.match(out, /Heap after each forced full GC \(before the app ended\):\nMeasured +Requests +Heap used +External *\nafter warm-up +0 +[\d.]+ MB/);
    assert.match(out, /\nafter load +200 +[\d.]+ MB/);
    assert.match(out, /Heap limit during the check: [\d.]+ GB \(the check's ceiling, --max-old-space-size=\d+;/);
  });

  it('baseline --leak: the runs are saved without a leak check, the crash is named with the rungs measured before, exit 1', async () => {
    const tag = marker();
    const run = await cli(['baseline', '--leak', '--json', '--runs', '2', '--duration', '1', ...RUNGS, '--rung', '200', '--name', 'with-leak'], EXITS, tag);
    assert.equal(run.code, 1, run.stderr);
    const doc = run.json();
    assert.equal(doc.error.code, 'TARGET_EXITED');
    assert.equal(doc.runs.length, 2);
    assert.deepEqual(crashOf(doc.leak.crash), EXITED_MID_RUNG);
    assert.deepEqual(doc.leak.rungs.map((r: any) => r.requests), [0, 200]);
    const stored = JSON.parse(fs.readFileSync(doc.baselinePath, 'utf8'));
    assert.equal(stored.runs.length, 2);
    assert.equal(stored.leak, undefined, 'no leak record from an incomplete check');
    const text = await cli(['baseline', '--leak', '--runs', '2', '--duration', '1', ...RUNGS, '--rung', '200', '--name', 'with-leak-text'], EXITS, marker());
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /Leak check: INCOMPLETE: the app ended before the check did/);
    assert.match(text.stdout, /The baseline was saved without a leak check\./);
  });

  it('verify: its leak check ends with the app; the throughput comparison stays, the crash is named, exit 1', async () => {
    // The baseline's own check completes (EXIT_AFTER=0: the fixture never exits); verify's does not.
    const base = await cli(['baseline', '--leak', '--json', '--runs', '2', '--duration', '1', ...RUNGS, '--rung', '200', '--name', 'for-verify'], EXITS, marker(), ['--env', 'EXIT_AFTER=0']);
    assert.equal(base.code, 0, base.stderr);
    assert.ok(JSON.parse(fs.readFileSync(base.json().baselinePath, 'utf8')).leak, 'the baseline keeps its leak check');
    const tag = marker();
    const run = await cli(['verify', '--json', '--rung', '200', '--idle', '1', '--name', 'for-verify'], EXITS, tag);
    assert.equal(run.code, 1, run.stderr);
    const doc = run.json();
    assert.equal(doc.error.code, 'TARGET_EXITED');
    assert.equal(doc.runs.length, 2);
    assert.ok(['faster', 'slower', 'no-significant-change'].includes(doc.comparison.verdict), JSON.stringify(doc.comparison).slice(0, 300));
    assert.deepEqual(crashOf(doc.leak.crash), EXITED_MID_RUNG);
    assert.equal(doc.leakComparison, null);
  });

  it('VS Code Check for Leaks: the engine\'s run keeps the rungs; the status bar and the notification say how the app ended', async () => {
    const tag = marker();
    const result = await executeRun({
      kind: 'leak',
      target: { name: 'exits', command: [process.execPath, EXITS, tag], cwd: dir, env: {} },
      settings: { load: { warmupSeconds: 0, connections: 4 }, runs: 1, samplingIntervalMicros: 1000, leak: { rungRequests: 200, idleSeconds: 1 } },
    }, {}) as LeakResult;
    assert.deepEqual(await waitForNoProcesses(tag), [], 'no app process left behind');
    assert.deepEqual(crashOf(result.leak.crash), EXITED_MID_RUNG);
    const view = leakCrashView(result.name, result.leak)!;
    const status = renderStatus(view.status);
    assert.equal(status.text, '$(pulse) heap check: app exited with code 3');
    assert.equal(status.tone, 'slower');
    assert.match(status.tooltip, /incomplete, no verdict/);
    assert.match(status.tooltip, /Heap after full GC before the end: [\d.]+ MB after 0 requests · [\d.]+ MB after 200 requests\./);
    assert.match(view.summary, /^Leak check "exits" incomplete: The app exited with code 3 during the load between 200 and 400 requests\./);
  });
});

for (const [major] of NODE_MATRIX) {
  describe(`leak check: a fast leak that runs the app out of heap, Node ${major}`, function () {
    this.timeout(180_000);
    let node = process.execPath;
    let dir: string;
    before(function () {
      node = nodeFor(this, major);
      dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-leak-oom-${major}-`)));
    });
    after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

    it('"out of memory" named with V8\'s own line, the rungs before it kept, the app\'s own heap limit respected, no process left', async () => {
      const tag = marker();
      const run = await runCliOn(node, ['leak', '--json', ...RUNGS, '--rung', '100', '--env', 'NODE_OPTIONS=--max-old-space-size=64', '--', node, OOM, tag], { cwd: dir, timeoutMs: 150_000 });
      assert.deepEqual(await waitForNoProcesses(tag), [], 'no app process left behind');
      assert.equal(run.code, 1, run.stderr);
      const doc = run.json();
      assert.equal(doc.error.code, 'TARGET_EXITED');
      const l = doc.leak;
      assert.equal(l.verdict, 'incomplete');
      const c = l.crash;
      assert.equal(c.outOfMemory, true, JSON.stringify(c.output));
      assert.match(c.outOfMemoryLine, /heap out of memory|heap limit/);
      assert.equal(c.signal, 'SIGABRT', `exit ${c.code}, signal ${c.signal}`);
      assert.match(c.message, /^The app ran out of memory (during the load between \d+ and \d+ requests|while its heap was measured after \d+ requests) \(V8: ".+"; the command was killed by SIGABRT\) at a heap limit of [\d.]+ MB, the app's own --max-old-space-size=64\./);
      // ~180 KB a request: the rungs at 0 and 100 requests fit in 64 MB, 400 do not.
      const counts = l.rungs.map((r: any) => r.requests);
      assert.ok(counts.length >= 2 && [0, 100, 200].slice(0, counts.length).join() === counts.join(), counts.join());
      assert.ok(c.afterRequests === counts[counts.length - 1]);
      assert.equal(l.heapCeiling.setBy, 'app');
      assert.equal(l.heapCeiling.maxOldSpaceMb, 64);
      // V8's limit counts the young generation too: 112 MB on Node 20, 256 MB on Node 24 for this old space.
      assert.ok(l.heapCeiling.heapSizeLimitBytes > 64 * 2 ** 20 && l.heapCeiling.heapSizeLimitBytes <= 512 * 2 ** 20, String(l.heapCeiling.heapSizeLimitBytes));
      assert.equal(doc.checks[0].title, 'The app ran out of memory during the leak check');
    });
  });
}
