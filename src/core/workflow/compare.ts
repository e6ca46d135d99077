/**
 * `hotpath compare`: two variants of one app — git revisions, Node runtimes, environments, node flags —
 * measured interleaved in pairs on this machine right now, analysed paired on the log scale, then each
 * profiled once for a differential flamegraph and a per-function diff matched across the two.
 */
import * as path from 'node:path';
import { neverCancelled } from '../common/cancellation';
import { diffSideOf } from './diffSide';
import { silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { type LoadOptions, type LoadOptionsInput, resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { measureScriptRun } from '../measure/scriptRun';
import type { ProfileModel } from '../profile/types';
import { diffProfiles, type ProfileDiff } from '../profileDiff/functions';
import { sideLines, type SideLine } from '../profileDiff/lines';
import { formatRate } from '../../shared/text/numbers';
import { comparisonWarnings } from '../stats/comparisonWarnings';
import { summarizeRun } from '../stats/runSummary';
import { formatSummary, halfWidthText, ratioInterval, ratioPercent } from '../stats/formatComparison';
import { HTTP_METRICS, SCRIPT_METRICS, type Comparison, type MetricSpecs, type SideKey } from '../stats/metrics';
import { analyzeThreads, loadThreads } from './threadsProfile';
import type { SavedProfile } from './profileStore';
import { resolveSides, sideFacts, type ResolvedSide, type SideFacts, type SideSpec } from '../variants/sides';
import type { V8FunctionSignals } from '../v8/types';
import type { Attribution } from '../attribution/types';
import { checkSettings, DEFAULT_INTERLEAVE, runInterleaved, type InterleaveSettings, type InterleaveState, type RunRecord, type StopReason } from './interleave';
import { measureHttpRun } from './measureRuns';
import { nodeEnvWarning } from './preflight';
import { profileScript } from './profileScript';
import { profileWithLoad, type WorkflowDeps } from './profileWithLoad';
import type { WorkflowProgress } from './progress';

/** Per-run load of a comparison unless the user sets it: many short interleaved runs beat a few long ones. */
export const COMPARE_LOAD_DEFAULTS = { durationSeconds: 3, warmupSeconds: 1 } as const;

export interface CompareRequest {
  command: string[];
  cwd: string;
  /** Variables for both sides (each side's own env goes on top). */
  env?: Record<string, string>;
  /** a = the reference (before), b = the candidate (after). */
  sides: [SideSpec, SideSpec];
  mode: 'http' | 'script';
  /** HTTP: the load per run; unset duration/warm-up take COMPARE_LOAD_DEFAULTS. */
  load?: LoadOptionsInput;
  port?: number;
  readyTimeoutMs?: number;
  /** Script: stop a run after this long (an error). */
  timeoutMs?: number;
  /** Pairs, target interval, budget, alpha; unset fields take DEFAULT_INTERLEAVE. */
  interleave?: Partial<InterleaveSettings>;
  /** Run in each side's folder first, through the shell (e.g. `npm run build`). */
  prepare?: string;
  /** Profile each side once after the pairs for the differential flamegraph and function diff (default true). */
  profile?: boolean;
  samplingIntervalMicros?: number;
  /** Where the two profiles go; default <cwd>/.hotpath/profiles. */
  outDir?: string;
  /** Part of the saved file names. */
  name: string;
  /** Collect V8's signals in the profile runs (default true). */
  v8?: boolean;
  /** Run even when both sides resolve to the same code, node and settings (an A/A comparison on purpose). */
  allowSameSides?: boolean;
}

/** One side as the JSON documents it: the facts that prove what it ran (variants/sides.ts SideFacts). */
export interface CompareSide extends SideFacts {
  key: SideKey;
}

export interface CompareComparison extends Comparison {
  pairs: number;
  stopReason: StopReason;
  /** The precision asked for and reached (primary metric, ± % of the ratio). */
  targetHalfWidthPct: number | null;
  elapsedMs: number;
  /** The metric the stopping rule watched. */
  primary: string;
}

export interface CompareRun {
  pair: number;
  side: SideKey;
  /** 0 when this side went first in its pair. */
  position: number;
  values: Record<string, number>;
  /** How long the run took, start of the app to its stop. */
  durationMs: number;
}

export interface SideProfile {
  path: string;
  model: ProfileModel;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** Where its time was placed (as the editor shows it): the differential flamegraph draws inlined code from it. */
  attribution?: Attribution;
  /** User files are matched relative to this (undefined: the profile's own common folder). */
  projectRoot?: string;
  /** The project's lines with their shares, files relative to projectRoot (for per-line growth, CI annotations). */
  lines?: SideLine[];
  /**
   * When either side ran worker threads: this side's threads as one model (its main thread alone when it
   * had none), with their attribution and V8 signals (workflow/threadsProfile.ts) — what the function
   * diff and the differential flamegraph compare, so the work a pool does is in them.
   */
  threads?: { labels: string[]; model: ProfileModel; attribution: Attribution; v8Functions?: ReadonlyMap<number, V8FunctionSignals> };
}

export interface CompareResult {
  kind: 'compare';
  mode: 'http' | 'script';
  /** The command as given (each side's own, with its runtime and flags, is in `sides`). */
  command: string[];
  sides: [CompareSide, CompareSide];
  comparison: CompareComparison;
  runs: CompareRun[];
  loadOptions?: LoadOptions;
  /** Per function, matched across the sides (when profiled). */
  diff?: ProfileDiff;
  /** The two profiles (models are for front ends; not in the JSON). */
  profiles?: { a: SideProfile; b: SideProfile };
  warnings: Warning[];
}

function settingsOf(request: CompareRequest): InterleaveSettings {
  const s = { ...DEFAULT_INTERLEAVE, ...request.interleave };
  // A script run costs little and starts cold: one discarded round first (disk cache, compile cache).
  if (request.mode === 'script' && request.interleave?.warmupRounds === undefined) s.warmupRounds = 1;
  return s;
}

function intervalText(state: InterleaveState, primary: string, target: number): string {
  const m = state.comparison?.metrics[primary];
  if (!m || m.ciLow === null) return '';
  return ` · ${m.label} ${ratioPercent(m.ratio, 1)} (${ratioInterval(m, state.comparison!.metricConfidenceLevel)}; ${halfWidthText(m.halfWidthPct ?? 0)}, target ±${target}%)`;
}

function sideJson(side: ResolvedSide, nodeVersion: string | null): CompareSide {
  return { key: side.key, ...sideFacts(side, nodeVersion) };
}

function nodeEnvWarnings(sides: [ResolvedSide, ResolvedSide], reported: Map<SideKey, string | null>): Warning[] {
  const envs = sides.map((s) => reported.get(s.key) ?? null);
  if (envs[0] !== envs[1]) {
    return [{
      code: 'NODE_ENV_DIFFERS_BETWEEN_SIDES',
      message: `NODE_ENV is ${envs[0] ?? 'unset'} in "${sides[0].label}" and ${envs[1] ?? 'unset'} in "${sides[1].label}": the verdict measures that switch as well as anything else that differs (frameworks cache views and skip checks only in production). If NODE_ENV is what you are testing, that is what you want.`,
    }];
  }
  const w = nodeEnvWarning(envs[0]);
  return w ? [{ ...w, message: `${w.message.replace(/^NODE_ENV/, 'On both sides, NODE_ENV')}` }] : [];
}

/**
 * Runs the comparison. Worktrees are removed and every app stopped on success, failure and
 * cancellation. Progress carries the interval so far.
 */
export async function compareVariants(request: CompareRequest, deps: WorkflowDeps = {}): Promise<CompareResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const report = deps.onProgress ?? (() => {});
  const settings = settingsOf(request);
  const load: LoadOptionsInput = { ...COMPARE_LOAD_DEFAULTS, ...request.load };
  if (request.mode === 'http') resolveLoadOptions(load, { port: request.port ?? 1 }); // bad flags fail before anything starts
  checkSettings(settings);
  const profile = request.profile !== false;
  // Of the whole command: preparing ~5%, the pairs ~80% (or all but the profiles), profiling the rest.
  const span = { prepare: 0.05, pairs: profile ? 0.8 : 0.95 };

  const resolved = await resolveSides({ command: request.command, cwd: request.cwd, env: request.env, prepare: request.prepare, allowSameSides: request.allowSameSides }, request.sides, {
    token, logger,
    onProgress: (message, fraction) => report({ stage: 'preparing', message, fraction: span.prepare * (fraction ?? 0) }),
  });
  try {
    const [a, b] = resolved.sides;
    const bySide = { a, b };
    const metrics: MetricSpecs = request.mode === 'http' ? HTTP_METRICS : SCRIPT_METRICS;
    const primary = request.mode === 'http' ? 'requestsPerSecond' : 'wallMs';
    const nodeVersions = new Map<SideKey, string | null>();
    const nodeEnvs = new Map<SideKey, string | null>();
    const loadWarnings = new Map<string, Warning>();
    const results: LoadResult[] = [];
    let loadOptions: LoadOptions | undefined;
    let current: InterleaveState | undefined;
    const checked = request.mode === 'http' ? resolveLoadOptions(load, { port: request.port ?? 1 }) : undefined;
    const perRunSeconds = checked ? checked.warmupSeconds + checked.durationSeconds : 1;

    /** "Pair 3 of ~12, "working tree": 2,310 req/s · req/s +12.3% (97.5% CI …; ±4.1%, target ±5%)" */
    const say = (side: ResolvedSide, pair: number, warmup: boolean, requestsPerSecond?: number) => {
      if (!current) return;
      const what = warmup ? `Warm-up round, "${side.label}"` : `Pair ${pair + 1} of ~${current.expectedPairs}, "${side.label}"`;
      const live = requestsPerSecond !== undefined ? `: ${formatRate(requestsPerSecond)}` : '';
      report({
        stage: 'measuring', message: `${what}${live}${intervalText(current, primary, settings.targetHalfWidthPct)}`,
        fraction: span.prepare + span.pairs * current.fraction, requestsPerSecond, interval: intervalOf(current, primary, settings),
      });
    };

    const outcome = await runInterleaved(metrics, primary, settings, {
      token,
      onState: (state) => {
        current = state;
        if (state.next) say(bySide[state.next.side], state.next.pair, state.next.warmup);
      },
      measure: async (key, run): Promise<Record<string, number>> => {
        const side = bySide[key];
        if (request.mode === 'script') {
          const r = await measureScriptRun(side, { token, logger, timeoutMs: request.timeoutMs });
          nodeVersions.set(key, r.nodeVersion);
          return { wallMs: r.wallMs, cpuMs: r.cpuMs };
        }
        const r = await measureHttpRun({ ...side, port: request.port, readyTimeoutMs: request.readyTimeoutMs }, load, {
          token, logger, progress: (p) => { if (p.requestsPerSecond !== undefined) say(side, run.pair, run.warmup, p.requestsPerSecond); }, label: side.label, offsetSeconds: 0, totalSeconds: perRunSeconds,
        });
        nodeVersions.set(key, r.process.nodeVersion);
        nodeEnvs.set(key, r.process.nodeEnv);
        loadOptions = r.loadOptions;
        if (!run.warmup) results.push(r.result);
        for (const w of r.result.warnings) loadWarnings.set(w.code, w);
        const summary = summarizeRun(r.result, r.appCpuMs);
        const values: Record<string, number> = { requestsPerSecond: summary.requestsPerSecond, p99LatencyMs: summary.p99Ms, p50LatencyMs: summary.p50Ms > 0 ? summary.p50Ms : summary.p99Ms };
        if (summary.cpuMsPerRequest !== undefined) values.cpuMsPerRequest = summary.cpuMsPerRequest;
        return values;
      },
    });

    const set = outcome.comparison;
    const values = (key: SideKey) => outcome.runs.filter((r) => r.side === key).map((r) => r.values[primary]);
    const warnings: Warning[] = [
      ...resolved.warnings,
      ...(request.mode === 'http' ? nodeEnvWarnings(resolved.sides, nodeEnvs) : []),
      ...comparisonWarnings({
        set, primary,
        sides: [{ name: `"${a.label}"`, values: values('a') }, { name: `"${b.label}"`, values: values('b') }],
        failedRuns: request.mode === 'http' ? { failing: results.filter((r) => r.errors + r.non2xx > 0).length, total: results.length } : undefined,
        moreData: settings.fixedPairs !== undefined ? `Use more pairs (--pairs ${settings.fixedPairs * 2}; in VS Code hotpath.compare.pairs)` : `Give it more time (--budget ${Math.round((settings.budgetMs * 2) / 1000)}; in VS Code hotpath.compare.budgetSeconds)`,
      }),
      ...loadWarnings.values(),
    ];
    const hw = set.metrics[primary].halfWidthPct;
    if ((outcome.stopReason === 'budget' || outcome.stopReason === 'max-pairs') && hw !== null && hw > settings.targetHalfWidthPct) {
      warnings.push({
        code: 'TARGET_NOT_REACHED',
        message: `After ${outcome.pairs} pairs the ${set.metrics[primary].label} ratio is known to ${halfWidthText(hw)}, not the ±${settings.targetHalfWidthPct}% asked for (${outcome.stopReason === 'budget' ? `the ${Math.round(settings.budgetMs / 1000)} s budget ran out` : `the limit of ${settings.maxPairs} pairs`}). The verdict holds at its stated confidence; for a narrower interval give more time (--budget) or quiet the machine.`,
      });
    }
    const comparison: CompareComparison = {
      ...set, summary: formatSummary(set), warnings: [],
      pairs: outcome.pairs, stopReason: outcome.stopReason, targetHalfWidthPct: settings.fixedPairs === undefined ? settings.targetHalfWidthPct : null,
      elapsedMs: Math.round(outcome.elapsedMs), primary,
    };
    comparison.warnings = warnings;
    const sides: [CompareSide, CompareSide] = [sideJson(a, nodeVersions.get('a') ?? null), sideJson(b, nodeVersions.get('b') ?? null)];
    const runs: CompareRun[] = outcome.runs.map((r: RunRecord) => ({ pair: r.pair, side: r.side, position: r.position, values: r.values, durationMs: Math.round(r.durationMs) }));
    const result: CompareResult = { kind: 'compare', mode: request.mode, command: request.command, sides, comparison, runs, ...(loadOptions ? { loadOptions } : {}), warnings };

    if (profile) {
      const profiles = await profileSides(request, [a, b], load, { token, logger, report, from: span.prepare + span.pairs });
      result.profiles = profiles;
      result.diff = {
        ...diffProfiles(diffSideOf(profiles.a), diffSideOf(profiles.b)),
        ...(profiles.a.threads && profiles.b.threads ? { threads: { a: profiles.a.threads.labels, b: profiles.b.threads.labels } } : {}),
      };
    }
    report({ stage: 'analyzing', message: 'Done', fraction: 1 });
    return result;
  } finally {
    await resolved.dispose();
  }
}

function intervalOf(state: InterleaveState, primary: string, settings: InterleaveSettings): WorkflowProgress['interval'] {
  const m = state.comparison?.metrics[primary];
  if (!m || m.ciLow === null || m.ciHigh === null) return undefined;
  return { label: m.label, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh, halfWidthPct: m.halfWidthPct ?? 0, targetPct: settings.targetHalfWidthPct, pairs: state.pairs, level: state.comparison!.metricConfidenceLevel };
}

/** One profiled run per side (after the timed pairs, so the profiler never slows a measured run). */
async function profileSides(
  request: CompareRequest, sides: [ResolvedSide, ResolvedSide], load: LoadOptionsInput,
  ctx: { token: WorkflowDeps['token']; logger: WorkflowDeps['logger']; report: (p: WorkflowProgress) => void; from: number },
): Promise<{ a: SideProfile; b: SideProfile }> {
  const outDir = request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles');
  const out: Partial<Record<SideKey, SideProfile>> = {};
  const saved: Partial<Record<SideKey, SavedProfile[]>> = {};
  for (const [i, side] of sides.entries()) {
    const base = ctx.from + ((1 - ctx.from) * i) / 2;
    const onProgress = (p: WorkflowProgress) => ctx.report({ ...p, stage: 'profiling', message: `Profiling "${side.label}": ${p.message}`, fraction: base + ((1 - ctx.from) / 2) * (p.fraction ?? 0) });
    const common = { command: side.command, cwd: side.cwd, env: side.env, samplingIntervalMicros: request.samplingIntervalMicros ?? 1000, outDir, name: `${request.name}-${side.key}`, limit: 20, v8: request.v8 };
    const r = request.mode === 'http'
      ? await profileWithLoad({ ...common, load, port: request.port, readyTimeoutMs: request.readyTimeoutMs }, { token: ctx.token, logger: ctx.logger, onProgress })
      : await profileScript({ ...common, timeoutMs: request.timeoutMs }, { token: ctx.token, logger: ctx.logger, onProgress });
    out[side.key] = { path: r.profilePath, model: r.model, v8Functions: r.v8Functions, attribution: r.attribution, projectRoot: side.projectRoot, lines: sideLines(r.model, r.attribution, side.projectRoot) };
    saved[side.key] = r.profiles;
  }
  // A side that ran worker threads: the diff covers every thread of both sides (a side without any is
  // its main thread alone), read while a revision's worktree still holds the sources attribution reads.
  if ((saved.a?.length ?? 0) > 1 || (saved.b?.length ?? 0) > 1) {
    for (const key of ['a', 'b'] as const) {
      ctx.report({ stage: 'analyzing', message: `Placing the time of every thread of "${sides[key === 'a' ? 0 : 1].label}"` });
      const p = out[key]!;
      const files = saved[key]?.length ? saved[key]! : [{ thread: 'main', path: p.path }];
      const threads = await analyzeThreads(await loadThreads(files, p.path, ctx.token), { limit: 20, profilePath: p.path, token: ctx.token });
      p.threads = { labels: files.map((f) => f.thread), model: threads.model, attribution: threads.analysis.attribution, v8Functions: threads.v8Functions };
    }
  }
  return { a: out.a!, b: out.b! };
}
