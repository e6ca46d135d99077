/** V8's signals of several isolates of one process merged for the model of all its threads. */
import * as assert from 'node:assert/strict';
import { mergeV8Signals } from '../../src/core/v8/mergeThreads';
import type { RawV8Function, V8RawSignals } from '../../src/core/v8/types';

const ref = (name: string, line: number) => ({ name, file: '/app/worker.js', line, column: 10 });
const fn = (over: Partial<RawV8Function> & { name: string; line: number }): RawV8Function => ({
  ...ref(over.name, over.line), optimizations: 0, marked: 0, aborted: [], deopts: [], inlined: [], inlinedInto: [], ...over,
});
const signals = (functions: RawV8Function[], over: Partial<V8RawSignals> = {}): V8RawSignals => ({
  version: 1, mode: 'launch', collection: { collected: true, nodeVersion: 'v24.0.0' }, functions, tiersRead: 'ok', ...over,
});

describe('V8 signals of several isolates', () => {
  it('adds up compiles and deopts of one function\'s copies, unites its inlining, keeps the first known tier', () => {
    const deopt = { kind: 'deopt-eager', reason: 'wrong map', frames: [{ file: '/app/worker.js', line: 12, column: 3 }], osr: false, count: 2 };
    const a = signals([fn({ name: 'task', line: 25, tier: 'TurboFan', status: 0x31, optimizations: 1, deopts: [deopt], inlined: [ref('levenshtein', 8)], inlineSites: [{ callee: ref('levenshtein', 8), caller: ref('task', 25), line: 28, column: 22 }] })]);
    const b = signals([
      fn({ name: 'task', line: 25, tier: 'Maglev', status: 0x11, optimizations: 2, deopts: [{ ...deopt, count: 3 }, { ...deopt, reason: 'not a Smi', count: 1 }], inlined: [ref('levenshtein', 8), ref('score', 40)] }),
      fn({ name: 'levenshtein', line: 8, tier: 'TurboFan', inlinedInto: [ref('task', 25)] }),
    ]);
    const merged = mergeV8Signals([a, undefined, b])!;
    assert.equal(merged.functions.length, 2);
    const task = merged.functions.find((f) => f.name === 'task')!;
    assert.equal(task.optimizations, 3);
    assert.equal(task.tier, 'TurboFan');
    assert.equal(task.status, 0x31);
    assert.deepEqual(task.deopts.map((d) => [d.reason, d.count]), [['wrong map', 5], ['not a Smi', 1]]);
    assert.deepEqual(task.inlined.map((r) => r.name), ['levenshtein', 'score']);
    assert.equal(task.inlineSites?.length, 1);
    assert.equal(a.functions[0].optimizations, 1, 'the inputs are left as they were');
    assert.equal(a.functions[0].deopts[0].count, 2);
  });

  it('takes the tier of the first isolate that knows one, and joins limitations and findings', () => {
    const x = signals([fn({ name: 'task', line: 25, tier: 'unknown' })], { collection: { collected: true, nodeVersion: 'v24.0.0', limitation: 'worker 1: a.', findings: [{ id: 'F', title: 't', text: 'x', fix: 'f' }] }, tiersRead: 'failed' });
    const y = signals([fn({ name: 'task', line: 25, tier: 'Sparkplug', status: 0x5 })], { collection: { collected: true, nodeVersion: 'v24.0.0', limitation: 'worker 2: b.', findings: [{ id: 'F', title: 't', text: 'x', fix: 'f' }] } });
    const merged = mergeV8Signals([x, y])!;
    assert.equal(merged.functions[0].tier, 'Sparkplug');
    assert.equal(merged.functions[0].status, 0x5);
    assert.equal(merged.collection.limitation, 'worker 1: a. worker 2: b.');
    assert.equal(merged.collection.findings?.length, 1);
    assert.equal(merged.tiersRead, 'failed');
  });

  it('is the one isolate\'s signals when there is only one, and nothing when there are none', () => {
    const only = signals([]);
    assert.equal(mergeV8Signals([undefined, only]), only);
    assert.equal(mergeV8Signals([undefined]), undefined);
  });
});
