import { strict as assert } from 'node:assert';
import type { CapturedProfile } from '../../../src/core/inspector/profilingRun';
import { cpuBetween, threadCpu, type ThreadCpu } from '../../../src/core/measure/threadCpu';
import { measuredProfilerCost } from '../../../src/core/workflow/profilerCost';

const threads = (rows: Array<[string, string, number]>): ThreadCpu => new Map(rows.map(([tid, name, us]) => [tid, { name, us, waitUs: 0 }]));
const captured = (samples: number): CapturedProfile[] => [{ thread: 'main', pid: 1, partial: false, profile: { nodes: [], startTime: 0, endTime: 1, samples: new Array(samples).fill(1), timeDeltas: [] } }];

describe('what sampling cost the app, from its threads', () => {
  it('V8\'s profiler thread against all the app\'s other threads, over the window', () => {
    const before = threads([['100', 'node', 1_000_000], ['101', 'V8 DefaultWorke', 50_000]]);
    // The profiler thread started inside the window (Profiler.start): it counts from zero.
    const after = threads([['100', 'node', 10_700_000], ['101', 'V8 DefaultWorke', 350_000], ['107', 'v8:ProfEvntProc', 410_000]]);
    const cost = measuredProfilerCost(before, after, captured(5012), 2000)!;
    assert.equal(cost.profilerCpuMs, 410);
    assert.equal(cost.appCpuMs, 10_000);
    assert.equal(cost.pct.toFixed(1), '4.1');
    assert.equal(cost.samples, 5012);
    assert.equal(cost.intervalMicros, 2000);
  });

  it('nothing to state without both readings, without a profiler thread, or with an idle app', () => {
    const t = threads([['1', 'node', 5]]);
    assert.equal(measuredProfilerCost(null, t, captured(1), 1000), undefined);
    assert.equal(measuredProfilerCost(t, null, captured(1), 1000), undefined);
    assert.equal(measuredProfilerCost(t, threads([['1', 'node', 500]]), captured(1), 1000), undefined, 'no profiler thread seen');
    assert.equal(measuredProfilerCost(t, threads([['1', 'node', 5], ['2', 'v8:ProfEvntProc', 100]]), captured(1), 1000), undefined, 'the app did nothing');
  });

  it('reads this process\'s threads on Linux (elsewhere: null, and the run states no figure)', function () {
    if (process.platform !== 'linux') {
      assert.equal(threadCpu(process.pid), null);
      return this.skip();
    }
    const before = threadCpu(process.pid)!;
    let x = 0;
    const until = Date.now() + 30;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    const after = threadCpu(process.pid)!;
    assert.ok(after.has(String(process.pid)), 'the main thread is there, under the process id');
    const { totalUs, partUs } = cpuBetween(before, after, (name) => name === after.get(String(process.pid))!.name);
    assert.ok(totalUs > 0 && partUs > 0 && partUs <= totalUs, `${totalUs} ${partUs} ${x}`);
    assert.equal(threadCpu(0), null);
    assert.equal(threadCpu(-5), null);
  });
});
