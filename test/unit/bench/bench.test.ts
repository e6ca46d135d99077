import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateTask, logInterval } from '../../../src/core/bench/aggregate';
import { detectHarness, taskLines } from '../../../src/core/bench/detect';
import { parseNodeBenchReport, quantile } from '../../../src/core/bench/nodeBench';
import type { BenchTaskRun } from '../../../src/core/bench/reports';
import { loadBenchBaseline, saveBenchBaseline } from '../../../src/core/bench/store';
import { formatNs } from '../../../src/shared/text/numbers';

const run = (meanNs: number, extra: Partial<BenchTaskRun> = {}): BenchTaskRun => ({ name: 't', meanNs, p99Ns: meanNs * 2, samples: 1000, rmePct: 1, ...extra });

describe('benchmark statistics across processes', () => {
  it('geometric mean and a t-interval of the per-process means (the sample size is the processes)', () => {
    const t = aggregateTask({ name: 't', runs: [run(100), run(101), run(100.5)], floorsNs: [20], v8: null });
    assert.ok(Math.abs(t.meanNs - Math.cbrt(100 * 101 * 100.5)) < 1e-9);
    assert.ok(t.meanNsCi!.low < t.meanNs && t.meanNs < t.meanNsCi!.high);
    assert.ok(Math.abs(t.opsPerSec - 1e9 / t.meanNs) < 1e-6);
    assert.ok(t.opsPerSecCi!.low < t.opsPerSec && t.opsPerSec < t.opsPerSecCi!.high);
    assert.equal(t.samples, 3000);
    assert.equal(t.runs, 3);
    assert.deepEqual(t.warnings, []);
    assert.equal(logInterval([5]), null, 'one value: no interval');
  });

  it('one process: the harness\'s within-run margin, said to be that', () => {
    const t = aggregateTask({ name: 't', runs: [run(100, { rmePct: 2 })], floorsNs: [], v8: null });
    assert.equal(t.rme, 2);
    assert.ok(Math.abs(t.meanNsCi!.low - 98) < 1e-9 && Math.abs(t.meanNsCi!.high - 102) < 1e-9);
  });

  it('flags a task no slower than the empty function (optimised away), and sub-ns work without a floor', () => {
    assert.equal(aggregateTask({ name: 't', runs: [run(31), run(30)], floorsNs: [29, 30], v8: null }).warnings[0].code, 'OPTIMIZED_AWAY');
    assert.deepEqual(aggregateTask({ name: 't', runs: [run(300), run(301)], floorsNs: [29], v8: null }).warnings, []);
    assert.equal(aggregateTask({ name: 't', runs: [run(0.6), run(0.61)], floorsNs: [], v8: null }).warnings[0].code, 'UNDER_A_FEW_NS');
    // A busy machine spikes one process's mean; medians per call still show the empty function's cost.
    const spiky = aggregateTask({ name: 't', runs: [run(300, { p50Ns: 40 }), run(35, { p50Ns: 40 })], floorsNs: [60], floorsP50Ns: [40], v8: null });
    assert.match(spiky.warnings.find((w) => w.code === 'OPTIMIZED_AWAY')!.message, /40\.0 ns per call \(median\)/);
  });

  it('a median within the empty function\'s own spread (up to its 75th percentile) is flagged; one above it is not', () => {
    // Recorded on Node 22 (clean clone, 3 processes): per-call times cluster on 30 and 40 ns readings; the empty
    // function's median came out 30 (75th percentile 40), the discarded task's 40 (means 35 and 37 ns).
    const runs = [run(37.1, { p50Ns: 40 }), run(37.5, { p50Ns: 40 }), run(37.2, { p50Ns: 40 })];
    const input = { name: 'discarded', runs, floorsNs: [34.5, 34.1, 34.1], floorsP50Ns: [30, 30, 30], v8: null };
    const flagged = aggregateTask({ ...input, floorsP75Ns: [40, 40, 40] }).warnings.find((w) => w.code === 'OPTIMIZED_AWAY');
    assert.ok(flagged, 'flagged');
    assert.match(flagged.message, /40\.0 ns per call \(median\).*\(30\.0 ns; a quarter of its calls took 40\.0 ns or more\)/);
    assert.deepEqual(aggregateTask(input).warnings, [], 'without the spread (older results), the median rule alone: 40 > 1.25 × 30');
    // Real work a step above the spread is not flagged.
    const busy = aggregateTask({ ...input, runs: runs.map((r) => ({ ...r, p50Ns: 50, meanNs: 52 })), floorsP75Ns: [40, 40, 40] });
    assert.deepEqual(busy.warnings, []);
  });

  it('a deopt while measuring (optimized at the start, not at the end) and a warm-up too short, with V8\'s reasons', () => {
    const v8 = { tier: 'Ignition' as const, optimizations: 2, deopts: [{ kind: 'deopt-eager', reason: 'wrong map', file: '/b.js', line: 7, column: 3, count: 1, osr: false }], inlinedInto: [], inlined: [] };
    const deopt = aggregateTask({ name: 't', runs: [run(100, { tierAtStart: 'TurboFan', tierAtEnd: 'Ignition' }), run(100, { tierAtStart: 'TurboFan', tierAtEnd: 'TurboFan' })], floorsNs: [], v8 });
    const w = deopt.warnings.find((x) => x.code === 'DEOPTIMIZED_DURING_MEASUREMENT')!;
    assert.match(w.message, /1 of 2 processes\): wrong map at line 7/);
    const late = aggregateTask({ name: 't', runs: [run(100, { tierAtStart: 'Sparkplug', tierAtEnd: 'Maglev' }), run(101)], floorsNs: [], v8: null });
    assert.equal(late.warnings[0].code, 'OPTIMIZED_DURING_MEASUREMENT');
  });

  it('unstable results and failed tasks are said so', () => {
    assert.ok(aggregateTask({ name: 't', runs: [run(100), run(160), run(90)], floorsNs: [], v8: null }).warnings.some((w) => w.code === 'UNSTABLE'));
    const failed = aggregateTask({ name: 't', runs: [run(0, { error: 'boom' }), run(100), run(101)], floorsNs: [], v8: null });
    assert.equal(failed.runs, 2);
    assert.match(failed.warnings[0].message, /failed in 1 of 3 processes: boom/);
  });
});

