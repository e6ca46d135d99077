import * as assert from 'node:assert/strict';
import { GROWTH_FLOOR_BYTES_PER_REQUEST, growthOf, type Rung } from '../../../src/core/memory/growth';
import { compareGrowth, growthRate } from '../../../src/core/memory/growthComparison';

const rungs = (perRequest: number, noise: number[]): Rung[] => [0, 2000, 4000, 8000, 8000].map((requests, i) => ({
  requests, phase: i === 0 ? 'warmup' : i === 4 ? 'idle' : 'load', heapUsedBytes: 8_000_000 + perRequest * requests + (noise[i] ?? 0),
}));

describe('heap growth per request (least squares over the rungs)', () => {
  it('finds a per-request leak with an interval around its rate: growing', () => {
    const g = growthOf(rungs(300, [10_000, -20_000, 15_000, -5_000, 0]));
    assert.equal(g.verdict, 'growing');
    assert.ok(Math.abs(g.bytesPerRequest - 300) < 10, String(g.bytesPerRequest));
    assert.ok(g.ciLow < 300 && g.ciHigh > 300 && g.ciLow > GROWTH_FLOOR_BYTES_PER_REQUEST, JSON.stringify(g));
    assert.equal(g.n, 5);
    assert.equal(g.df, 3);
  });

  it('calls a flat heap stable, and a noisy one stable too unless the interval clears the floor', () => {
    assert.equal(growthOf(rungs(0, [30_000, -40_000, 10_000, 20_000, -15_000])).verdict, 'stable');
    // A small slope lost in heap noise: the interval includes the floor.
    const noisy = growthOf(rungs(40, [400_000, -300_000, 500_000, -200_000, 100_000]));
    assert.equal(noisy.verdict, 'stable');
    assert.ok(noisy.ciLow <= GROWTH_FLOOR_BYTES_PER_REQUEST);
  });

  it('a heap that grows during the load but is released when idle does not read as a leak', () => {
    const r = rungs(300, [0, 0, 0, 0, 0]);
    r[4].heapUsedBytes = r[0].heapUsedBytes + 50_000; // back down after the idle period
    assert.equal(growthOf(r).verdict, 'stable');
  });

  it('needs three observations for an interval', () => {
    const g = growthOf(rungs(300, []).slice(0, 2));
    assert.equal(g.verdict, 'stable');
    assert.equal(g.ciLow, -Infinity);
  });
});

describe('growth rates compared (verify, compare, a second leak check)', () => {
  const growing = { verdict: 'growing' as const, bytesPerRequest: 3174.4, ciLow: 3000, ciHigh: 3300 };
  const stable = { verdict: 'stable' as const, bytesPerRequest: 2, ciLow: -30, ciHigh: 34 };

  it('reads a fixed leak as "stable now; was +3.1 KB/request"', () => {
    const c = compareGrowth(growing, stable);
    assert.equal(c.change, 'fixed');
    assert.equal(c.summary, 'stable now; was +3.1 KB/request');
  });

  it('names a new leak, a leak that remains (and whether its rate moved), and nothing changed', () => {
    assert.equal(compareGrowth(stable, growing).change, 'new-leak');
    assert.match(compareGrowth(stable, growing).summary, /^growing now: \+3\.1 KB\/request \(was stable\)$/);
    const slower = compareGrowth(growing, { verdict: 'growing', bytesPerRequest: 500, ciLow: 450, ciHigh: 560 });
    assert.equal(slower.change, 'still-growing');
    assert.equal(slower.rate, 'slower');
    assert.match(slower.summary, /^growing more slowly: \+500 B\/request \(was \+3\.1 KB\/request\)$/);
    assert.equal(compareGrowth(growing, { ...growing, bytesPerRequest: 3100 }).rate, 'same');
    assert.equal(compareGrowth(stable, stable).change, 'stable');
  });

  it('formats rates with the shared byte formatter and a sign', () => {
    assert.equal(growthRate(310), '+310 B/request');
    assert.equal(growthRate(-12), '−12 B/request');
  });
});
