/**
 * A CI gate's policy over a comparison's verdict: when a run fails the build. A p-value alone gates on
 * any change the test can see; a policy says how large a regression matters (`--max-regression`), what
 * change is too small to mention (`--min-effect`), and whether a run that cannot decide fails too
 * (`--fail-on inconclusive`). Three outcomes:
 *
 * - regression: the verdict is slower and, with a maximum, some deciding metric's whole interval lies
 *   beyond it (the slowdown is larger than PCT at the comparison's confidence);
 * - inconclusive: no regression beyond policy, but an interval still allows one — a user-facing metric's
 *   interval reaches past the threshold (the maximum, else --min-effect, else 5%) on the worse side, or
 *   there was no test at all (too few runs or pairs); with the runs or pairs that would decide;
 * - pass: otherwise (faster, unchanged, or slower by less than the maximum).
 */
import { INCONCLUSIVE_PCT } from '../stats/comparisonWarnings';
import { thresholdBounds, toDecide, toDecideText } from '../stats/decide';
import { ratioInterval, ratioPercent } from '../stats/formatComparison';
import type { MetricComparisonSet, MetricResult } from '../stats/metrics';
import type { GatePolicy } from './gatePolicy';

export { DEFAULT_POLICY, type FailOn, type GatePolicy } from './gatePolicy';

export type GateOutcome = 'pass' | 'regression' | 'inconclusive';

export interface DecidingMetric {
  key: string;
  label: string;
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  change: MetricResult['change'];
}

export interface GateResult {
  outcome: GateOutcome;
  /** The policy fails the run on this outcome. */
  failed: boolean;
  /** One line: what the gate decided and why, with the numbers. */
  summary: string;
  /** The change in the policy's words (`--min-effect`): "slower by more than 2%", "no change larger than 2%". */
  wording: string;
  /** The verdict's deciding metrics (the ones that moved; when none did, the user-facing verdict metrics). */
  deciding: DecidingMetric[];
  /** For an inconclusive run: how many runs a side or pairs would decide, in words. */
  toDecide?: string;
  /** The threshold the gate held intervals to, %. */
  thresholdPct: number;
}

/** How much worse a ratio is for the metric, in % (negative: better). */
export function worsePct(m: Pick<MetricResult, 'better'>, ratio: number): number {
  return m.better === 'higher' ? (1 - ratio) * 100 : (ratio - 1) * 100;
}

/** The interval's ends as "worse by" %: [least worse, most worse]. */
function worseRange(m: MetricResult): [number, number] | null {
  if (m.ciLow === null || m.ciHigh === null) return null;
  const ends = [worsePct(m, m.ciLow), worsePct(m, m.ciHigh)].sort((x, y) => x - y);
  return [ends[0], ends[1]];
}

const named = (entries: Array<[string, MetricResult]>) => entries.map(([key, m]): DecidingMetric => ({ key, label: m.label, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh, change: m.change }));
const describe = (m: MetricResult, level: number) => `${m.label} ${ratioPercent(m.ratio, 1)} (${ratioInterval(m, level)})`;

/** The verdict's deciding metrics: those that moved in the tier that decided, else the user-facing ones. */
export function decidingMetrics(set: MetricComparisonSet): Array<[string, MetricResult]> {
  const moved = set.moved.map((k): [string, MetricResult] => [k, set.metrics[k]]);
  const primary = moved.filter(([, m]) => !m.supporting);
  if (primary.length) return primary;
  if (moved.length) return moved;
  return Object.entries(set.metrics).filter(([, m]) => m.inVerdict && !m.supporting);
}

function wordingOf(set: MetricComparisonSet, deciding: Array<[string, MetricResult]>, minEffect: number | undefined): string {
  if (!set.tested) return 'not tested (too few runs or pairs)';
  if (minEffect === undefined) return set.verdict === 'no-significant-change' ? 'no significant change' : set.verdict;
  const ranges = deciding.map(([, m]) => worseRange(m)).filter((r): r is [number, number] => r !== null);
  if (set.verdict === 'slower') {
    if (ranges.some(([least]) => least > minEffect)) return `slower by more than ${minEffect}%`;
    if (ranges.every(([, most]) => most < minEffect)) return `slower, but by less than ${minEffect}% (--min-effect): too small to matter`;
    return `slower, perhaps by less than ${minEffect}%`;
  }
  if (set.verdict === 'faster') {
    // Better by: the negative of worse.
    if (ranges.some(([, most]) => -most > minEffect)) return `faster by more than ${minEffect}%`;
    if (ranges.every(([least]) => -least < minEffect)) return `faster, but by less than ${minEffect}% (--min-effect): too small to matter`;
    return `faster, perhaps by less than ${minEffect}%`;
  }
  if (ranges.length && ranges.every(([least, most]) => least > -minEffect && most < minEffect)) return `no change larger than ${minEffect}%`;
  return `no significant change, but a change larger than ${minEffect}% is not ruled out`;
}