describe('node:bench reports', () => {
  it('reads bench:complete events: mean per operation over all samples, p99 of the samples, errors', () => {
    const lines = [
      JSON.stringify({ type: 'bench:plan', data: { name: 'x' } }),
      JSON.stringify({ type: 'bench:complete', data: { name: 'sum', namePath: ['S', 'sum'], samples: [{ operations: 100, duration_ns: '1000' }, { operations: 100, duration_ns: '3000' }] } }),
      JSON.stringify({ type: 'bench:complete', data: { name: 'bad', samples: [], error: { message: 'did not call start()' } } }),
      'not json',
    ].join('\n');
    const r = parseNodeBenchReport(lines);
    assert.equal(r.harness, 'node:bench');
    assert.deepEqual(r.tasks[0], { ...r.tasks[0], name: 'S › sum', meanNs: 20, samples: 2 });
    assert.ok(Math.abs(r.tasks[0].p99Ns - 29.8) < 1e-9);
    assert.equal(r.tasks[1].error, 'did not call start()');
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
  });
});

describe('benchmark files', () => {
  it('tells tinybench from node:bench by their imports, and finds the task lines', () => {
    assert.equal(detectHarness("import { Bench } from 'tinybench';"), 'tinybench');
    assert.equal(detectHarness("const { Bench } = require('tinybench')"), 'tinybench');
    assert.equal(detectHarness("import { bench } from 'node:bench';"), 'node:bench');
    assert.equal(detectHarness("// uses tinybench-like code\nconst x = 'tinybench';"), undefined);
    assert.deepEqual(taskLines("bench\n  .add('slow', () => {})\n  .add(\"fast\", f);\nbench('n', (b) => {});"), [{ name: 'slow', line: 2 }, { name: 'fast', line: 3 }, { name: 'n', line: 4 }]);
  });

  it('baselines round-trip; a damaged one is refused with how to write it again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-store-'));
    try {
      const file = await saveBenchBaseline(dir, { version: 1, name: 'Parse v2', createdAt: 'now', file: '/b.js', nodeVersion: 'v22.1.0', tasks: { a: { runMeansNs: [1, 2], p99Ns: [3] } } });
      assert.equal(path.basename(file), 'parse-v2.json');
      assert.deepEqual((await loadBenchBaseline(dir, 'parse v2')).tasks.a.runMeansNs, [1, 2]);
      fs.writeFileSync(path.join(dir, 'bad.json'), '{"version":1,"name":"bad","tasks":{"a":{"runMeansNs":[-1]}}}');
      await assert.rejects(loadBenchBaseline(dir, 'bad'), /--save bad/);
      await assert.rejects(loadBenchBaseline(dir, 'missing'), /No benchmark baseline named 'missing'/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('formats time per operation from ns to ms', () => {
    assert.deepEqual([0.421, 12.34, 845.2, 4560, 123_400, 2_500_000].map(formatNs), ['0.42 ns', '12.3 ns', '845 ns', '4.56 µs', '123 µs', '2.50 ms']);
  });
});

import { benchmarkHarness, findExport } from '../../../src/core/bench/harness';
import { lineStillLoads, moduleLabelText, moduleLineLabels } from '../../../src/core/startup/lineLabels';
import { benchTaskLabel } from '../../../src/core/bench/labels';

describe('Create Benchmark for This Function', () => {
  it('finds how a function is exported: ES named, aliased, default; CommonJS object, property, whole', () => {
    assert.deepEqual(findExport('export function price(items, tax = 0) {}', 'a.js', 'price'), { kind: 'esm-named', exportedAs: 'price', params: ['items', 'tax'] });
    assert.deepEqual(findExport('const f = (x) => x;\nexport { f as g };', 'a.mjs', 'f'), { kind: 'esm-named', exportedAs: 'g', params: ['x'] });
    assert.deepEqual(findExport('export default function parse(text) {}', 'a.ts', 'parse'), { kind: 'esm-default', exportedAs: 'parse', params: ['text'] });
    assert.deepEqual(findExport('function a(x, ...rest) {}\nmodule.exports = { a, b: a };', 'a.js', 'a'), { kind: 'cjs-named', exportedAs: 'a', params: ['x', 'rest'] });
    assert.deepEqual(findExport('exports.total = function total(items) {};', 'a.js', 'total'), { kind: 'cjs-named', exportedAs: 'total', params: ['items'] });
    assert.deepEqual(findExport('function render(v: string) {}\nmodule.exports = render;', 'a.ts', 'render'), { kind: 'cjs-whole', exportedAs: 'render', params: ['v'] });
    assert.equal(findExport('function hidden() {}\nexport function other() {}', 'a.js', 'hidden'), undefined);
  });

  it('writes a tinybench harness next to the source that imports it as exported, with inputs to fill in and a sink', () => {
    const h = benchmarkHarness({ sourceFile: '/app/lib/pricing.js', name: 'lineTotal', exported: { kind: 'cjs-named', exportedAs: 'lineTotal', params: ['item', 'qty'] }, exists: (f) => f === '/app/lib/pricing.bench.mjs' });
    assert.equal(h.file, '/app/lib/pricing.lineTotal.bench.mjs', 'an existing harness is not overwritten');
    assert.match(h.text, /import \{ Bench \} from 'tinybench';/);
    assert.match(h.text, /const \{ lineTotal \} = require\('\.\/pricing\.js'\);/);
    assert.match(h.text, /const item = undefined; \/\/ TODO/);
    assert.match(h.text, /bench\.add\('lineTotal', \(\) => \{ sink = lineTotal\(item, qty\); \}\);/);
    assert.equal(detectHarness(h.text), 'tinybench');
    assert.doesNotThrow(() => findExport(h.text, h.file, 'x'), 'the harness parses');
    const ts = benchmarkHarness({ sourceFile: '/app/src/parse.ts', name: 'parse', exported: { kind: 'esm-default', exportedAs: 'parse', params: [] }, exists: () => false });
    assert.equal(ts.file, '/app/src/parse.bench.mts');
    assert.match(ts.text, /import parse from '\.\/parse\.ts';/);
  });
});

describe('editor labels', () => {
  it('`+38 ms (12 modules)` per require/import line, only where the line still asks for the module', () => {
    const row = (module: string, line: number, totalMs: number, modules: number) => ({ module, package: null, file: `/app/${module}.js`, requiredFrom: { file: '/app/cli.js', line }, selfMs: 1, totalMs, modules, format: 'commonjs' as const, timing: 'measured' as const, runs: 3, parent: '/app/cli.js' });
    const labels = moduleLineLabels([row('./a', 3, 38.2, 12), row('./b', 4, 2, 1), { ...row('./c', 0, 5, 1), requiredFrom: null }]).get('/app/cli.js')!;
    assert.deepEqual(labels.map((l) => [l.line, moduleLabelText(l)]), [[3, '+38.2 ms (12 modules)'], [4, '+2.00 ms (1 module)']]);
    assert.ok(lineStillLoads("const a = require('./a');", labels[0]));
    assert.ok(!lineStillLoads('const x = 1;', labels[0]), 'edited away: no label on the wrong line');
  });

  it('a task line: ops/s with its interval, time per op, p99, tier and warnings', () => {
    const t = aggregateTask({ name: 't', runs: [run(20_700), run(20_710)], floorsNs: [50], v8: { tier: 'TurboFan', optimizations: 1, deopts: [], inlinedInto: [], inlined: [] } });
    assert.match(benchTaskLabel(t), /^48,[23]\d\d ops\/s ±\d+(\.\d)?% · 20\.7 µs\/op · p99 41\.4 µs · TurboFan$/);
  });
});
