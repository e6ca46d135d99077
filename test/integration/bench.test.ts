// `hotpath bench` on real tinybench files (test/fixtures/npm-apps/bench-suite, tinybench from npm):
// two implementations with a known cost ratio ordered correctly, V8's view of each task, a task V8
// optimises away flagged, the interleaved comparison's verdict; node:bench on Node 26.9+. The CLI runs
// on the Node version under test, and so does the benchmark. Stored baselines: benchBaseline.test.ts.
//
// test-lane: measured — the "measures nothing" flag compares a task's time per call with an empty
// function's, and the comparisons are verdicts: another suite's load would be noise the sizing excludes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCli, runCliOn } from '../helpers/cli';
import { NODE_MATRIX, nodeFor } from '../helpers/nodeVersions';
import { logVerdict } from '../helpers/verdicts';

const SUITE = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite');
/**
 * Short tasks (the test is about what is found, not precision), but 400 ms each (was 150): a task's mean
 * per call over a window shorter than the scheduler's bursts on a busy machine moved with them. The
 * discarded task's own bench caps it at 100 ms (the fixture): the flag compares medians, which millions of
 * calls settle, and tinybench sorting ten million samples took 3 s of each process (16 → 10 s a Node).
 */
const SHORT = ['--env', 'BENCH_TIME_MS=400'];
const task = (doc: any, name: string) => doc.bench.tasks.find((t: any) => t.name === name);

for (const [major, label] of NODE_MATRIX) {
  describe(`hotpath bench, Node ${major} (${label})`, function () {
    this.timeout(240_000);
    let node = process.execPath;

    before(function () {
      node = nodeFor(this, major);
    });

    it('tinybench: per-task ops/s, mean and p99 per op with intervals, V8\'s view; the 4×-work task is slower; the discarded task is flagged', async () => {
      // Chance of failing on a correct product, per Node version:
      // - "fast beats slow": 4× the work per call, over 3 processes. Alone on an idle machine the means
      //   differ by about the work; with 8 other agents on the 2 cores (load average 10–15), 150 ms tasks
      //   measured ×1.45–2.8 and 400 ms ones ×1.8–3.3 (6 runs): a log-normal fit of those puts a wrong order
      //   near 1/1000 at such load, far below it on the idle machine CI and the census run on. The file
      //   runs alone (measured lane), so no suite of ours adds to that load.
      // - the discarded task flagged: the flag compares the task's median per call with the empty
      //   function's, and per-call times of a few tens of ns cluster on a few readings (30 and 40 ns here).
      //   Until the flag also took the empty function's own spread (its 75th percentile), a run could put
      //   the empty function's median at 30 and the task's at 40 in every process: clean54 on Node 22, then
      //   3 of 3 runs by hand — systematic that session, not the one-in-40 chance this comment once
      //   assumed. With the spread: flagged in 29 of 29 runs here (Node 22: 9, Node 20 and 24: 7, Node 26: 6),
      //   and in 16 of 16 (4 per Node) with the discarded task measured for 100 ms, as now.
      //   A miss now needs the task's median on the 40 ns reading and under a quarter of the empty calls
      //   there, i.e. the empty function's mean below ~32.5 ns; in the 6 Node 22 processes whose floor was
      //   logged it was 34.1–35.7 ns (SD ~0.6): > 3 SD low in each of the 3 processes whose spreads are
      //   averaged, well under 1e-3 per Node version. On the other versions the task's median is the empty
      //   function's reading or below it. The re-measure stays for the product's own UNSTABLE warning
      //   (another program took the CPU): its advice is to run more processes, so the test does (6
      //   instead of 3), at most twice, only after a run the product marks unstable; every run it trusts
      //   must flag the task. Each miss logs the task's result.
      const measure = async (runs: number) => {
        const run = await runCliOn(node, ['bench', 'checksum.bench.js', '--runs', String(runs), ...SHORT, '--json'], { cwd: SUITE, timeoutMs: 110_000 });
        assert.equal(run.code, 0, run.stderr);
        return run.json();
      };
      const flagged = (d: any) => task(d, 'discarded')?.warnings.some((w: any) => w.code === 'OPTIMIZED_AWAY');
      const unstable = (d: any) => d.bench.tasks.some((t: any) => t.warnings.some((w: any) => w.code === 'UNSTABLE'));
      let doc = await measure(3);
      for (let again = 0; again < 2 && !flagged(doc) && unstable(doc); again++) {
        // The product says this run's numbers are not to be trusted (another program took the CPU: CI once
        // measured the discarded task above 1.25× the empty function). Measure again, as its advice says.
        console.log(`      # unstable run, measured again with 6 processes: discarded ${JSON.stringify(task(doc, 'discarded'))?.slice(0, 400)}`);
        doc = await measure(6);
      }
      assert.equal(doc.bench.harness, 'tinybench');
      assert.match(doc.bench.nodeVersion, new RegExp(`^v${major}\\.`));
      assert.deepEqual(doc.bench.tasks.map((t: any) => t.name), ['slow', 'fast', 'discarded']);
      for (const t of doc.bench.tasks) {
        for (const key of ['name', 'opsPerSec', 'rme', 'samples', 'meanNs', 'p99Ns', 'v8', 'warnings']) assert.ok(key in t, `tasks[].${key}`);
        assert.ok(t.opsPerSec > 0 && t.meanNs > 0 && t.p99Ns > 0 && t.samples > 0 && (t.runs === 3 || t.runs === 6), JSON.stringify(t));
        assert.ok(t.meanNsCi.low <= t.meanNs && t.meanNs <= t.meanNsCi.high);
        assert.ok(t.v8 && typeof t.v8.tier === 'string', `V8's view of ${t.name}: ${JSON.stringify(t.v8)}`);
      }
      const slow = task(doc, 'slow');
      const fast = task(doc, 'fast');
      console.log(`      # slow ${Math.round(slow.meanNs)} ns, fast ${Math.round(fast.meanNs)} ns per call (×${(slow.meanNs / fast.meanNs).toFixed(2)}); discarded: ${task(doc, 'discarded').warnings.map((w: any) => w.code).join(', ')}`);
      assert.ok(fast.opsPerSec > slow.opsPerSec, `fast (one pass) beats slow (four passes): ${fast.opsPerSec} vs ${slow.opsPerSec}`);
      assert.ok(flagged(doc), JSON.stringify(task(doc, 'discarded')));
      assert.ok(!slow.warnings.some((w: any) => w.code === 'OPTIMIZED_AWAY') && !fast.warnings.some((w: any) => w.code === 'OPTIMIZED_AWAY'));
      assert.equal(doc.v8.collected, true, JSON.stringify(doc.v8));
    });

    if (Number(major) >= 26) {
      it('node:bench: the same two checksums, ordered, with V8\'s view', async () => {
        // Chance of failing on a correct product: about 3e-4 — 4× the work per call (as above) over 2 processes: z ≈ 3.4.

        const run = await runCliOn(node, ['bench', 'checksum.node-bench.js', '--runs', '2', '--json'], { cwd: SUITE, timeoutMs: 230_000 });
        assert.equal(run.code, 0, run.stderr);
        const doc = run.json();
        assert.equal(doc.bench.harness, 'node:bench');
        assert.ok(task(doc, 'checksum › fast').opsPerSec > task(doc, 'checksum › slow').opsPerSec, JSON.stringify(doc.bench.tasks));
        assert.ok(task(doc, 'checksum › slow').v8, 'V8\'s view of the node:bench function');
      });
    }
  });
}

