import type { Warning } from '../common/warnings';
import { coefficientOfVariation } from './descriptive';
import { thresholdBounds, toDecide, toDecideText } from './decide';
import { ratioInterval, ratioPercent } from './formatComparison';
import type { MetricComparisonSet, MetricResult } from './metrics';

/** Run-to-run variation of the primary metric above this (coefficient of variation) makes small changes undetectable. */
export const UNSTABLE_CV = 0.1;
/** A non-significant result whose interval still allows a change this large (in %) is called inconclusive. */
export const INCONCLUSIVE_PCT = 5;

export interface WarningInput {
  set: MetricComparisonSet;
  /** The metric the verdict is mostly about (req/s, wall time): instability and inconclusiveness refer to it. */
  primary: string;
  /** Its per-run values on each side, and what to call the sides ("Baseline", "Current" or side labels). */
  sides: [{ name: string; values: readonly number[] }, { name: string; values: readonly number[] }];
  /** Runs with failed requests, of how many. */
  failedRuns?: { failing: number; total: number };
  /** How to get more precision: "Use --runs 5 or more" / "Use more pairs (--pairs) or a longer --budget". */
  moreData: string;
}

function notEnoughData({ set, moreData }: WarningInput): Warning | undefined {
  if (set.tested) return undefined;
  const what = set.design === 'paired'
    ? `Only ${set.n.a} pair(s)`
    : `Only ${set.n.a} baseline and ${set.n.b} current run(s)`;
  return {
    code: 'NOT_ENOUGH_RUNS',
    message: `${what}: a comparison needs at least 2 ${set.design === 'paired' ? 'pairs' : 'runs on each side'} to tell a change from run-to-run noise, so no test was made. ${moreData}.`,
  };
}

function unstable(side: { name: string; values: readonly number[] }, label: string): Warning | undefined {
  const cv = coefficientOfVariation(side.values);
  if (!(cv > UNSTABLE_CV)) return undefined;
  return {
    code: 'UNSTABLE_RUNS',
    message: `${side.name} runs varied by ${Math.round(cv * 100)}% (${label} between runs): only changes well beyond that can be detected. Close other programs or use more runs.`,
  };
}

function zeroVariance({ set }: WarningInput): Warning | undefined {
  const stuck = Object.values(set.metrics).filter((m) => set.tested && m.halfWidthPct === 0);
  if (stuck.length === 0) return undefined;
  return {
    code: 'ZERO_VARIANCE',
    message: `Every run gave exactly the same ${stuck.map((m) => m.label).join(' and ')} ratio, so the test has no noise to measure against and treats it as certain. Check that the metric is not stuck or rounded.`,
  };
}

function inconclusive({ set, primary, moreData }: WarningInput): Warning | undefined {
  const m = set.metrics[primary];
  if (!set.tested || set.verdict !== 'no-significant-change' || !m || m.ciLow === null || m.ciHigh === null) return undefined;
  const widest = Math.max(Math.abs(m.ciLow - 1), Math.abs(m.ciHigh - 1)) * 100;
  if (widest <= INCONCLUSIVE_PCT) return undefined;
  const more = toDecide(m, set.design, set.metricConfidenceLevel, thresholdBounds(m, INCONCLUSIVE_PCT, 'both'));
  const decide = more ? ` Whether ${m.label} changed by more than ${INCONCLUSIVE_PCT}% would take ${toDecideText(more, set.design)}${more.kind === 'count' ? ` in all (this run: ${set.design === 'paired' ? `${set.n.a} pairs` : `${set.n.a} and ${set.n.b} runs`})` : ''}.` : '';
  return {
    code: 'INCONCLUSIVE',
    message: `No significant change, but the ${ratioInterval(m, set.metricConfidenceLevel)} of ${m.label} still allows a real change of up to ${Math.round(widest)}%.${decide} ${moreData} to narrow it.`,
  };
}

function runErrors({ failedRuns }: WarningInput): Warning | undefined {
  if (!failedRuns || failedRuns.failing === 0) return undefined;
  return {
    code: 'RUN_ERRORS',
    message: `${failedRuns.failing} of ${failedRuns.total} runs had failed requests (errors, timeouts or non-2xx). Failures are cheaper or slower than real work, so throughput may not be comparable; fix them first.`,
  };
}

/** One verdict metric better, another worse: say which, since the one-word verdict cannot. */
function mixed({ set }: WarningInput): Warning | undefined {
  const better = set.moved.filter((n) => set.metrics[n].change === 'better').map((n) => set.metrics[n]);
  const worse = set.moved.filter((n) => set.metrics[n].change === 'worse').map((n) => set.metrics[n]);
  if (!better.length || !worse.length) return undefined;
  const list = (ms: MetricResult[]) => ms.map((m) => `${m.label} ${ratioPercent(m.ratio)}`).join(', ');
  return {
    code: 'MIXED_CHANGE',
    message: set.verdict === 'slower'
      ? `${list(better)} improved but ${list(worse)} got significantly worse: the verdict is "slower" because a regression in a user-facing metric is one (throughput bought with tail latency is paid by the slowest requests).`
      : `${list(better)} improved but ${list(worse)} got significantly worse: the verdict follows what users see (throughput, latency, wall time); the CPU time per request or run went up.`,
  };
}

export function comparisonWarnings(input: WarningInput): Warning[] {
  const label = input.set.metrics[input.primary]?.label ?? input.primary;
  const candidates = [
    notEnoughData(input),
    unstable(input.sides[0], label),
    unstable(input.sides[1], label),
    zeroVariance(input),
    inconclusive(input),
    runErrors(input),
    mixed(input),
  ];
  return candidates.filter((w): w is Warning => w !== undefined);
}
