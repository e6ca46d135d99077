import { invalidOption } from '../common/errors';
import type { Warning } from '../common/warnings';
import { geometricMean, halfWidthPct, independentLogRatio, pairedLogRatio, type RatioEstimate } from './logRatio';
import { percentLevel } from './formatComparison';
import { type AppKind, driftFor, SESSION_DRIFT } from './sessionDrift';

export { percentLevel } from './formatComparison';

export type Verdict = 'faster' | 'slower' | 'no-significant-change';
/** The two sides of a comparison: a is the reference (the baseline, `--base`, the first `--node`), b the candidate. */
export type SideKey = 'a' | 'b';
export type Better = 'higher' | 'lower';
/** independent: verify (K runs, then K runs later); paired: compare (A B B A … pairs). */
export type Design = 'independent' | 'paired';

export interface MetricSpec {
  /** Short name for people: "req/s", "p99". */
  label: string;
  unit: string;
  better: Better;
  /** Part of the verdict (and of the multiple-comparison family); otherwise reported only. */
  inVerdict: boolean;
  /**
   * A verdict metric that decides only when the user-facing ones (throughput, latency, wall time) show
   * no significant change: CPU time, which another program on the machine cannot inflate the way it
   * inflates elapsed time, so it still sees a change that the busy machine hides from req/s.
   */
  supporting?: boolean;
  /**
   * Drift between two sessions of runs (log-scale standard deviation), for the independent design only
   * (verify: the baseline's runs at one time, this run's at another). Runs of one session share the
   * machine's state, so K of them measure run-to-run noise but not how far the next session lands; the
   * interval takes this term on top (logRatio.independentLogRatio). Interleaved pairs cancel it.
   */
  sessionDrift?: number;
  /**
   * The drift per kind of app (CPU-bound, waiting on I/O), when calibrated per kind: used when the
   * comparison knows the kind (MetricOptions.appKind); `sessionDrift` is the larger of them.
   */
  sessionDriftByKind?: Readonly<Record<AppKind, number>>;
  /**
   * How much one core of other programs' CPU use moves the metric (log scale per core, absolute value),
   * for the independent design: when the two sessions' measured other load differs by Δ cores
   * (MetricOptions.loadChangeCores), the session term grows to √(sessionDrift² + (loadSensitivity·Δ)²).
   * Measured by `npm run bench -- load-sensitivity`. Widened, not corrected: an app that waits on I/O
   * feels other programs less than the CPU-bound calibration app, so the estimate is an upper bound.
   */
  loadSensitivity?: number;
}

/**
 * Per-run observations of HTTP load runs. Latency percentiles come from each run's own histogram.
 *
 * Session drift: measured by the calibration benchmark (`npm run bench -- stats`, its `sessionDrift`:
 * the spread of baseline-then-verify log ratios across trials beyond what the runs' own spread
 * explains), per kind of app (sessionDrift.ts: a CPU-bound app, an Express app waiting on I/O, the pg
 * app), idle and under a CPU competitor. Issue 11's first calibration (CPU-bound app only, 80 trials):
 * req/s 0.13, p99 0.24, CPU/req 0.023, p50 0.10; without the term, verify with 3 runs a side called 2 of
 * 20 unchanged apps slower. CI then saw an Express app's CPU/req drift by more than 0.023: the term of an
 * app that waits on I/O is measured on such apps.
 *
 * Load sensitivity: `npm run bench -- load-sensitivity` (log-scale slope per core of other programs'
 * CPU use, 48 runs at four competitor levels, 2-core machine), the larger of two apps — the CPU-bound
 * calibration app / examples/shop: req/s −0.16 / −0.31, p99 +0.30 / +0.44, p50 +0.18 / +0.28, CPU/req
 * −0.015 / +0.029 (neither distinguishable from 0; the shop's random-duty level read +9%).
 */
function drift(metric: keyof typeof SESSION_DRIFT): { sessionDrift: number; sessionDriftByKind: Readonly<Record<AppKind, number>> } {
  return { sessionDrift: driftFor(SESSION_DRIFT[metric], undefined), sessionDriftByKind: SESSION_DRIFT[metric] };
}

