import type { Warning } from '../common/warnings';
import type { MetricComparison, Verdict } from './compare';
import { coefficientOfVariation } from './descriptive';
import { signedPercent } from './formatComparison';
import type { RunSummary } from './runSummary';

/** Run-to-run variation of req/s above this (coefficient of variation) makes small changes undetectable. */
export const UNSTABLE_CV = 0.1;
/** A non-significant result whose interval still allows a change this large (in %) is called inconclusive. */
export const INCONCLUSIVE_PCT = 5;

interface WarningInput {
  baseline: readonly RunSummary[];
  current: readonly RunSummary[];
  requestsPerSecond: MetricComparison;
  p99Ms: MetricComparison;
  verdict: Verdict;
  tested: boolean;
  level: string;
}

function notEnoughRuns({ baseline, current }: WarningInput): Warning | undefined {
  if (baseline.length >= 2 && current.length >= 2) return undefined;
  return {
    code: 'NOT_ENOUGH_RUNS',
    message:
      `Only ${baseline.length} baseline and ${current.length} current run(s): a comparison needs at least 2 runs on ` +
      'each side to tell a change from run-to-run noise, so no test was made. Use --runs 3 or more for both the baseline and the verify.',
  };
}

function unstable(side: 'Baseline' | 'Current', runs: readonly RunSummary[]): Warning | undefined {
  const cv = coefficientOfVariation(runs.map((r) => r.requestsPerSecond));
  if (!(cv > UNSTABLE_CV)) return undefined;
  return {
    code: 'UNSTABLE_RUNS',
    message:
      `${side} runs varied by ${Math.round(cv * 100)}% (req/s between runs): only changes well beyond that can be detected. ` +
      'Close other programs or use more runs.',
  };
}

function zeroVariance(name: string, m: MetricComparison, tested: boolean): Warning | undefined {
  if (!tested || m.baselineStddev !== 0 || m.currentStddev !== 0) return undefined;
  return {
    code: 'ZERO_VARIANCE',
    message:
      `Every run gave exactly the same ${name} on both sides, so the test has no noise to measure against and ` +
      `${m.diff === 0 ? 'reports no change' : 'treats the difference as certain'}. Check that the metric is not stuck or rounded.`,
  };
}

function inconclusive({ requestsPerSecond: m, tested, level }: WarningInput): Warning | undefined {
  if (!tested || m.significant || m.ciLowPct === null || m.ciHighPct === null) return undefined;
  const widest = Math.max(Math.abs(m.ciLowPct), Math.abs(m.ciHighPct));
  if (widest <= INCONCLUSIVE_PCT) return undefined;
  return {
    code: 'INCONCLUSIVE',
    message:
      `No significant change, but the ${level} interval (${signedPercent(m.ciLowPct, 1)} … ${signedPercent(m.ciHighPct, 1)}) ` +
      `still allows a real change of up to ${Math.round(widest)}% in req/s. Use more runs, or longer ones, to narrow it.`,
  };
}

function runErrors({ baseline, current }: WarningInput): Warning | undefined {
  const failing = [...baseline, ...current].filter((r) => r.errors > 0).length;
  if (failing === 0) return undefined;
  return {
    code: 'RUN_ERRORS',
    message:
      `${failing} of ${baseline.length + current.length} runs had failed requests (errors, timeouts or non-2xx). ` +
      'Failures are cheaper or slower than real work, so throughput may not be comparable; fix them first.',
  };
}

function latencyRegressed({ verdict, p99Ms }: WarningInput): Warning | undefined {
  if (verdict !== 'faster' || !p99Ms.significant || !(p99Ms.diff > 0)) return undefined;
  const by = p99Ms.diffPct === null ? `${p99Ms.diff.toFixed(3)} ms` : signedPercent(p99Ms.diffPct);
  return {
    code: 'P99_REGRESSED',
    message: `Throughput improved but p99 latency got significantly worse (${by}): the slowest requests pay for the gain.`,
  };
}

export function comparisonWarnings(input: WarningInput): Warning[] {
  const candidates = [
    notEnoughRuns(input),
    unstable('Baseline', input.baseline),
    unstable('Current', input.current),
    zeroVariance('req/s', input.requestsPerSecond, input.tested),
    zeroVariance('p99 latency', input.p99Ms, input.tested),
    inconclusive(input),
    runErrors(input),
    latencyRegressed(input),
  ];
  return candidates.filter((w): w is Warning => w !== undefined);
}
