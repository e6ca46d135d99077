import * as assert from 'node:assert/strict';
import { evaluateGate, type FailOn, type GatePolicy } from '../../../src/core/ci/policy';
import { toDecide } from '../../../src/core/stats/decide';
import { compareMetricSamples, HTTP_METRICS, type MetricComparisonSet } from '../../../src/core/stats/metrics';

const policy = (failOn: FailOn[] = ['slower'], extra: Partial<GatePolicy> = {}): GatePolicy => ({ failOn: new Set(failOn), ...extra });

/** Interleaved pairs whose B/A ratios are `ratios` (req/s; CPU/req, and p99 unless `p99Still`, move the other way). */
function paired(ratios: number[], p99Still = false): MetricComparisonSet {
  const a = ratios.map((_, i) => 1000 + (i % 3) * 7);
  const b = ratios.map((r, i) => a[i] * r);
  return compareMetricSamples(HTTP_METRICS, {
    requestsPerSecond: { a, b },
    p99LatencyMs: { a: a.map((x) => 10_000 / x), b: p99Still ? a.map((x, i) => (10_000 / x) * (1 + ((i % 3) - 1) * 0.01)) : b.map((x) => 10_000 / x) },
    cpuMsPerRequest: { a: a.map(() => 0.5), b: ratios.map((r, i) => 0.5 / r * (1 + (i % 2) * 0.001)) },
    p50LatencyMs: { a: a.map((x) => 3000 / x), b: b.map((x) => 3000 / x) },
  }, 'paired');
}

const SLOWER_30 = paired([0.70, 0.71, 0.69, 0.70, 0.72, 0.68]);
const SLOWER_3 = paired([0.97, 0.975, 0.965, 0.97, 0.972, 0.968]);
const SAME_TIGHT = paired([1.001, 0.999, 1.0, 1.002, 0.998, 1.0]);
const SAME_WIDE = paired([0.8, 1.25, 0.9, 1.15, 1.05, 0.95]);
/** req/s −25% known to about ±8 points; p99 unchanged. */
const SLOWER_25_WIDE = paired([0.7, 0.8, 0.72, 0.78, 0.74, 0.76], true);

describe('CI gate policy (src/core/ci/policy.ts)', () => {
  it('slower fails with exit code "regression" by default; never fails with --fail-on never', () => {
    const g = evaluateGate(SLOWER_30, policy());
    assert.equal(SLOWER_30.verdict, 'slower');
    assert.equal(g.outcome, 'regression');
    assert.equal(g.failed, true);
    assert.deepEqual(g.deciding.map((m) => m.key), ['requestsPerSecond', 'p99LatencyMs']);
    assert.match(g.summary, /^slower: req\/s −30\.\d% \(98\.33% CI/);
    assert.equal(evaluateGate(SLOWER_30, policy([])).failed, false);
  });

  it('--max-regression: a slowdown whose whole interval is beyond it fails; one within it passes; one that straddles it is inconclusive', () => {
    assert.equal(evaluateGate(SLOWER_30, policy(['slower'], { maxRegressionPct: 10 })).outcome, 'regression');
    const small = evaluateGate(SLOWER_3, policy(['slower'], { maxRegressionPct: 10 }));
    assert.equal(SLOWER_3.verdict, 'slower');
    assert.equal(small.outcome, 'pass');
    assert.match(small.summary, /^slower, but by less than the 10% allowed/);
    assert.equal(SLOWER_25_WIDE.verdict, 'slower');
    const straddle = evaluateGate(SLOWER_25_WIDE, policy(['slower', 'inconclusive'], { maxRegressionPct: 25 }));
    assert.equal(straddle.outcome, 'inconclusive');
    assert.equal(straddle.failed, true);
    assert.match(straddle.toDecide ?? '', /pairs .*would decide whether req\/s regressed by more than 25%/);
  });

  it('no change: a tight interval passes; a wide one is inconclusive with the pairs that would decide, failing only when asked', () => {
    assert.equal(SAME_TIGHT.verdict, 'no-significant-change');
    assert.equal(evaluateGate(SAME_TIGHT, policy()).outcome, 'pass');
    const wide = evaluateGate(SAME_WIDE, policy());
    assert.equal(wide.outcome, 'inconclusive');
    assert.equal(wide.failed, false);
    assert.equal(evaluateGate(SAME_WIDE, policy(['slower', 'inconclusive'])).failed, true);
    assert.match(wide.summary, /the interval still allows a regression larger than 5%/);
    assert.match(wide.toDecide ?? '', /^about \d+ pairs would decide/);
  });

  it('--min-effect words the change: too small to matter, or larger than it', () => {
    assert.match(evaluateGate(SLOWER_3, policy(['slower'], { minEffectPct: 5 })).wording, /slower, but by less than 5% \(--min-effect\): too small to matter/);
    assert.match(evaluateGate(SLOWER_30, policy(['slower'], { minEffectPct: 5 })).wording, /slower by more than 5%/);
    assert.match(evaluateGate(SAME_TIGHT, policy(['slower'], { minEffectPct: 2 })).wording, /no change larger than 2%/);
  });

  it('a verify\'s new leak is a regression; no test at all is inconclusive', () => {
    assert.equal(evaluateGate(SAME_TIGHT, policy(), { newLeak: 'growing now' }).outcome, 'regression');
    const one = paired([0.5]);
    assert.equal(one.tested, false);
    assert.equal(evaluateGate(one, policy()).outcome, 'inconclusive');
  });
});

describe('runs or pairs that would decide (src/core/stats/decide.ts)', () => {
  it('paired: more pairs narrow the interval as 1/√n; the count found does put the interval on one side', () => {
    const m = SAME_WIDE.metrics.requestsPerSecond;
    const bound = [Math.log(0.95)];
    const need = toDecide(m, 'paired', SAME_WIDE.metricConfidenceLevel, bound)!;
    assert.equal(need.kind, 'count');
    assert.ok(need.kind === 'count' && need.n > 6, JSON.stringify(need));
  });

  it('independent (verify): a question narrower than the session term cannot be settled by any number of runs', () => {
    const set = compareMetricSamples({ requestsPerSecond: HTTP_METRICS.requestsPerSecond }, { requestsPerSecond: { a: [1000, 1010, 990], b: [1000, 1005, 995] } }, 'independent');
    const m = set.metrics.requestsPerSecond;
    assert.ok(m.sessionSd! > 0.1);
    const need = toDecide(m, 'independent', set.metricConfidenceLevel, [Math.log(0.98)])!;
    assert.equal(need.kind, 'session-floor');
  });
});