export const HTTP_METRICS = {
  requestsPerSecond: { label: 'req/s', unit: 'req/s', better: 'higher', inVerdict: true, ...drift('requestsPerSecond'), loadSensitivity: 0.31 },
  p99LatencyMs: { label: 'p99', unit: 'ms', better: 'lower', inVerdict: true, ...drift('p99LatencyMs'), loadSensitivity: 0.44 },
  /** The app process's CPU time per response during the measured load. */
  cpuMsPerRequest: { label: 'CPU/req', unit: 'ms', better: 'lower', inVerdict: true, supporting: true, ...drift('cpuMsPerRequest'), loadSensitivity: 0.03 },
  p50LatencyMs: { label: 'p50', unit: 'ms', better: 'lower', inVerdict: false, ...drift('p50LatencyMs'), loadSensitivity: 0.28 },
} as const satisfies Record<string, MetricSpec>;

/** Per-run observations of a command that runs to completion: wall time and CPU time of its processes. */
export const SCRIPT_METRICS = {
  wallMs: { label: 'wall time', unit: 'ms', better: 'lower', inVerdict: true },
  cpuMs: { label: 'CPU time', unit: 'ms', better: 'lower', inVerdict: true, supporting: true },
} as const satisfies Record<string, MetricSpec>;

/** The specs for which every run has a value (CPU time may be unreadable, or missing in old baselines). */
export function availableSpecs(specs: MetricSpecs, samples: Record<string, { a: readonly (number | undefined)[]; b: readonly (number | undefined)[] }>): MetricSpecs {
  return Object.fromEntries(Object.entries(specs).filter(([name]) => {
    const s = samples[name];
    return s && s.a.length > 0 && s.b.length > 0 && [...s.a, ...s.b].every((v) => v !== undefined && v > 0 && Number.isFinite(v));
  }));
}

export type MetricSpecs = Record<string, MetricSpec>;

/**
 * One metric, b against a (verify: a = the baseline, b = now; compare: a = sides[0], b = sides[1]).
 * Numbers that need a test are null when none was possible (fewer than 2 runs or pairs).
 */
export interface MetricResult {
  label: string;
  unit: string;
  better: Better;
  inVerdict: boolean;
  /** A verdict metric that decides only when the user-facing ones did not move (CPU time). */
  supporting?: true;
  /** Ratio of geometric means b / a; (ratio − 1) is the change, never below −100%. */
  ratio: number;
  /** Confidence interval of the ratio at `metricConfidenceLevel` (Bonferroni-adjusted). */
  ciLow: number | null;
  ciHigh: number | null;
  /** Bonferroni-adjusted two-sided p-value (what is compared with alpha). */
  pValue: number | null;
  pValueUnadjusted: number | null;
  /** Half the interval's width as % of the ratio: how precisely the change is known. */
  halfWidthPct: number | null;
  /** Standard error of the log ratio and the t distribution's degrees of freedom (null: no test, or no spread at all). */
  se: number | null;
  df: number | null;
  /** Independent design: the session term in the standard error (log-scale SD per session). */
  sessionSd?: number;
  significant: boolean;
  /** Which way a significant change went for the user; 'none' when not significant. */
  change: 'better' | 'worse' | 'none';
  a: { geomean: number; n: number };
  b: { geomean: number; n: number };
}

export interface MetricComparisonSet {
  verdict: Verdict;
  design: Design;
  /** Family-wise confidence, e.g. 0.95. */
  confidenceLevel: number;
  /** Each metric's interval level after the correction, e.g. 0.975 for two metrics. */
  metricConfidenceLevel: number;
  /** The multiple-comparison correction in words. */
  correction: string;
  method: string;
  n: { a: number; b: number };
  metrics: Record<string, MetricResult>;
  /** Verdict metrics that changed significantly, e.g. ['requestsPerSecond', 'p99LatencyMs']. */
  moved: string[];
  /** At least two observations on each side, so there was a test. */
  tested: boolean;
}