describe('hotpath bench: comparisons and baselines', function () {
  this.timeout(300_000);
  let cwd: string;
  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-'));
  });
  after(() => { if (cwd) fs.rmSync(cwd, { recursive: true, force: true }); });

  it('--compare slow,fast: interleaved process pairs; the verdict says "faster" with a ratio below 1', async () => {
    // Adaptive pairs (5 to 20, until ±3%): on a machine busy with other tests a fixed few pairs can be too few.
    // Chance of failing on a correct product: < 1e-6. A 4× difference in work (log ratio ≈ 1.1–1.4) against
    // a paired interval that the engine narrows to ±3% or runs 20 pairs for: "faster" needs the interval
    // below 1, which only a pair SD above ~0.5 on the log scale could prevent, and pairs of one machine
    // moment cancel what load does to both.
    const run = await runCli(['bench', path.join(SUITE, 'checksum.bench.js'), '--runs', '1', '--tasks', 'slow,fast', '--compare', 'slow,fast', '--env', 'BENCH_TIME_MS=300', '--no-v8', '--json'], { cwd, timeoutMs: 290_000 });
    assert.equal(run.code, 0, run.stderr);
    const c = run.json().bench.comparison;
    logVerdict('bench --compare slow,fast', c);
    assert.equal(c.kind, 'tasks');
    assert.equal(c.verdict, 'faster', JSON.stringify(c));
    assert.ok(c.pairs >= 5 && c.pairs <= 20);
    const m = c.metrics.meanNs;
    assert.ok(m.ratio < 1 && m.ciHigh < 1 && m.pValue < 0.05, JSON.stringify(m));
    assert.match(c.summary, /"fast" against "slow": faster/);
  });

  it('a file for neither harness is refused with what to do', async () => {
    const file = path.join(cwd, 'plain.js');
    fs.writeFileSync(file, 'console.log(1)\n');
    const run = await runCli(['bench', file, '--json'], { cwd });
    assert.equal(run.code, 2);
    assert.match(run.json().error.message, /imports neither tinybench nor node:bench/);
  });
});
