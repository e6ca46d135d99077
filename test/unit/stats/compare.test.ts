import * as assert from 'node:assert/strict';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import type { LoadResult } from '../../../src/core/load/result';
import { compareRuns, type Comparison } from '../../../src/core/stats/compare';
import { compareMetricSamples, HTTP_METRICS, SCRIPT_METRICS } from '../../../src/core/stats/metrics';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { summarizeRun, type RunSummary } from '../../../src/core/stats/runSummary';

function runs(rps: number[], p99: number[], errors = 0, perSecondLength = 10, cpuMsPerRequest?: number[]): RunSummary[] {
  return rps.map((r, i) => ({
    requestsPerSecond: r,
    p99Ms: p99[i],
    p50Ms: p99[i] / 3,
    errors,
    perSecond: Array.from({ length: perSecondLength }, (_, k) => r + (k % 2 ? 50 : -50)),
    ...(cpuMsPerRequest ? { cpuMsPerRequest: cpuMsPerRequest[i] } : {}),
  }));
}

/** The test machinery alone, without the calibrated drift between sessions (tested on its own below). */
const RUNS_ONLY = { ignoreSessionDrift: true };

const codes = (c: Comparison) => c.warnings.map((w) => w.code);

const BASE = runs([10120, 10310, 9980], [12.1, 11.8, 12.4]);
const FAST = runs([13150, 13420, 13010], [9.4, 9.6, 9.3]);

