import * as assert from 'node:assert/strict';
import { geometricMean, halfWidthPct, independentLogRatio, pairedLogRatio } from '../../../src/core/stats/logRatio';

const close = (actual: number | null | undefined, expected: number, tol: number, what: string): void => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual} ≠ ${expected} ± ${tol}`);
};

// R's built-in `sleep` data (Student, 1908): extra sleep of 10 patients under two drugs. Used as log
// values (each value v is exp(x)), so R's published t-test on x is our test on log v, and R's interval
// taken back with exp() is the ratio's.
const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
const exp = (xs: number[]) => xs.map(Math.exp);

describe('log-ratio statistics', () => {
  it("independent samples: Welch on the logs matches R's t.test(extra ~ group, data = sleep)", () => {
    // R: t = -1.8608, df = 17.776, p-value = 0.07939, 95% CI -3.3654832 … 0.2054832, difference -1.58.
    const r = independentLogRatio(exp(group2), exp(group1), 0.05)!;
    close(r.ratio, Math.exp(-1.58), 1e-12, 'ratio');
    close(r.df, 17.776, 5e-4, 'df');
    close(r.pValue, 0.07939, 5e-6, 'p');
    close(Math.log(r.ciLow), -3.3654832, 5e-7, 'log ciLow');
    close(Math.log(r.ciHigh), 0.2054832, 5e-7, 'log ciHigh');
  });

  it("paired samples: the one-sample t-test of pair log ratios matches R's t.test(…, paired = TRUE)", () => {
    // R: t = -4.0621, df = 9, p-value = 0.002833, 95% CI -2.4598858 … -0.7001142, mean difference -1.58.
    const r = pairedLogRatio(exp(group2), exp(group1), 0.05)!;
    close(r.ratio, Math.exp(-1.58), 1e-12, 'ratio');
    assert.equal(r.df, 9);
    close(r.pValue, 0.002833, 5e-7, 'p');
    close(Math.log(r.ciLow), -2.4598858, 5e-7, 'log ciLow');
    close(Math.log(r.ciHigh), -0.7001142, 5e-7, 'log ciHigh');
  });

  it('an interval of a ratio never implies a fall below −100%, however wide', () => {
    const r = independentLogRatio([165, 227, 223], [400, 2100, 6000], 0.05)!;
    assert.ok(r.ciLow > 0, `ciLow ${r.ciLow}`);
    assert.ok(r.ciHigh > r.ratio && r.ratio > r.ciLow);
    // Symmetric on the log scale: ratio² = low × high.
    close(r.ratio * r.ratio, r.ciLow * r.ciHigh, 1e-9 * r.ratio * r.ratio, 'log symmetry');
  });

  it('the issue\'s Express case: 165/227/223 → ~2,100 req/s is a significant ~10× gain with 3 runs a side', () => {
    const r = independentLogRatio([165, 227, 223], [2050, 2130, 2120], 0.025)!;
    assert.ok(r.pValue < 0.01, `p ${r.pValue}`); // Welch on raw means said p = 0.064 here
    assert.ok(r.ciLow > 5, `ciLow ${r.ciLow}`);
  });

  it('the issue\'s Express case holds with the calibrated req/s drift between sessions too', () => {
    const r = independentLogRatio([165, 227, 223], [2050, 2130, 2120], 0.025, 0.13)!;
    assert.ok(r.pValue < 0.01, `p ${r.pValue}`);
    assert.ok(r.ciLow > 4, `ciLow ${r.ciLow}`);
  });

  it('session drift: adds 2·sd² to the variance of the difference, keeps the estimate and the run-to-run df', () => {
    const a = [100, 104, 97];
    const b = [110, 113, 108];
    const runs = independentLogRatio(a, b, 0.05)!;
    const drift = independentLogRatio(a, b, 0.05, 0.1)!;
    assert.equal(drift.ratio, runs.ratio);
    close(drift.se, Math.sqrt(runs.se ** 2 + 2 * 0.01), 1e-12, 'se');
    // Satterthwaite with the known term in the numerator only: df grows beyond Welch's, up to the runs' own (3 + 3 − 2).
    assert.ok(drift.df! > runs.df!, `df ${drift.df} > ${runs.df}`);
    assert.ok(drift.df! <= 4, `df ${drift.df} ≤ 4`);
    assert.ok(drift.pValue > runs.pValue);
    assert.deepEqual(independentLogRatio(a, b, 0.05, 0), runs);
    // Identical runs: the drift term alone, with t of the runs' 2 degrees of freedom (not the normal's).
    const flat = independentLogRatio([100, 100], [150, 150], 0.05, 0.1)!;
    close(flat.se, Math.SQRT2 * 0.1, 1e-12, 'se of identical runs');
    assert.equal(flat.df, 2);
    close(flat.tCritical, 4.302653, 1e-5, 't(0.975, 2)');
    assert.throws(() => independentLogRatio(a, b, 0.05, -0.1), RangeError);
    assert.throws(() => independentLogRatio(a, b, 0.05, Number.NaN), RangeError);
  });

  it('two runs a side that agree by chance do not shrink the interval to the session term (CI\'s ×1.084 CPU/req)', () => {
    // Two runs a side within 0.01% of each other, 8.4% apart, with CPU/req's term of 0.023 at α = 0.05/3:
    // with the df of the known term alone (Satterthwaite → ∞) the interval was ±8% and called it; the runs
    // support 2 degrees of freedom, so t(0.99167, 2) = 7.65 keeps it open.
    const r = independentLogRatio([1, 1.0001], [1.084, 1.0841], 0.05 / 3, 0.023)!;
    assert.equal(r.df, 2);
    assert.ok(r.ciLow < 1 && r.ciHigh > 1.084, `interval ${r.ciLow} … ${r.ciHigh}`);
    assert.ok(r.pValue > 0.05 / 3, `p ${r.pValue}`);
  });

  it('needs two values a side (pairs), positive values, equal lengths when paired', () => {
    assert.equal(independentLogRatio([1], [1, 2], 0.05), undefined);
    assert.equal(pairedLogRatio([1], [2], 0.05), undefined);
    assert.throws(() => pairedLogRatio([1, 2], [1], 0.05), RangeError);
    assert.throws(() => independentLogRatio([0, 1], [1, 2], 0.05), /positive/);
  });

  it('zero variance of the pair ratios is treated as certain', () => {
    const same = pairedLogRatio([100, 200], [100, 200], 0.05)!;
    assert.equal(same.pValue, 1);
    assert.equal(same.ratio, 1);
    const double = pairedLogRatio([100, 200], [200, 400], 0.05)!;
    assert.equal(double.pValue, 0);
    close(double.ciLow, 2, 1e-12, 'low');
    assert.equal(halfWidthPct(double), 0);
  });

  it('geometric mean and half width', () => {
    close(geometricMean([1, 100]), 10, 1e-12, 'geomean');
    close(halfWidthPct({ se: Math.log(1.05), tCritical: 1 }), 5, 1e-9, 'half width');
  });
});