/** The gate's decision on a comparison (and, for verify, a new leak). */
export function evaluateGate(set: MetricComparisonSet, policy: GatePolicy, extra: { newLeak?: string } = {}): GateResult {
  const level = set.metricConfidenceLevel;
  const threshold = policy.maxRegressionPct ?? policy.minEffectPct ?? INCONCLUSIVE_PCT;
  const deciding = decidingMetrics(set);
  const wording = wordingOf(set, deciding, policy.minEffectPct);
  const result = (outcome: GateOutcome, summary: string, toDecideText?: string): GateResult => ({
    outcome, failed: (outcome === 'regression' && policy.failOn.has('slower')) || (outcome === 'inconclusive' && policy.failOn.has('inconclusive')),
    summary, wording, deciding: named(deciding), thresholdPct: threshold, ...(toDecideText ? { toDecide: toDecideText } : {}),
  });
  if (extra.newLeak) return result('regression', `a new leak: ${extra.newLeak}`);
  if (!set.tested) return result('inconclusive', `no test: ${set.method}`);

  if (set.verdict === 'slower') {
    const worse = deciding.filter(([, m]) => m.change === 'worse');
    if (policy.maxRegressionPct === undefined) return result('regression', `slower: ${worse.map(([, m]) => describe(m, level)).join(', ')}`);
    const max = policy.maxRegressionPct;
    const beyond = worse.filter(([, m]) => (worseRange(m)?.[0] ?? 0) > max);
    if (beyond.length) return result('regression', `slower by more than the ${max}% allowed (--max-regression): ${beyond.map(([, m]) => describe(m, level)).join(', ')}`);
    const open = worse.filter(([, m]) => (worseRange(m)?.[1] ?? Infinity) > max);
    if (open.length) return result('inconclusive', `slower, and the interval allows more than the ${max}% allowed (--max-regression): ${open.map(([, m]) => describe(m, level)).join(', ')}`, decideText(set, open, max));
    return result('pass', `slower, but by less than the ${max}% allowed (--max-regression): ${worse.map(([, m]) => describe(m, level)).join(', ')}`);
  }

  // Faster or unchanged: is a regression beyond the threshold still possible on a user-facing metric?
  const userFacing = Object.entries(set.metrics).filter(([, m]) => m.inVerdict && !m.supporting);
  const open = userFacing.filter(([, m]) => (worseRange(m)?.[1] ?? Infinity) > threshold);
  const what = set.verdict === 'faster' ? 'faster' : 'no significant change';
  if (open.length) {
    const flag = policy.maxRegressionPct !== undefined ? ' (--max-regression)' : policy.minEffectPct !== undefined ? ' (--min-effect)' : '';
    return result('inconclusive', `${what}, but the interval still allows a regression larger than ${threshold}%${flag}: ${open.map(([, m]) => describe(m, level)).join(', ')}`, decideText(set, open, threshold));
  }
  return result('pass', `${what}; no regression larger than ${threshold}%: ${userFacing.map(([, m]) => describe(m, level)).join(', ')}`);
}

/** "about 14 pairs would decide (req/s)" for the open metrics, the largest need first. */
function decideText(set: MetricComparisonSet, open: Array<[string, MetricResult]>, pct: number): string | undefined {
  const needs = open.map(([, m]) => ({ m, need: toDecide(m, set.design, set.metricConfidenceLevel, thresholdBounds(m, pct, 'worse')) })).filter((x) => x.need);
  if (!needs.length) return undefined;
  const rank = (x: (typeof needs)[number]) => (x.need!.kind === 'count' ? x.need!.n : Infinity);
  needs.sort((x, y) => rank(y) - rank(x));
  const top = needs[0];
  return `${toDecideText(top.need!, set.design)} would decide whether ${top.m.label} regressed by more than ${pct}%`;
}
