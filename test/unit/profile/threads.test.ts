/**
 * Several threads' profiles as one model (the editor's view of a worker pool): exact times per thread
 * and in all, a frame per thread, functions shared by threads merged, and the recorded fixtures merged
 * with themselves giving twice each function's time.
 */
import * as assert from 'node:assert/strict';
import { buildProfileModel } from '../../../src/core/profile';
import { PADDING, scanProfile } from '../../../src/core/profile/scanner';
import { ALL_THREADS, mergedThreadModel, mergeRawProfiles, threadNote, threadsOfFunctions, threadSummary, type ThreadPart } from '../../../src/core/profile/threads';
import { readFixture } from './helpers';

const frame = (id: number, name: string, url: string, line: number, children: number[] = [], ticks?: Array<[number, number]>) => ({
  id, callFrame: { functionName: name, scriptId: '1', url, lineNumber: line, columnNumber: 4 }, hitCount: ticks ? ticks.reduce((s, t) => s + t[1], 0) : 0, children,
  ...(ticks ? { positionTicks: ticks.map(([l, t]) => ({ line: l, ticks: t })) } : {}),
});

/** main: handleRequest (file:///app/server.js) 2 samples, idle 1. Hand-computed: samples at 100, 110, 130; end 150. */
const MAIN = JSON.stringify({
  nodes: [frame(1, '(root)', '', -1, [2, 3]), frame(2, 'handleRequest', 'file:///app/server.js', 17, [], [[19, 2]]), frame(3, '(idle)', '', -1, [], [[0, 1]])],
  startTime: 90, endTime: 150, samples: [2, 2, 3], timeDeltas: [10, 10, 20],
});
/** worker: the same ids (1…4) as main; task → levenshtein; samples at 1000, 1040, 1045; end 1100. */
const WORKER = JSON.stringify({
  nodes: [frame(1, '(root)', '', -1, [2]), frame(2, 'task', 'file:///app/worker.js', 25, [3, 4], [[30, 1]]), frame(3, 'levenshtein', 'file:///app/worker.js', 8, [], [[18, 2]]), frame(4, 'handleRequest', 'file:///app/server.js', 17, [], [[19, 0]])],
  startTime: 1000, endTime: 1100, samples: [3, 2, 3], timeDeltas: [0, 40, 5],
});

function part(thread: string, text: string): ThreadPart {
  const buf = Buffer.alloc(Buffer.byteLength(text) + PADDING);
  buf.write(text);
  return { thread, raw: scanProfile(buf, Buffer.byteLength(text), thread), source: thread };
}
const fn = (model: ReturnType<typeof mergedThreadModel>, name: string) => model.functions.findIndex((f) => f.name === name);