describe('compareRuns (verify: independent runs, log scale, Bonferroni over req/s and p99)', () => {
  it('calls a clear gain faster and names the metrics that moved, with ratio intervals at 97.5%', () => {
    const c = compareRuns(BASE, FAST, RUNS_ONLY);
    assert.equal(c.verdict, 'faster');
    assert.deepEqual(c.moved, ['requestsPerSecond', 'p99LatencyMs']);
    assert.equal(c.design, 'independent');
    assert.equal(c.confidenceLevel, 0.95);
    assert.equal(c.metricConfidenceLevel, 0.975);
    assert.match(c.correction, /^Bonferroni over 2 verdict metrics \(req\/s, p99\): each tested at α = 0\.025 with 97\.5% intervals/);
    assert.match(c.method, /^Welch's t-test on log per-run values \(3 vs 3 runs\)/);
    assert.match(c.summary, /^req\/s \+30\.2% \(97\.5% CI \+2\d\.\d% … \+3\d\.\d%\), p99 −22\.0% \(97\.5% CI −\d+\.\d% … −\d+\.\d%\) — faster \(req\/s and p99 moved\)$/);
    const r = c.metrics.requestsPerSecond;
    assert.ok(r.ratio > 1.29 && r.ratio < 1.31);
    assert.ok(r.ciLow! > 1 && r.ciHigh! > r.ratio);
    assert.equal(r.change, 'better');
    assert.equal(c.metrics.p99LatencyMs.change, 'better');
    assert.ok(c.metrics.p99LatencyMs.ratio < 1);
    assert.equal(c.metrics.p50LatencyMs.inVerdict, false);
    assert.deepEqual(c.n, { a: 3, b: 3 });
    assert.ok(r.pValue! >= r.pValueUnadjusted! * 2 - 1e-15, 'the reported p-value is Bonferroni-adjusted');
    assert.deepEqual(c.warnings, []);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  });

  it('calls a clear loss slower', () => {
    const c = compareRuns(FAST, BASE, RUNS_ONLY);
    assert.equal(c.verdict, 'slower');
    assert.equal(c.metrics.requestsPerSecond.change, 'worse');
    assert.match(c.summary, /^req\/s −23\.\d% .* — slower \(req\/s and p99 moved\)$/);
  });

  it('p99 alone can decide: throughput unchanged, tail latency 4× lower is faster (the issue\'s missed p99 gain)', () => {
    const c = compareRuns(runs([165, 227, 223], [212, 205, 220]), runs([190, 230, 200], [51, 49, 55]));
    assert.equal(c.verdict, 'faster');
    assert.deepEqual(c.moved, ['p99LatencyMs']);
    assert.match(c.summary, /— faster \(p99 moved\)$/);
  });

  it('a regression of p99 with more throughput is "slower", and the warning says which way each went', () => {
    const c = compareRuns(runs([10120, 10310, 9980], [9.4, 9.6, 9.3]), runs([13150, 13420, 13010], [12.1, 11.8, 12.4], 3), RUNS_ONLY);
    assert.equal(c.verdict, 'slower');
    assert.deepEqual(codes(c), ['RUN_ERRORS', 'MIXED_CHANGE']);
    assert.match(c.warnings[1].message, /^req\/s \+30% improved but p99 \+28% got significantly worse/);
  });

  it('calls noise no significant change and says how large a change could still hide in it', () => {
    const c = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5]), runs([10150, 9900, 10300], [10.2, 10.9, 10.4]));
    assert.equal(c.verdict, 'no-significant-change');
    assert.deepEqual(c.moved, []);
    assert.match(c.summary, / — no significant change$/);
    assert.ok(c.metrics.requestsPerSecond.pValue! > 0.5);
    assert.deepEqual(codes(c), ['INCONCLUSIVE']);
    assert.match(c.warnings[0].message, /still allows a real change of up to \d+%/);
  });

  it('carries the drift between sessions: +30% req/s from two tight sessions is not called; the method and the warning say why and what to do', () => {
    const c = compareRuns(BASE, FAST);
    const without = compareRuns(BASE, FAST, RUNS_ONLY);
    assert.equal(c.verdict, 'no-significant-change');
    assert.equal(c.metrics.requestsPerSecond.ratio, without.metrics.requestsPerSecond.ratio, 'the estimate is the same; only its uncertainty grows');
    assert.ok(c.metrics.requestsPerSecond.ciLow! < 1 && c.metrics.requestsPerSecond.ciHigh! > without.metrics.requestsPerSecond.ciHigh!);
    // No CPU time in these runs: the app's kind is unknown, so the larger of the kinds' terms applies.
    assert.match(c.method, /intervals include drift between the two sessions of the app kind that drifts most \(1 SD: req\/s ±\d+%, p99 ±\d+%\), which more runs do not shrink — `hotpath compare` interleaves and cancels it$/);
    assert.doesNotMatch(without.method, /drift/);
    assert.deepEqual(codes(c), ['INCONCLUSIVE']);
    assert.match(c.warnings[0].message, /Use `hotpath compare` \(interleaved pairs cancel the drift between sessions that more runs cannot\)/);
  });

  it('more runs narrow only the run-to-run part: with identical runs the interval is the drift term alone, with t of the runs\' degrees of freedom', () => {
    const c = compareRuns(runs([1000, 1000, 1000], [10, 10, 10]), runs([1000, 1000, 1000], [10, 10, 10]));
    const half = c.metrics.requestsPerSecond.halfWidthPct!;
    // exp(t(1 − 0.05/4, 4) · √2 · drift) − 1: two verdict metrics, two-sided, df = 3 + 3 − 2 (never the
    // normal's 2.2414, as if identical runs proved there is no run-to-run noise).
    const drift = HTTP_METRICS.requestsPerSecond.sessionDrift;
    assert.equal(c.metrics.requestsPerSecond.df, 4);
    assert.ok(Math.abs(half - (Math.exp(tQuantile(1 - 0.05 / 4, 4) * Math.SQRT2 * drift) - 1) * 100) < 0.05, `half-width ${half}%`);
    assert.equal(c.verdict, 'no-significant-change');
  });

  it('CPU/req, which hardly drifts between sessions, still finds a 30% cut in the app\'s CPU per request', () => {
    const c = compareRuns(runs([10120, 10310, 9980], [12.1, 11.8, 12.4], 0, 10, [0.5, 0.51, 0.49]), runs([13150, 13420, 13010], [9.4, 9.6, 9.3], 0, 10, [0.35, 0.355, 0.345]));
    assert.equal(c.verdict, 'faster');
    assert.deepEqual(c.moved, ['cpuMsPerRequest']);
    assert.match(c.method, /CPU\/req ±2%/);
  });

  it('a 2× gain is called through the drift term, from req/s', () => {
    const c = compareRuns(BASE, runs([20240, 20620, 19960], [12.1, 11.8, 12.4]));
    assert.equal(c.verdict, 'faster');
    assert.deepEqual(c.moved, ['requestsPerSecond']);
  });

  it('other programs\' load changed between the sessions: ENV_LOAD_CHANGED with both figures, intervals widened by loadSensitivity × the change', () => {
    const withLoad = (rs: RunSummary[], cores: number) => rs.map((r) => ({ ...r, otherCpuCores: cores }));
    const cpu = [0.5, 0.51, 0.49];
    const quiet = runs([10120, 10310, 9980], [12.1, 11.8, 12.4], 0, 10, cpu);
    const loaded = runs([8200, 8350, 8100], [14.9, 15.3, 14.6], 0, 10, cpu.map((x) => x * 1.2));
    const changed = compareRuns(withLoad(quiet, 0.1), withLoad(loaded, 1.1));
    const unknown = compareRuns(quiet, loaded);
    const same = compareRuns(withLoad(quiet, 0.6), withLoad(loaded, 0.6));
    assert.equal(changed.warnings[0].code, 'ENV_LOAD_CHANGED');
    assert.match(changed.warnings[0].message, /^Other programs used 0\.10 cores of CPU during the baseline's runs and 1\.10 cores during these/);
    assert.match(changed.method, /widened for other programs' CPU use changing by 1\.00 cores/);
    for (const m of ['requestsPerSecond', 'p99LatencyMs', 'cpuMsPerRequest'] as const) {
      const k = HTTP_METRICS[m].loadSensitivity ?? 0;
      assert.ok(k > 0, `${m} has a measured load sensitivity`);
      assert.ok(changed.metrics[m].halfWidthPct! > unknown.metrics[m].halfWidthPct!, `${m}: wider when the load changed`);
    }
    // A 20% rise of CPU per request under the extra load is what that load does, not a regression.
    assert.equal(unknown.verdict, 'slower', 'without the load figures the CPU/req rise is called');
    assert.equal(changed.verdict, 'no-significant-change');
    // The same load on both sides: no warning, the plain session term.
    assert.ok(!same.warnings.some((w) => w.code === 'ENV_LOAD_CHANGED'));
    assert.deepEqual(same.metrics, unknown.metrics);
  });

  it('uses the runs as the sample: per-second data inside a run does not change the answer', () => {
    const few = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5], 0, 5), runs([10150, 9900, 10300], [10, 11, 10.5], 0, 5));
    const many = compareRuns(runs([10000, 10400, 9800], [10, 11, 10.5], 0, 600), runs([10150, 9900, 10300], [10, 11, 10.5], 0, 600));
    assert.deepEqual(many.metrics, few.metrics);
  });

  it('makes no test with fewer than 2 runs on a side, and says so', () => {
    const c = compareRuns(runs([10000], [10]), runs([12000, 12100, 11900], [9, 9.1, 9.2]));
    assert.equal(c.verdict, 'no-significant-change');
    assert.equal(c.tested, false);
    assert.match(c.summary, /^req\/s \+20\.0% \(untested\), p99 −9\.\d% \(untested\) — no significant change \(too few runs to test\)$/);
    assert.match(c.method, /^No test: needs at least 2 runs on each side \(1 vs 3\)/);
    assert.equal(c.metrics.requestsPerSecond.pValue, null);
    assert.equal(c.metrics.requestsPerSecond.ciLow, null);
    assert.deepEqual(codes(c), ['NOT_ENOUGH_RUNS']);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  });

  it('warns when runs on one side vary a lot', () => {
    const c = compareRuns(runs([10000, 7000, 12000], [10, 11, 10.5]), runs([10150, 9900, 10300], [10.2, 10.9, 10.4]));
    assert.deepEqual(codes(c), ['UNSTABLE_RUNS', 'INCONCLUSIVE']);
    assert.equal(c.warnings[0].message, 'Baseline runs varied by 26% (req/s between runs): only changes well beyond that can be detected. Close other programs or use more runs.');
  });

  it('rejects an alpha outside (0, 1), empty sides and runs without throughput', () => {
    assert.throws(() => compareRuns(BASE, FAST, { alpha: 5 }), (e: unknown) => e instanceof HotpathError && e.code === ErrorCode.InvalidOption);
    assert.throws(() => compareRuns([], FAST), RangeError);
    assert.throws(() => compareRuns(runs([0, 1], [1, 1]), FAST), RangeError);
  });
});

