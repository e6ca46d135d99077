import * as assert from 'node:assert/strict';
import { CancellationTokenSource } from '../../../src/core/common/cancellation';
import { HTTP_METRICS, SCRIPT_METRICS } from '../../../src/core/stats/metrics';
import { DEFAULT_INTERLEAVE, orderOf, runInterleaved, type InterleaveSettings, type InterleaveState } from '../../../src/core/workflow/interleave';

/** A fake machine: each run takes `runMs` on the fake clock; B is `ratio`× A's throughput with seeded noise. */
function fakeRuns(options: { ratio: number; noise: number; runMs?: number; seed?: number }) {
  let clock = 0;
  let seed = options.seed ?? 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  const order: string[] = [];
  return {
    order,
    now: () => clock,
    measure: async (side: 'a' | 'b', run: { pair: number; warmup: boolean }) => {
      order.push(`${run.warmup ? 'w' : ''}${side}`);
      clock += options.runMs ?? 1000;
      const level = (side === 'b' ? options.ratio : 1) * Math.exp(options.noise * rand());
      return { requestsPerSecond: 1000 * level, p99LatencyMs: 10 / level, p50LatencyMs: 3 / level };
    },
  };
}

const settings = (over: Partial<InterleaveSettings> = {}): InterleaveSettings => ({ ...DEFAULT_INTERLEAVE, ...over });

describe('interleaved comparison engine', () => {
  it('alternates A B B A A B …, so each side goes first in half the pairs', async () => {
    const fake = fakeRuns({ ratio: 1, noise: 0.1 });
    const r = await runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ fixedPairs: 4 }), fake);
    assert.deepEqual(fake.order, ['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
    assert.deepEqual(orderOf(1), ['b', 'a']);
    assert.equal(r.pairs, 4);
    assert.equal(r.stopReason, 'fixed');
    assert.equal(r.comparison.design, 'paired');
    assert.deepEqual(r.comparison.n, { a: 4, b: 4 });
  });

  it('keeps adding pairs until the interval is within the target, then stops', async () => {
    const fake = fakeRuns({ ratio: 1.3, noise: 0.12 });
    const r = await runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ targetHalfWidthPct: 5, budgetMs: 1e9, maxPairs: 200 }), fake);
    assert.equal(r.stopReason, 'target');
    assert.ok(r.pairs > DEFAULT_INTERLEAVE.minPairs, `more than the minimum was needed (${r.pairs})`);
    assert.ok(r.comparison.metrics.requestsPerSecond.halfWidthPct! <= 5);
    assert.equal(r.comparison.verdict, 'faster');
    assert.ok(Math.abs(r.comparison.metrics.requestsPerSecond.ratio - 1.3) < 0.1);
  });

  it('stops when the next pair would overrun the time budget, after the minimum pairs', async () => {
    const fake = fakeRuns({ ratio: 1, noise: 0.5, runMs: 10_000 });
    const r = await runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ budgetMs: 125_000, minPairs: 3 }), fake);
    assert.equal(r.stopReason, 'budget');
    assert.equal(r.pairs, 6); // 6 pairs × 20 s = 120 s; a 7th would end at 140 s
    const tiny = await runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ budgetMs: 1, minPairs: 3 }), fakeRuns({ ratio: 1, noise: 0.5 }));
    assert.equal(tiny.pairs, 3, 'the minimum is always run');
  });

  it('stops at maxPairs', async () => {
    const r = await runInterleaved(SCRIPT_METRICS, 'wallMs', settings({ maxPairs: 6, budgetMs: 1e9 }), {
      ...fakeRuns({ ratio: 1, noise: 1 }),
      measure: async () => ({ wallMs: 100 * Math.exp(Math.random()), cpuMs: 90 * Math.exp(Math.random()) }),
    });
    assert.equal(r.stopReason, 'max-pairs');
    assert.equal(r.pairs, 6);
  });

  it('discards warm-up rounds and reports progress with the interval so far', async () => {
    const fake = fakeRuns({ ratio: 2, noise: 0.05 });
    const states: InterleaveState[] = [];
    const r = await runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ fixedPairs: 3, warmupRounds: 1 }), { ...fake, onState: (s) => states.push(s) });
    assert.deepEqual(fake.order.slice(0, 2), ['wa', 'wb']);
    assert.equal(r.runs.length, 6);
    assert.ok(r.runs.every((x) => x.pair >= 0));
    const last = states[states.length - 1];
    assert.equal(last.pairs, 3);
    assert.equal(last.fraction, 1);
    assert.ok(states.some((s) => s.comparison && s.comparison.metrics.requestsPerSecond.ciLow! > 1), 'the interval so far is reported');
    assert.ok(states.every((s, i) => i === 0 || s.fraction >= states[i - 1].fraction - 1e-9), 'progress never goes back');
  });

  it('stops at once when cancelled, and rejects runs without a positive value', async () => {
    const cts = new CancellationTokenSource();
    const fake = fakeRuns({ ratio: 1, noise: 0.1 });
    let n = 0;
    await assert.rejects(runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings(), { ...fake, token: cts.token, measure: async (s, r) => { if (++n === 3) cts.cancel(); return fake.measure(s, r); } }), /cancelled/);
    assert.equal(n, 3);
    await assert.rejects(runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings(), { measure: async () => ({ requestsPerSecond: 0, p99LatencyMs: 1, p50LatencyMs: 1 }) }), /no positive requestsPerSecond/);
    await assert.rejects(runInterleaved(HTTP_METRICS, 'requestsPerSecond', settings({ minPairs: 1 }), fake), /minPairs/);
  });
});
