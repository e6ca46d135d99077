/**
 * Startup across variants: two Node runtimes or git revisions compared with interleaved cold starts
 * (A B B A …, paired log ratios: the interleaved engine), and bisect — given variants in order, find
 * the first that starts significantly slower than the first one, with the verdict of every step.
 * Timed starts only (no module hooks, no profiler): what is compared is what users wait for.
 *
 * MERGE NOTE (issue 11): `hotpath compare --startup` is issue 11's command with this module's
 * `measureStartupSide` as its per-run strategy and `STARTUP_METRICS` as its metrics.
 */
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { formatMs } from '../../shared/text/numbers';
import type { StartupVariantsSpec } from '../startup/sides';
import { sideFacts, type ResolvedVariant, type SideFacts } from '../variants/sides';
import { startOnce, type StartupEnd } from '../startup/startRun';
import { DEFAULT_AB_SETTINGS, ratioText, runAbComparison, type InterleaveSettings, type MetricComparisonSet, type StopReason } from './abEngine';
import type { ProgressSink } from './progress';
import { STARTUP_METRICS } from './startup';

export interface StartupCompareOptions {
  until?: StartupEnd;
  timeoutMs?: number;
  interleave?: Partial<InterleaveSettings>;
}

export interface CompareDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: ProgressSink;
}

/** A startup side as results state it: what proves what it ran (compare's facts), `nodeVersion` as the program reported it. */
export type SideJson = SideFacts;

/** What a startup side runs: a resolved variant (core/variants), as compare's sides are. */
export type StartupSide = ResolvedVariant;

export interface StartupComparison {
  sides: [SideJson, SideJson];
  comparison: MetricComparisonSet & { pairs: number; summary: string; stopReason: StopReason; elapsedMs: number };
}

/** One timed cold start of a side: the metrics of STARTUP_METRICS, and the version it ran on. */
export async function measureStartupSide(side: StartupSide, options: StartupCompareOptions, deps: { token?: CancellationToken; logger?: Logger }): Promise<{ values: Record<string, number>; nodeVersion: string | null }> {
  const r = await startOnce({ command: side.command, cwd: side.cwd, env: side.env, mode: 'time', until: options.until ?? 'auto', timeoutMs: options.timeoutMs ?? 60_000 }, deps);
  const reported = r.program?.nodeVersion ?? null;
  if (side.expectedNodeVersion && reported && reported !== side.expectedNodeVersion) {
    throw new HotpathError(ErrorCode.InvalidOption, `"${side.label}" was to run on Node ${side.expectedNodeVersion}, but the program reported ${reported}: \`${side.command.join(' ')}\` starts node in a way Hotpath cannot redirect. Start it with \`node …\` in the command.`);
  }
  return { values: { startupMs: r.ms, ...(r.cpuMs ? { cpuMs: r.cpuMs } : {}) }, nodeVersion: reported };
}

function summaryOf(a: string, b: string, set: MetricComparisonSet): string {
  const m = set.metrics.startupMs;
  const change = ratioText(m, set.metricConfidenceLevel);
  if (set.verdict === 'no-significant-change') return `"${b}" against "${a}": no significant change in startup (${change}).`;
  return `"${b}" starts ${set.verdict === 'slower' ? 'slower' : 'faster'} than "${a}": ${formatMs(m.a.geomean)} → ${formatMs(m.b.geomean)} (${change}).`;
}

export async function compareStartup(a: StartupSide, b: StartupSide, options: StartupCompareOptions, deps: CompareDeps = {}, progressSpan: [number, number] = [0, 1]): Promise<StartupComparison> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const versions: Record<'a' | 'b', string | null> = { a: null, b: null };
  const sides = { a, b };
  const outcome = await runAbComparison(STARTUP_METRICS, 'startupMs', { ...DEFAULT_AB_SETTINGS, minPairs: 5, maxPairs: 30, targetHalfWidthPct: 3, budgetMs: 120_000, warmupRounds: 1, ...options.interleave }, {
    token,
    onState: (s) => {
      const m = s.comparison?.metrics.startupMs;
      const so = m && m.ciLow !== null ? ` · ${ratioText(m, s.comparison!.metricConfidenceLevel)}` : '';
      progress({ stage: 'measuring', message: `"${b.label}" vs "${a.label}": ${s.next?.warmup ? 'warm-up' : `pair ${s.pairs + 1}`}${s.next ? `, ${sides[s.next.side].label}` : ''}${so}`, fraction: progressSpan[0] + (progressSpan[1] - progressSpan[0]) * s.fraction });
    },
    measure: async (key) => {
      const r = await measureStartupSide(sides[key], options, { token, logger });
      versions[key] = r.nodeVersion;
      return r.values;
    },
  });
  return {
    sides: [sideFacts(a, versions.a), sideFacts(b, versions.b)],
    comparison: { ...outcome.comparison, pairs: outcome.pairs, summary: summaryOf(a.label, b.label, outcome.comparison), stopReason: outcome.stopReason, elapsedMs: outcome.elapsedMs },
  };
}

