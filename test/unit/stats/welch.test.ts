import * as assert from 'node:assert/strict';
import { welchTTest } from '../../../src/core/stats/welch';

const close = (actual: number | null | undefined, expected: number, tol: number, what: string): void => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual} ≠ ${expected} ± ${tol}`);
};

describe('welchTTest', () => {
  it("matches R's t.test(extra ~ group, data = sleep) (Welch is R's default)", () => {
    // R's documented output for its built-in `sleep` data (Student, 1908):
    //   Welch Two Sample t-test: t = -1.8608, df = 17.776, p-value = 0.07939
    //   95 percent confidence interval: -3.3654832  0.2054832
    // R reports group 1 − group 2, so group 2 is our baseline and group 1 our current.
    const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
    const r = welchTTest(group2, group1)!;
    close(r.t, -1.8608, 5e-5, 't');
    close(r.df, 17.776, 5e-4, 'df');
    close(r.pValue, 0.07939, 5e-6, 'p');
    close(r.ciLow, -3.3654832, 5e-7, 'ciLow');
    close(r.ciHigh, 0.2054832, 5e-7, 'ciHigh');
    close(r.diff, -1.58, 1e-12, 'diff');
  });

  it('matches SciPy for a typical 3-vs-3 runs comparison', () => {
    // scipy.stats.ttest_ind(current, baseline, equal_var=False) (SciPy 1.17):
    //   p = 5.48462114476888e-05, df = 3.8059902203577227, 95% CI 2621.2232019594344 … 3492.1101313739014
    const r = welchTTest([10120, 10310, 9980], [13150, 13420, 13010])!;
    close(r.pValue, 5.48462114476888e-5, 1e-12, 'p');
    close(r.df, 3.8059902203577227, 1e-9, 'df');
    close(r.ciLow, 2621.2232019594344, 1e-6, 'ciLow');
    close(r.ciHigh, 3492.1101313739014, 1e-6, 'ciHigh');
  });

  it('uses the other side\'s n − 1 as df when one side has zero variance', () => {
    const r = welchTTest([100, 100, 100], [110, 120, 130])!;
    close(r.df, 2, 1e-12, 'df');
  });

  it('needs two values on each side', () => {
    assert.equal(welchTTest([1], [1, 2]), undefined);
    assert.equal(welchTTest([1, 2], []), undefined);
  });

  it('treats zero variance on both sides as certain: p = 1 when equal, p = 0 when not', () => {
    assert.deepEqual(
      { ...welchTTest([5, 5], [5, 5, 5])! },
      { diff: 0, se: 0, t: 0, df: null, pValue: 1, tCritical: 0, ciLow: 0, ciHigh: 0, varMeanBaseline: 0, varMeanCurrent: 0 },
    );
    const r = welchTTest([5, 5], [6, 6])!;
    assert.equal(r.pValue, 0);
    assert.deepEqual([r.ciLow, r.ciHigh], [1, 1]);
  });
});
