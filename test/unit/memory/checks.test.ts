import * as assert from 'node:assert/strict';
import { gcCheck, growthCheck, loopCheck } from '../../../src/core/workflow/runtimeChecks';
import type { EventLoopResult, MemoryResult } from '../../../src/core/workflow/memoryAndLoop';

const memory = (gcPct: number, withSites: boolean): MemoryResult => ({
  gcPct, gcPauses: { count: 40, p50Ms: 1.2, p99Ms: 9.5, maxMs: 12, totalMs: 400, byKind: { minor: 38, major: 2 } }, gcSource: 'gc-profiler',
  allocations: withSites ? { samplingIntervalBytes: 32768, includesCollected: true, totalBytes: 1e8, bytesPerRequest: 40_000, heapProfilePath: null, sites: [
    { function: 'write_', file: 'node:_http_outgoing', line: 898, bytes: 1e6, bytesPerRequest: 2000, pct: 5, category: 'node', package: null },
    { function: 'catalogPage', file: '/app/lib/catalog.js', line: 6, bytes: 5e7, bytesPerRequest: 20_000, pct: 50, category: 'user', package: null },
  ] } : null,
});
const loop = (p99: number, episodes: number): EventLoopResult => ({
  delayMs: { p50: 1, p90: 5, p99, max: p99 * 2, mean: 3 }, utilization: 0.9, thresholdMs: 20, episodes, blockedMs: episodes * 40, longTasks: [],
  blockingLines: episodes ? [{ function: 'monthlyReport', file: '/app/lib/report.js', line: 8, blockedMs: 2100, episodes, episodeMs: [40], medianEpisodeMs: 40 }] : [],
});

describe('checks after a run: GC, the event loop, heap growth', () => {
  it('GC: passes below 5%, warns at 10% naming the biggest allocator of the user\'s code', () => {
    assert.equal(gcCheck(memory(2, true)).status, 'pass');
    assert.equal(gcCheck(memory(7, true)).status, 'info');
    const warn = gcCheck(memory(14, true));
    assert.equal(warn.status, 'warn');
    assert.match(warn.observed, /^14\.0% of the time in GC pauses \(40 collections, p99 9\.50 ms, longest 12\.0 ms\)$/);
    assert.match(warn.advice!, /catalogPage \(catalog\.js:6\): 19\.5 KB\/request of 39\.1 KB\/request/);
    assert.match(warn.advice!, /Reuse buffers and objects/);
    assert.match(gcCheck(memory(14, false)).advice!, /Run with --memory/);
  });

  it('GC without a pause list says why: not asked for (no --memory), or the monitor did not run', () => {
    const noPauses = (withSites: boolean): MemoryResult => ({ ...memory(3, withSites), gcPauses: null, gcSource: 'cpu-profile' });
    assert.equal(gcCheck(noPauses(false)).observed, '3.0% of the time in GC pauses (from the CPU profile; --memory lists the pauses)');
    assert.equal(gcCheck(noPauses(true)).observed, '3.0% of the time in GC pauses (from the CPU profile; no pause list: the event-loop monitor did not run)');
  });

  it('titles state what was found, never the goal of a check that failed', () => {
    assert.equal(gcCheck(memory(2, true)).title, 'GC not a bottleneck');
    assert.equal(gcCheck(memory(7, true)).title, 'GC takes a noticeable share of the time');
    assert.equal(gcCheck(memory(14, true)).title, 'GC takes a large share of the time');
    assert.equal(loopCheck(loop(3, 0)).title, 'Event loop not blocked');
    assert.equal(loopCheck(loop(30, 2)).title, 'Event loop delayed at times');
    assert.equal(loopCheck(loop(74, 69)).title, 'Event loop blocked');
    assert.equal(growthCheck({ verdict: 'stable', bytesPerRequest: 1, ciLow: -30, ciHigh: 30 }).title, 'Heap stable under load');
    assert.equal(growthCheck({ verdict: 'growing', bytesPerRequest: 295, ciLow: 266, ciHigh: 324 }).title, 'Heap grows with every request');
  });

  it('event loop: warns when p99 delay is high, naming the line that held it and the usual fixes', () => {
    assert.equal(loopCheck(loop(3, 0)).status, 'pass');
    const warn = loopCheck(loop(74, 69));
    assert.equal(warn.status, 'warn');
    assert.match(warn.observed, /p99 73\.8 ms|p99 74\.0 ms/);
    assert.match(warn.advice!, /monthlyReport \(report\.js:8\): 2,100 ms in 69 episodes/);
    assert.match(warn.advice!, /worker thread/);
  });

  it('heap growth: a growing heap warns with the retaining line', () => {
    assert.equal(growthCheck({ verdict: 'stable', bytesPerRequest: 1, ciLow: -30, ciHigh: 30 }).status, 'pass');
    const g = growthCheck({ verdict: 'growing', bytesPerRequest: 295, ciLow: 266, ciHigh: 324 }, { function: 'recordVisit', file: '/app/lib/audit.js', line: 8 });
    assert.equal(g.status, 'warn');
    assert.match(g.observed, /\+295 B\/request \(95% CI \+266 B\/request … \+324 B\/request\)/);
    assert.match(g.advice!, /recordVisit \(audit\.js:8\)/);
    assert.match(g.advice!, /Bound caches/);
  });
});
