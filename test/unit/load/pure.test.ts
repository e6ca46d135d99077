import * as assert from 'node:assert/strict';
import { LatencyRecorder } from '../../../src/core/load/latencyRecorder';
import { errorWarning, loadWarnings, saturationWarning } from '../../../src/core/load/loadWarnings';
import { noResponseError } from '../../../src/core/load/loadFailure';
import { PerSecondCounter } from '../../../src/core/load/perSecondCounter';
import { normalizeResult, type RawAutocannonResult } from '../../../src/core/load/result';
import { ErrorCode } from '../../../src/core/common/errors';

describe('PerSecondCounter', () => {
  it('closes one bucket per tick and folds the trailing sliver into the last second', () => {
    const c = new PerSecondCounter(0);
    c.record(100);
    assert.equal(c.tick(1000), 100);
    c.record(120);
    assert.equal(c.tick(2001), 120);
    c.record(3); // responses between the last sample and autocannon's stop tick
    assert.equal(c.tick(2003), undefined);
    assert.deepEqual(c.finish(2004), [100, 123]);
    assert.equal(c.responses, 223);
  });

  it('keeps a run shorter than a tick as one bucket', () => {
    const c = new PerSecondCounter(0);
    c.record(7);
    assert.deepEqual(c.finish(300), [7]);
  });
});

describe('LatencyRecorder', () => {
  it('keeps sub-millisecond latencies that autocannon rounds to whole ms', () => {
    const r = new LatencyRecorder();
    for (let i = 1; i <= 1000; i++) r.recordMs(i / 1000); // 1 µs … 1 ms, uniform
    const s = r.summary();
    assert.equal(r.count, 1000);
    assert.ok(Math.abs(s.p50 - 0.5) < 0.002, `p50 ${s.p50}`);
    assert.ok(Math.abs(s.p99 - 0.99) < 0.002, `p99 ${s.p99}`);
    assert.ok(Math.abs(s.max - 1) < 0.002, `max ${s.max}`);
    assert.ok(Math.abs(s.mean - 0.5005) < 0.002, `mean ${s.mean}`);
  });

  it('never reports a percentile above the largest latency recorded (HDR answers with the top of a bucket)', () => {
    const r = new LatencyRecorder();
    for (let i = 0; i < 99; i++) r.recordMs(5);
    r.recordMs(222.777);
    r.recordMs(222.777); // p99 falls in the bucket of 222.777 ms, whose top is 222.847 ms
    const s = r.summary();
    assert.equal(s.max, 222.777);
    assert.equal(s.p99, 222.777);
    assert.ok(s.p50 >= 5 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max, JSON.stringify(s));
  });

  it('reports zeros when nothing was recorded', () => {
    assert.deepEqual(new LatencyRecorder().summary(), { mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  });
});

describe('load warnings', () => {
  it('flags a saturated load generator above 85% of a core', () => {
    assert.equal(saturationWarning(60), undefined);
    const w = saturationWarning(97.4);
    assert.equal(w?.code, 'LOAD_GENERATOR_SATURATED');
    assert.match(w!.message, /^autocannon used 97% of a core: the load generator, not the app, may be the limit\. Use fewer connections/);
  });

  it('flags errors, timeouts and non-2xx above 1% of attempts, naming the top statuses', () => {
    assert.equal(errorWarning({ responses: 1000, errors: 5, timeouts: 0, non2xx: 4, statusCodes: { 200: 996, 404: 4 } }), undefined);
    const w = errorWarning({ responses: 1000, errors: 20, timeouts: 5, non2xx: 1200, statusCodes: {} });
    assert.equal(w?.code, 'LOAD_ERRORS');
    const w2 = errorWarning({ responses: 2000, errors: 0, timeouts: 0, non2xx: 1500, statusCodes: { 200: 500, 404: 1203, 500: 297 } });
    assert.equal(w2?.message.startsWith('75% of requests failed: 1,500 non-2xx responses (404×1,203, 500×297).'), true, w2?.message);
  });
});

describe('noResponseError', () => {
  const base = { url: 'http://127.0.0.1:1234/', seconds: 10, timeoutSeconds: 10 };
  it('names the error codes for refused connections', () => {
    const err = noResponseError({ ...base, errors: 3812, timeouts: 0, errorCodes: new Map([['ECONNREFUSED', 3812]]) });
    assert.equal(err.code, ErrorCode.LoadFailed);
    assert.equal(err.message, 'No request succeeded: 3,812 connection errors (ECONNREFUSED) against http://127.0.0.1:1234/. Is the app listening on that port and path?');
  });
  it('blames closed connections, timeouts, or silence when that is what happened', () => {
    assert.match(noResponseError({ ...base, errors: 10, timeouts: 0, errorCodes: new Map([['ECONNRESET', 10]]) }).message, /\(ECONNRESET\).*closed them/);
    assert.match(noResponseError({ ...base, errors: 4, timeouts: 4, errorCodes: new Map([['timeout', 4]]) }).message, /4 requests timed out after 10 s/);
    assert.match(noResponseError({ ...base, errors: 0, timeouts: 0, errorCodes: new Map() }).message, /answered none/);
  });
});

describe('normalizeResult', () => {
  const raw: RawAutocannonResult = {
    url: 'http://127.0.0.1:3000/', duration: 3.01, connections: 10, pipelining: 1, errors: 2, timeouts: 1, non2xx: 5,
    statusCodeStats: { 200: { count: 295 }, 503: { count: 5 } }, requests: { total: 300 }, throughput: { mean: 1000, stddev: 10 },
  };
  it('takes per-second statistics from the exact counts and status codes as plain numbers', () => {
    const result = normalizeResult(raw, {
      method: 'GET', perSecond: [90, 100, 110], loadGeneratorCpuPct: 42.345,
      latencyMs: { mean: 1, stddev: 0.5, p50: 0.9, p90: 1.5, p99: 3, max: 9 },
    });
    assert.deepEqual(result.requests, { total: 300, perSecond: [90, 100, 110], mean: 100, stddev: 10, min: 90, max: 110 });
    assert.deepEqual(result.statusCodes, { 200: 295, 503: 5 });
    assert.equal(result.loadGeneratorCpuPct, 42.3);
    assert.equal(result.durationSeconds, 3.01);
    assert.deepEqual(loadWarnings(result).map((w) => w.message.slice(0, 66)), ['2.3% of requests failed: 2 errors (1 timeout), 5 non-2xx responses']);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
  });
});
