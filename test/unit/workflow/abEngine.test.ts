import { strict as assert } from 'node:assert';
import { analysePairs, orderOf, runAbComparison, type MetricSpecs, type RunRecord } from '../../../src/core/workflow/abEngine';

const SPECS: MetricSpecs = { ms: { label: 'time', unit: 'ms', better: 'lower', inVerdict: true } };

/** Deterministic "noise" around a level, the same for both sides of a pair (machine drift). */
const drift = (pair: number) => 1 + 0.2 * Math.sin(pair * 1.7);

describe('interleaved A/B comparison', () => {
  it('alternates A B, B A so each side goes first equally often', () => {
    assert.deepEqual([0, 1, 2, 3].map(orderOf), [['a', 'b'], ['b', 'a'], ['a', 'b'], ['b', 'a']]);
  });

  it('a 2× faster side is "faster", with the ratio and an interval around it; drift shared by a pair cancels', async () => {
    const seen: string[] = [];
    const r = await runAbComparison(SPECS, 'ms', { minPairs: 5, maxPairs: 10, targetHalfWidthPct: 5, budgetMs: 1e9, warmupRounds: 1, alpha: 0.05 }, {
      measure: async (side, run) => { seen.push(`${run.warmup ? 'w' : run.pair}${side}`); return { ms: (side === 'a' ? 100 : 50) * drift(run.pair) * (1 + ((run.pair + (side === 'a' ? 0 : 1)) % 3) * 0.004) }; },
    });
    assert.equal(r.comparison.verdict, 'faster');
    const m = r.comparison.metrics.ms;
    assert.ok(Math.abs(m.ratio - 0.5) < 0.01 && m.ciLow! < m.ratio && m.ratio < m.ciHigh!, JSON.stringify(m));
    assert.equal(m.change, 'better');
    assert.deepEqual(seen.slice(0, 6), ['wa', 'wb', '0a', '0b', '1b', '1a'], 'warm-up discarded, then A B B A');
    assert.equal(r.stopReason, 'target', 'the interval got narrow fast');
  });

  it('the same program on both sides: no significant change', () => {
    const runs: RunRecord[] = [];
    for (let p = 0; p < 8; p++) for (const side of orderOf(p)) runs.push({ pair: p, side, position: 0, values: { ms: 100 * drift(p) * (1 + ((p * 7 + (side === 'a' ? 1 : 4)) % 5) * 0.01) }, durationMs: 1 });
    assert.equal(analysePairs(SPECS, runs, 0.05).verdict, 'no-significant-change');
  });

  it('a slower side is "slower"; one pair is no test', () => {
    const runs: RunRecord[] = [];
    for (let p = 0; p < 6; p++) {
      runs.push({ pair: p, side: 'a', position: 0, values: { ms: 100 * drift(p) } , durationMs: 1 });
      runs.push({ pair: p, side: 'b', position: 1, values: { ms: 130 * drift(p) * (1 + (p % 2) * 0.01) }, durationMs: 1 });
    }
    assert.equal(analysePairs(SPECS, runs, 0.05).verdict, 'slower');
    const one = analysePairs(SPECS, runs.slice(0, 2), 0.05);
    assert.equal(one.tested, false);
    assert.equal(one.verdict, 'no-significant-change');
  });
});
