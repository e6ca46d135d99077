import * as assert from 'node:assert/strict';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import type { LoadResult } from '../../../src/core/load/result';
import { compareRuns, type Comparison } from '../../../src/core/stats/compare';
import { summarizeRun, type RunSummary } from '../../../src/core/stats/runSummary';

function runs(rps: number[], p99: number[], errors = 0, perSecondLength = 10): RunSummary[] {
  return rps.map((r, i) => ({
    requestsPerSecond: r,
    p99Ms: p99[i],
    p50Ms: p99[i] / 3,
    errors,
    perSecond: Array.from({ length: perSecondLength }, (_, k) => r + (k % 2 ? 50 : -50)),
  }));
}

const codes = (c: Comparison) => c.warnings.map((w) => w.code);

// The 3-vs-3 figures are checked against SciPy in welch.test.ts; here we check verdicts, wording, edge cases.
const BASE = runs([10120, 10310, 9980], [12.1, 11.8, 12.4]);
const FAST = runs([13150, 13420, 13010], [9.4, 9.6, 9.3]);

describe('compareRuns', () => {
  it('calls a clear throughput gain faster, with the interval and the p99 change in one line', () => {
    const c = compareRuns(BASE, FAST);
    assert.equal(c.verdict, 'faster');
    assert.equal(c.summary, '+30.2% req/s (95% CI +25.4% … +35.1%), p99 −22% — faster');
    assert.equal(c.method, "Welch's t-test on per-run means (3 vs 3 runs), two-sided, 95% CI (Fieller for %)");
    assert.deepEqual(c.n, { baseline: 3, current: 3 });
    assert.equal(c.requestsPerSecond.significant, true);
    assert.equal(c.p99Ms.significant, true);
    assert.ok(c.p99Ms.diff < 0);
    assert.deepEqual(c.warnings, []);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  });

  it('calls a clear loss slower', () => {
    const c = compareRuns(FAST, BASE);
    assert.equal(c.verdict, 'slower');
    assert.equal(c.summary, '−23.2% req/s (95% CI −26.0% … −20.3%), p99 +28% — slower');
  });

  it('calls noise no significant change and says how large a change could still hide in it', () => {
    const c = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5]), runs([10150, 9900, 10300], [10.2, 10.9, 10.4]));
    assert.equal(c.verdict, 'no-significant-change');
    assert.equal(c.summary, '+0.5% req/s (95% CI −5.5% … +7.0%), p99 0.0% (not significant) — no significant change');
    assert.ok(c.requestsPerSecond.pValue! > 0.5);
    assert.deepEqual(codes(c), ['INCONCLUSIVE']);
    assert.match(c.warnings[0].message, /still allows a real change of up to 7% in req\/s/);
  });

  it('uses the runs as the sample: per-second data inside a run does not change the answer', () => {
    const few = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5], 0, 5), runs([10150, 9900, 10300], [10, 11, 10.5], 0, 5));
    const many = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5], 0, 600), runs([10150, 9900, 10300], [10, 11, 10.5], 0, 600));
    assert.deepEqual(many.requestsPerSecond, few.requestsPerSecond);
    assert.equal(many.verdict, 'no-significant-change');
  });

  it('makes no test with fewer than 2 runs on a side, and says so', () => {
    const c = compareRuns(runs([10000], [10]), runs([12000, 12100, 11900], [9, 9.1, 9.2]));
    assert.equal(c.verdict, 'no-significant-change');
    assert.equal(c.summary, '+20.0% req/s (untested), p99 −9.0% (untested) — no significant change (too few runs to test)');
    assert.match(c.method, /^No test: needs at least 2 runs on each side \(1 vs 3\)/);
    assert.equal(c.requestsPerSecond.pValue, null);
    assert.equal(c.requestsPerSecond.ciLow, null);
    assert.equal(c.requestsPerSecond.baselineStddev, null);
    assert.equal(c.requestsPerSecond.significant, false);
    assert.deepEqual(codes(c), ['NOT_ENOUGH_RUNS']);
    assert.match(c.warnings[0].message, /Use --runs 3 or more/);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  });

  it('warns when runs on one side vary a lot', () => {
    const c = compareRuns(runs([10000, 7000, 12000], [10, 11, 10.5]), runs([10150, 9900, 10300], [10.2, 10.9, 10.4]));
    assert.deepEqual(codes(c), ['UNSTABLE_RUNS', 'INCONCLUSIVE']);
    assert.equal(c.warnings[0].message, 'Baseline runs varied by 26% (req/s between runs): only changes well beyond that can be detected. Close other programs or use more runs.');
  });

  it('handles zero variance on both sides: equal means are no change, different means are certain', () => {
    const c = compareRuns(runs([10000, 10000], [0, 0]), runs([11000, 11000], [0, 0]));
    assert.equal(c.verdict, 'faster');
    assert.equal(c.requestsPerSecond.pValue, 0);
    assert.equal(c.requestsPerSecond.df, null);
    assert.equal(c.p99Ms.pValue, 1);
    assert.equal(c.p99Ms.diffPct, null); // baseline p99 of 0 has no percentage
    assert.equal(c.summary, '+10.0% req/s (95% CI +10.0% … +10.0%), p99 0 ms (not significant) — faster');
    assert.deepEqual(codes(c), ['ZERO_VARIANCE', 'ZERO_VARIANCE']);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  });

  it('warns about failed requests and about a faster result bought with worse p99', () => {
    const c = compareRuns(runs([10120, 10310, 9980], [9.4, 9.6, 9.3]), runs([13150, 13420, 13010], [12.1, 11.8, 12.4], 3), { alpha: 0.1 });
    assert.equal(c.verdict, 'faster');
    assert.equal(c.confidenceLevel, 0.9);
    assert.match(c.summary, /^\+30\.2% req\/s \(90% CI \+26\.5% … \+33\.9%\), p99 \+28% — faster$/);
    assert.deepEqual(codes(c), ['RUN_ERRORS', 'P99_REGRESSED']);
    assert.match(c.warnings[0].message, /^3 of 6 runs had failed requests/);
  });

  it('rejects an alpha outside (0, 1) and empty sides', () => {
    assert.throws(() => compareRuns(BASE, FAST, { alpha: 5 }), (e: unknown) => e instanceof HotpathError && e.code === ErrorCode.InvalidOption);
    assert.throws(() => compareRuns([], FAST), RangeError);
  });
});

describe('summarizeRun', () => {
  it('takes the run mean req/s, p50/p99 and counts non-2xx as failures', () => {
    const result = {
      url: 'http://127.0.0.1:1/', method: 'GET', connections: 10, pipelining: 1, durationSeconds: 3,
      requests: { total: 300, perSecond: [90, 100, 110], mean: 100, stddev: 10, min: 90, max: 110 },
      latencyMs: { mean: 1, stddev: 1, p50: 0.8, p90: 2, p99: 4.5, max: 9 },
      throughputBytesPerSec: { mean: 1, stddev: 0 }, errors: 2, timeouts: 1, non2xx: 3, statusCodes: {},
      loadGeneratorCpuPct: 50, warnings: [],
    } satisfies LoadResult;
    assert.deepEqual(summarizeRun(result), { requestsPerSecond: 100, p99Ms: 4.5, p50Ms: 0.8, errors: 5, perSecond: [90, 100, 110] });
  });
});
