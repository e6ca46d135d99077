import * as assert from 'node:assert/strict';
import { fiellerRelativeInterval } from '../../../src/core/stats/ratioInterval';
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

describe('fiellerRelativeInterval', () => {
  it('matches the interval found by root-finding in SciPy', () => {
    // Independent check: scipy.optimize.brentq on (m2 − r·m1)² − t²(v2 + r²·v1) = 0 with t from
    // scipy.stats.t.ppf(0.975, welch_df) gives r − 1 = +25.406482924649954% … +35.08871012620165%.
    const b = [10120, 10310, 9980];
    const c = [13150, 13420, 13010];
    const w = welchTTest(b, c)!;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const r = fiellerRelativeInterval(mean(b), w.varMeanBaseline, mean(c), w.varMeanCurrent, w.tCritical)!;
    close(r.lowPct, 25.406482924649954, 1e-6, 'lowPct');
    close(r.highPct, 35.08871012620165, 1e-6, 'highPct');
  });

  it('excludes 0% exactly when the Welch interval excludes 0', () => {
    // Deterministic pseudo-random data sets around the decision boundary.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let significant = 0;
    for (let i = 0; i < 500; i++) {
      const b = [0, 1, 2].map(() => 1000 + rand() * 100);
      const c = [0, 1, 2].map(() => 1000 + rand() * 100 + (i % 10) * 10);
      const w = welchTTest(b, c)!;
      const mb = b.reduce((s, x) => s + x, 0) / 3;
      const mc = c.reduce((s, x) => s + x, 0) / 3;
      const r = fiellerRelativeInterval(mb, w.varMeanBaseline, mc, w.varMeanCurrent, w.tCritical)!;
      const welchExcludes = w.ciLow > 0 || w.ciHigh < 0;
      const fiellerExcludes = r.lowPct > 0 || r.highPct < 0;
      assert.equal(fiellerExcludes, welchExcludes, `data set ${i}`);
      if (welchExcludes) significant++;
    }
    assert.ok(significant > 50 && significant < 450, `both outcomes exercised (${significant} of 500 significant)`);
  });

  it('has no bounded interval when the baseline mean is 0 or indistinguishable from 0', () => {
    assert.equal(fiellerRelativeInterval(0, 1, 10, 1, 2), undefined);
    assert.equal(fiellerRelativeInterval(1, 1, 10, 1, 2), undefined);
  });
});