export interface Comparison extends MetricComparisonSet {
  summary: string;
  warnings: Warning[];
}

export interface MetricOptions {
  /** Family-wise significance level; default 0.05. */
  alpha?: number;
  /** Leave the specs' session drift out (the calibration benchmark's "before" replay). */
  ignoreSessionDrift?: boolean;
  /**
   * Independent design: how much other programs' CPU use changed between the two sessions, in cores
   * (|mean of b − mean of a| of RunSummary.otherCpuCores); unknown = 0.
   */
  loadChangeCores?: number;
  /** Independent design: the kind of app both sessions ran as (sessionDrift.appKind); unknown = the larger term. */
  appKind?: AppKind;
}

function estimate(design: Design, a: readonly number[], b: readonly number[], alpha: number, sessionTerm: number): RatioEstimate | undefined {
  return design === 'paired' ? pairedLogRatio(a, b, alpha) : independentLogRatio(a, b, alpha, sessionTerm);
}

function metricResult(spec: MetricSpec, a: readonly number[], b: readonly number[], design: Design, alphaEach: number, family: number, sessionTerm: number): MetricResult {
  const e = estimate(design, a, b, alphaEach, sessionTerm);
  const ratio = e ? e.ratio : geometricMean(b) / geometricMean(a);
  const pValue = e ? Math.min(1, e.pValue * family) : null;
  const significant = pValue !== null && pValue < alphaEach * family;
  const up = ratio > 1;
  const change = !significant ? 'none' : (up === (spec.better === 'higher') ? 'better' : 'worse');
  return {
    label: spec.label, unit: spec.unit, better: spec.better, inVerdict: spec.inVerdict, ...(spec.supporting ? { supporting: true as const } : {}),
    ratio,
    ciLow: e ? e.ciLow : null,
    ciHigh: e ? e.ciHigh : null,
    pValue,
    pValueUnadjusted: e ? e.pValue : null,
    halfWidthPct: e ? halfWidthPct(e) : null,
    se: e ? e.se : null,
    df: e ? e.df : null,
    ...(design === 'independent' && e ? { sessionSd: sessionTerm } : {}),
    significant, change,
    a: { geomean: geometricMean(a), n: a.length },
    b: { geomean: geometricMean(b), n: b.length },
  };
}

/**
 * The session term of a metric: calibrated drift (the kind's, when known and calibrated per kind; else the
 * larger), grown by a measured change of the machine's other load.
 */
export function sessionSd(spec: MetricSpec, loadChangeCores: number, kind?: AppKind): number {
  const drift = spec.sessionDriftByKind ? driftFor(spec.sessionDriftByKind, kind) : spec.sessionDrift ?? 0;
  const load = (spec.loadSensitivity ?? 0) * Math.abs(loadChangeCores);
  return Math.sqrt(drift ** 2 + load ** 2);
}

/** "; intervals include drift between sessions (req/s ±13%, …)": what the independent design adds. */
function driftText(specs: MetricSpecs, family: readonly string[], loadChangeCores: number, kind: AppKind | undefined): string {
  const drifting = family.filter((n) => sessionSd(specs[n], loadChangeCores, kind) > 0);
  if (drifting.length === 0) return '';
  const pct = (sd: number) => `±${Math.round((Math.exp(sd) - 1) * 100)}%`;
  const load = family.some((n) => (specs[n].loadSensitivity ?? 0) > 0) && loadChangeCores >= 0.05
    ? `, widened for other programs' CPU use changing by ${loadChangeCores.toFixed(2)} cores`
    : '';
  const kindText = family.some((n) => specs[n].sessionDriftByKind) ? (kind === 'cpu' ? ' of a CPU-bound app' : kind === 'io' ? ' of an app that waits on I/O' : ' of the app kind that drifts most') : '';
  return `; intervals include drift between the two sessions${kindText} (1 SD: ${drifting.map((n) => `${specs[n].label} ${pct(sessionSd(specs[n], loadChangeCores, kind))}`).join(', ')}${load}), which more runs do not shrink — \`hotpath compare\` interleaves and cancels it`;
}