export interface BisectStep {
  /** The reference (the first variant) and the one tested against it. */
  a: string;
  b: string;
  verdict: MetricComparisonSet['verdict'];
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  pValue: number | null;
  /** Confidence level of the interval (after the Bonferroni correction). */
  level: number;
  pairs: number;
}

export interface StartupBisect {
  candidates: SideJson[];
  steps: BisectStep[];
  /** The first variant that starts significantly slower than the first one; null when the last does not. */
  firstSlower: string | null;
  /** The variant before it (the last one found not slower). */
  lastGood: string | null;
  /** The two neighbours compared directly: how big the step is. */
  step?: StartupComparison;
  summary: string;
}

/**
 * Variants in order (oldest first); the first is the reference. First the last one is compared with
 * it — no regression, no search — then binary search for the first variant that is significantly
 * slower than the reference (each probe an interleaved comparison), and finally the boundary pair
 * compared directly. Assumes the change persists once it appears (as git bisect does).
 */
export async function bisectStartup(sides: StartupSide[], options: StartupCompareOptions, deps: CompareDeps = {}): Promise<StartupBisect> {
  if (sides.length < 2) throw new HotpathError(ErrorCode.InvalidOption, 'Bisect needs at least two variants, oldest first.');
  const steps: BisectStep[] = [];
  const reference = sides[0];
  const maxProbes = Math.ceil(Math.log2(sides.length)) + 2;
  let probe = 0;
  const test = async (i: number): Promise<boolean> => {
    const span: [number, number] = [probe / maxProbes, (probe + 1) / maxProbes];
    probe++;
    const c = await compareStartup(reference, sides[i], options, deps, span);
    const m = c.comparison.metrics.startupMs;
    steps.push({ a: reference.label, b: sides[i].label, verdict: c.comparison.verdict, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh, pValue: m.pValue, level: c.comparison.metricConfidenceLevel, pairs: c.comparison.pairs });
    return c.comparison.verdict === 'slower';
  };
  // Before any start, the version each candidate was asked for.
  const candidates = sides.map((s) => sideFacts(s, s.expectedNodeVersion ?? null));
  if (!(await test(sides.length - 1))) {
    return { candidates, steps, firstSlower: null, lastGood: sides[sides.length - 1].label, summary: `"${sides[sides.length - 1].label}" does not start significantly slower than "${reference.label}": nothing to bisect.` };
  }
  let good = 0;
  let bad = sides.length - 1;
  while (bad - good > 1) {
    const mid = (good + bad) >> 1;
    if (await test(mid)) bad = mid; else good = mid;
  }
  const step = good === 0 ? undefined : await compareStartup(sides[good], sides[bad], options, deps, [probe / maxProbes, 1]);
  const slowerBy = steps.find((s) => s.b === sides[bad].label)!;
  return {
    candidates, steps, firstSlower: sides[bad].label, lastGood: sides[good].label, ...(step ? { step } : {}),
    summary: `The first variant that starts slower than "${reference.label}" is "${sides[bad].label}" (startup ${ratioText(slowerBy, slowerBy.level)} against "${reference.label}"); "${sides[good].label}" before it is not${step ? `; directly, "${sides[bad].label}" against "${sides[good].label}": ${step.comparison.verdict} (${ratioText(step.comparison.metrics.startupMs, step.comparison.metricConfidenceLevel)})` : ''}.`,
  };
}

export interface StartupVariantsRequest extends StartupVariantsSpec {
  options: StartupCompareOptions;
}

export type StartupVariantsResult =
  | ({ kind: 'startup-compare'; warnings: Warning[] } & StartupComparison)
  | ({ kind: 'startup-bisect'; warnings: Warning[] } & StartupBisect);

/**
 * Resolves the variants as compare resolves its sides (startup/sides.ts: the same facts and refusals),
 * runs the comparison or bisect, and removes every worktree.
 */
export async function runStartupVariants(request: StartupVariantsRequest, deps: CompareDeps = {}): Promise<StartupVariantsResult> {
  const { startupSides } = await import('../startup/sides');
  const say = (message: string) => deps.onProgress?.({ stage: 'starting', message });
  const resolved = await startupSides(request, { token: deps.token, logger: deps.logger, onProgress: say });
  try {
    const { sides, warnings } = resolved;
    if (request.bisect) return { kind: 'startup-bisect', warnings, ...(await bisectStartup(sides, request.options, deps)) };
    if (sides.length !== 2) throw new HotpathError(ErrorCode.InvalidOption, `A startup comparison takes two variants (got ${sides.length}): --node A --node B, or --base REV.`);
    return { kind: 'startup-compare', warnings, ...(await compareStartup(sides[0], sides[1], request.options, deps)) };
  } finally {
    await resolved.dispose();
  }
}