describe('profile threads: one model of a process\'s threads', () => {
  it('keeps every sample\'s own duration: times per function are the threads\' added up, exactly', () => {
    const model = mergedThreadModel([part('main', MAIN), part('worker 1 (worker.js)', WORKER)], 'run.cpuprofile');
    const main = buildProfileModel(MAIN);
    const worker = buildProfileModel(WORKER);
    assert.equal(main.durationUs, 10 + 20 + 20); // 100→110, 110→130, 130→150
    assert.equal(worker.durationUs, 40 + 5 + 55);
    assert.equal(model.durationUs, main.durationUs + worker.durationUs);
    assert.equal(model.sampleCount, 6);
    assert.equal(model.thread, ALL_THREADS);
    assert.equal(model.functionSelfUs[fn(model, 'levenshtein')], 40 + 55);
    assert.equal(model.functionSelfUs[fn(model, 'task')], 5);
    assert.equal(model.functionSelfUs[fn(model, 'handleRequest')], 30, 'main\'s 10 + 20 µs; the worker\'s handleRequest frame has no samples');
    assert.equal(model.functionSelfUs[fn(model, '(idle)')], 20);
    // Line time follows: levenshtein's ticks are on line 18.
    const e = [...Array(model.lines.count).keys()].find((i) => model.lines.func[i] === fn(model, 'levenshtein'));
    assert.equal(model.lines.line[e!], 18);
    assert.equal(model.lines.selfUs[e!], 95);
  });

  it('hangs each thread under the root as a frame named after it, never a hotspot, and merges a function run by two threads', () => {
    const model = mergedThreadModel([part('main', MAIN), part('worker 1 (worker.js)', WORKER)], 'run.cpuprofile');
    const { nodes } = model;
    const tops = [...Array(model.nodeCount).keys()].filter((v) => nodes.parent[v] === model.rootIndex);
    assert.deepEqual(tops.map((v) => model.functions[nodes.func[v]].name), ['main', 'worker 1 (worker.js)']);
    for (const v of tops) assert.equal(model.functions[nodes.func[v]].category, 'root');
    assert.equal(nodes.totalUs[tops[0]], 50);
    assert.equal(nodes.totalUs[tops[1]], 100);
    assert.equal(model.functions.filter((f) => f.name === 'handleRequest').length, 1, 'one function, frames in both threads');
    const threads = threadsOfFunctions(model);
    assert.deepEqual(threads.get(fn(model, 'levenshtein')), ['worker 1 (worker.js)']);
    assert.deepEqual(threads.get(fn(model, 'handleRequest')), ['main'], 'a frame without time does not count');
  });

  it('keeps a thread that recorded no samples, and node ids that collide across threads apart', () => {
    const empty = JSON.stringify({ nodes: [frame(1, '(root)', '', -1, [])], startTime: 5, endTime: 5, samples: [], timeDeltas: [] });
    const { raw, threadNodes } = mergeRawProfiles([part('main', MAIN), part('worker 3 (idle.js)', empty), part('worker 1 (worker.js)', WORKER)]);
    assert.equal(new Set(raw.id).size, raw.nodeCount, 'unique ids');
    assert.equal(threadNodes.length, 3);
    const model = mergedThreadModel([part('main', MAIN), part('worker 3 (idle.js)', empty), part('worker 1 (worker.js)', WORKER)], 'x');
    assert.equal(model.durationUs, 150);
  });

  it('gives each recorded fixture merged with itself twice its times', () => {
    for (const name of ['cpu-hot', 'deps', 'recursion']) {
      const text = readFixture(name);
      const one = buildProfileModel(text);
      const two = mergedThreadModel([part('main', text), part('worker 1 (copy.js)', text)], name);
      assert.ok(Math.abs(two.durationUs - 2 * one.durationUs) < 1e-6 * one.durationUs, name);
      for (let f = 0; f < one.functions.length; f++) {
        const info = one.functions[f];
        if (info.category === 'root') continue;
        const g = two.functions.findIndex((x) => x.name === info.name && x.url === info.url && x.line === info.line && x.column === info.column);
        assert.ok(Math.abs(two.functionSelfUs[g] - 2 * one.functionSelfUs[f]) < 1e-6 * Math.max(1, one.functionSelfUs[f]), `${name}: ${info.name}`);
      }
    }
  });

  it('names where a function ran in short labels', () => {
    assert.equal(threadSummary(['worker 1 (pool.js)']), 'worker 1 (pool.js)');
    assert.equal(threadSummary(['worker 1 (pool.js)', 'worker 2 (pool.js)']), 'worker 1 (pool.js), worker 2 (pool.js)');
    assert.equal(threadSummary(Array.from({ length: 8 }, (_, i) => `worker ${i + 1} (pool.js)`)), '8 threads');
    assert.equal(threadNote(['main']), undefined);
    assert.equal(threadNote(undefined), undefined);
    assert.equal(threadNote(['worker 4 (pool.js)']), 'worker 4 (pool.js)');
    assert.equal(threadNote(['worker 1 (pool.js)', 'worker 2 (pool.js)']), '2 worker threads');
    assert.equal(threadNote(['main', 'worker 2 (pool.js)']), '2 threads');
  });
});