/**
 * Compares every metric on the log scale and decides one verdict from the verdict metrics.
 *
 * Multiple comparisons: the verdict looks at m metrics (req/s and p99, or wall and CPU time), and
 * calls a change if any of them moved, so each is tested at alpha/m (Bonferroni) — the chance that an
 * unchanged program is called faster or slower stays at most alpha. Intervals are at 1 − alpha/m, so
 * a metric is significant exactly when its interval excludes 1. Metrics outside the verdict (p50) are
 * shown at the same level.
 *
 * Verdict: decided by the user-facing verdict metrics (req/s and p99; wall time) when any of them moved —
 * 'slower' when one got significantly worse (a p99 regression is a regression, even with more
 * throughput), else 'faster'; when none of them moved, by the supporting ones (CPU time) the same way;
 * else no significant change.
 */
export function compareMetricSamples(
  specs: MetricSpecs,
  samples: Record<string, { a: readonly number[]; b: readonly number[] }>,
  design: Design,
  options: MetricOptions = {},
): MetricComparisonSet {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw invalidOption(`alpha must be between 0 and 1, e.g. 0.05 for 95% confidence (got ${alpha}).`);
  const names = Object.keys(specs);
  const family = names.filter((n) => specs[n].inVerdict);
  if (family.length === 0) throw new RangeError('A comparison needs at least one verdict metric.');
  const alphaEach = alpha / family.length;
  const metrics: Record<string, MetricResult> = {};
  let nA = 0;
  let nB = 0;
  for (const name of names) {
    const s = samples[name];
    if (!s || s.a.length === 0 || s.b.length === 0) throw new RangeError(`Metric ${name} needs at least one value on each side.`);
    metrics[name] = metricResult(specs[name], s.a, s.b, design, alphaEach, family.length, options.ignoreSessionDrift ? 0 : sessionSd(specs[name], options.loadChangeCores ?? 0, options.appKind));
    nA = Math.max(nA, s.a.length);
    nB = Math.max(nB, s.b.length);
  }
  const moved = family.filter((n) => metrics[n].significant);
  const primaryMoved = moved.filter((n) => !specs[n].supporting);
  const deciding = primaryMoved.length ? primaryMoved : moved;
  const verdict: Verdict = deciding.some((n) => metrics[n].change === 'worse') ? 'slower' : deciding.length ? 'faster' : 'no-significant-change';
  const tested = nA >= 2 && nB >= 2;
  const level = 1 - alpha;
  const metricLevel = 1 - alphaEach;
  const familyLabels = family.map((n) => specs[n].label).join(', ');
  const correction = family.length === 1
    ? `one verdict metric (${familyLabels}): no correction needed, ${percentLevel(metricLevel)} interval`
    : `Bonferroni over ${family.length} verdict metrics (${familyLabels}): each tested at α = ${Number(alphaEach.toFixed(4))} with ${percentLevel(metricLevel)} intervals, so the chance of a false verdict is at most ${percentLevel(alpha)}`;
  const method = !tested
    ? `No test: needs at least 2 ${design === 'paired' ? 'pairs' : 'runs on each side'} (${design === 'paired' ? `${nA} pair${nA === 1 ? '' : 's'}` : `${nA} vs ${nB}`}); ratios of geometric means only`
    : design === 'paired'
      ? `Paired t-test on the log ratio of each interleaved pair (${nA} pairs, A B B A order), two-sided; ratio of geometric means`
      : `Welch's t-test on log per-run values (${nA} vs ${nB} runs), two-sided; ratio of geometric means${options.ignoreSessionDrift ? '' : driftText(specs, family, options.loadChangeCores ?? 0, options.appKind)}`;
  return { verdict: tested ? verdict : 'no-significant-change', design, confidenceLevel: level, metricConfidenceLevel: metricLevel, correction, method, n: { a: nA, b: nB }, metrics, moved: tested ? moved : [], tested };
}