/** A seeded normal generator (LCG + Box–Muller): the simulations below are deterministic. */
function normal(seed: number): () => number {
  let s = seed;
  const u = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

describe('the verdict procedure on simulated lognormal runs (the method, not the machine)', () => {
  // Three metrics per run: throughput and p99 move together under a closed-loop load, with 10%
  // run-to-run noise on the log scale and, optionally, a slow drift of the machine (AR(1), as when
  // another program starts and stops) shared by neighbouring runs; the app's CPU time per request
  // hardly feels the drift (what the calibration benchmark measured: bench/suites/stats.js).
  function simulate(design: 'paired' | 'independent', options: { effect: number; drift: boolean; trials: number; n: number; seed: number; ignoreSessionDrift?: boolean }): number {
    const z = normal(options.seed);
    let called = 0;
    for (let t = 0; t < options.trials; t++) {
      const a = { rps: [] as number[], p99: [] as number[], cpu: [] as number[] };
      const b = { rps: [] as number[], p99: [] as number[], cpu: [] as number[] };
      let drift = 0;
      for (let i = 0; i < 2 * options.n; i++) {
        if (options.drift) drift = 0.9 * drift + 0.05 * z();
        // paired: A B B A A B B A …; independent: n runs of A, then n of B.
        const side = design === 'paired' ? ((i % 4 === 0 || i % 4 === 3) ? a : b) : i < options.n ? a : b;
        const noise = 0.1 * z();
        const gain = side === b ? Math.log(options.effect) : 0;
        side.rps.push(1000 * Math.exp(gain + drift + noise));
        side.p99.push(10 * Math.exp(-gain - drift - noise + 0.05 * z()));
        side.cpu.push(0.5 * Math.exp(-gain + 0.1 * drift + 0.02 * z()));
      }
      const { requestsPerSecond, p99LatencyMs, cpuMsPerRequest } = HTTP_METRICS;
      const set = compareMetricSamples({ requestsPerSecond, p99LatencyMs, cpuMsPerRequest }, {
        requestsPerSecond: { a: a.rps, b: b.rps }, p99LatencyMs: { a: a.p99, b: b.p99 }, cpuMsPerRequest: { a: a.cpu, b: b.cpu },
      }, design, { ignoreSessionDrift: options.ignoreSessionDrift });
      if (set.verdict !== 'no-significant-change') called++;
    }
    return called / options.trials;
  }

  it('A/A without drift: a change is called in at most about 5% of comparisons, in both designs', () => {
    const paired = simulate('paired', { effect: 1, drift: false, trials: 2000, n: 10, seed: 7 });
    const independent = simulate('independent', { effect: 1, drift: false, trials: 2000, n: 3, seed: 11 });
    const runsOnly = simulate('independent', { effect: 1, drift: false, trials: 2000, n: 3, seed: 11, ignoreSessionDrift: true });
    // Binomial(2000, 0.05) has sd 0.5%: 6.5% is three of them above the nominal rate.
    assert.ok(paired <= 0.065, `paired A/A false-positive rate ${paired}`);
    assert.ok(independent <= 0.065, `independent A/A false-positive rate ${independent}`);
    assert.ok(runsOnly <= 0.065, `independent A/A false-positive rate, runs only ${runsOnly}`);
  });

  it('A/A with drift: runs in blocks (verify) call changes that are not there unless the interval carries the drift between sessions; interleaved pairs cancel it', () => {
    const paired = simulate('paired', { effect: 1, drift: true, trials: 2000, n: 10, seed: 13 });
    const runsOnly = simulate('independent', { effect: 1, drift: true, trials: 2000, n: 5, seed: 17, ignoreSessionDrift: true });
    const independent = simulate('independent', { effect: 1, drift: true, trials: 2000, n: 5, seed: 17 });
    assert.ok(paired <= 0.065, `paired A/A false-positive rate under drift ${paired}`);
    assert.ok(runsOnly > 0.08, `blocks under drift inflate false positives when only run-to-run noise is counted (${runsOnly})`);
    assert.ok(independent <= 0.065, `blocks with the session-drift term: A/A false-positive rate under drift ${independent}`);
  });

  it('finds a 2× change nearly always, and a 1.2× change with 20 pairs', () => {
    assert.ok(simulate('independent', { effect: 2, drift: false, trials: 300, n: 3, seed: 19 }) > 0.95);
    assert.ok(simulate('independent', { effect: 2, drift: true, trials: 300, n: 3, seed: 31 }) > 0.95);
    assert.ok(simulate('paired', { effect: 2, drift: true, trials: 300, n: 5, seed: 23 }) > 0.95);
    assert.ok(simulate('paired', { effect: 1.2, drift: true, trials: 300, n: 20, seed: 29 }) > 0.9);
  });

  it('script metrics: wall and CPU time, lower is better', () => {
    const set = compareMetricSamples(SCRIPT_METRICS, { wallMs: { a: [100, 102, 98, 101], b: [50, 51, 49, 50] }, cpuMs: { a: [90, 91, 89, 90], b: [45, 46, 44, 45] } }, 'paired');
    assert.equal(set.verdict, 'faster');
    assert.equal(set.metrics.wallMs.change, 'better');
    assert.match(set.method, /^Paired t-test on the log ratio of each interleaved pair \(4 pairs/);
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
