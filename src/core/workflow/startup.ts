/**
 * `hotpath startup`: how long a command takes to start, measured the way startup experts do it — cold
 * starts (a fresh process tree each time) after discarded warm-ups, as many as the measured variance
 * asks for (at least 10), mean ± σ, median, min, max, outliers flagged by the modified z-score on the
 * MAD and kept — then why: the module-load tree of the timed runs, a CPU profile of further starts at
 * a fine interval merged into one profile (analysed like any profile), and advice tied to numbers.
 *
 * Timed runs carry no profiler (at 100 µs it costs ~45% CPU, v8-signals §7); their module hooks time
 * themselves, and that cost is reported. Profiled runs carry no module hooks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFileSync } from '../common/boundedRead';
import { ErrorCode, HotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import type { ProfileModel } from '../profile/types';
import { formatMs, formatPct } from '../../shared/text/numbers';
import { startupAdvice, type StartupAdvice } from '../startup/advice';
import { mergeCpuProfiles } from '../startup/mergeProfiles';
import { buildModuleTree, type ModuleRow, type PackageRow } from '../startup/moduleTree';
import { STARTUP_PRELOAD_FILE_NAME, type ModulesFile, type StartupRunMode } from '../startup/reports';
import { DEFAULT_ADAPTIVE_RUNS, expectedRuns, needMoreRuns, summarizeRuns, type AdaptiveRuns, type RunStatistics } from '../startup/runStats';
import { startOnce, type StartRun, type StartupEnd } from '../startup/startRun';
import { startupUsage } from '../startup/usage';
import { analyzeProfiles, type Analysis } from './analyze';
import { DEFAULT_AB_SETTINGS, runAbComparison, type MetricComparisonSet, type MetricSpecs } from './abEngine';
import { nodeEnvWarning } from './preflight';
import { saveProfiles, type SavedProfile } from './profileStore';
import type { ProgressSink } from './progress';
import { ownedTempDir } from '../target/staleFiles';

export interface StartupRequest {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** When startup is over (default: the command's exit or its first listening port, whichever comes first). */
  until?: StartupEnd;
  /** Exactly this many timed runs; default: chosen from the measured variance (AdaptiveRuns). */
  runs?: number;
  /** Discarded starts before the timed ones (default 2): disk caches, Node's own first-run work. */
  warmup?: number;
  /** Profiled starts merged into one profile (default 10; 0: no profile). */
  profileRuns?: number;
  /** Sampling interval of the profiled starts, µs (default 100). */
  samplingIntervalMicros?: number;
  /** Time every module load in the timed runs (default true). */
  modules?: boolean;
  /** Measure the start with Node's compile cache too, when it would apply (default true). */
  tryCompileCache?: boolean;
  /** Longest one start may take (default 60 s). */
  timeoutMs?: number;
  adaptive?: Partial<AdaptiveRuns>;
  outDir?: string;
  name: string;
  limit?: number;
}

export interface StartupPhases {
  /** Spawn → the program's own clock starting: exec, plus any wrapper (npm run) before it. */
  launchMs: number | null;
  /** Node's bootstrap inside the program. */
  bootstrapMs: number | null;
  /** The program's own startup after Node's bootstrap (module loading, top-level code), to the end. */
  appMs: number | null;
}

export interface StartupSummary extends RunStatistics {
  warmup: number;
  /** How startup ended in the timed runs. */
  end: 'exit' | 'listen';
  /** Every timed run, ms, in order. */
  runsMs: number[];
  /** Mean of each phase over the timed runs. */
  phases: StartupPhases;
  /** Mean CPU time of the program process per start. */
  cpuMs: number | null;
  modules: ModuleRow[];
  packages: PackageRow[];
  /** The module hooks' own bookkeeping per start (what measuring modules costs), ms; null without modules. */
  moduleHookMs: number | null;
  profileRuns: number;
  samplingIntervalMicros: number;
  /** Measured starts with Node's compile cache on, interleaved with plain ones. */
  compileCache?: { pairs: number; withMs: number; withoutMs: number; comparison: MetricComparisonSet };
}

export interface StartupResult extends Omit<Analysis, 'model' | 'attribution'> {
  kind: 'startup';
  target: { command: string[]; nodeVersion: string; nodeEnv: string | null; wrappers: string[] };
  startup: StartupSummary;
  advice: StartupAdvice[];
  /** The merged profile (null with --profile-runs 0). */
  profilePath: string | null;
  profiles: SavedProfile[];
  model?: ProfileModel;
  attribution?: Analysis['attribution'];
}

export interface StartupDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: ProgressSink;
}

/** Startup metrics for interleaved comparisons: the wait (verdict), and CPU time, which a busy machine cannot inflate. */
export const STARTUP_METRICS: MetricSpecs = {
  startupMs: { label: 'startup', unit: 'ms', better: 'lower', inVerdict: true },
  cpuMs: { label: 'CPU time', unit: 'ms', better: 'lower', inVerdict: true, supporting: true },
};

const isHotpathUrl = (url: string) => url.endsWith(STARTUP_PRELOAD_FILE_NAME);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const meanOf = (xs: Array<number | null>) => { const v = xs.filter((x): x is number => x !== null); return v.length ? mean(v) : null; };

/** Mean evaluation time per profiled start of each ES module: its top-level frame's total in the merged profile. */
function esmEvaluationMs(model: ProfileModel | undefined, runs: number): (file: string) => number | undefined {
  if (!model || runs === 0) return () => undefined;
  const byFile = new Map<string, number>();
  model.functions.forEach((f, i) => {
    if (f.name === '' && f.line === 1 && f.column === 1 && f.file) byFile.set(f.file, (byFile.get(f.file) ?? 0) + model.functionTotalUs[i]);
  });
  return (file) => { const us = byFile.get(file); return us === undefined ? undefined : us / 1000 / runs; };
}

function sourceReader(): (file: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      try { cache.set(file, readBoundedFileSync(file, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8')); } catch { cache.set(file, undefined); }
    }
    return cache.get(file);
  };
}

/** One start of the command in `mode`, with the request's settings. */
export function startRunOf(request: StartupRequest, deps: StartupDeps) {
  return (mode: StartupRunMode, env?: Record<string, string | undefined>) => startOnce({
    command: request.command, cwd: request.cwd, env: { ...request.env, ...env }, mode, until: request.until ?? 'auto',
    samplingIntervalMicros: request.samplingIntervalMicros ?? 100, timeoutMs: request.timeoutMs ?? 60_000,
  }, deps);
}

export async function measureStartup(request: StartupRequest, deps: StartupDeps = {}): Promise<StartupResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const warmup = request.warmup ?? 2;
  const profileRuns = request.profileRuns ?? 10;
  const interval = request.samplingIntervalMicros ?? 100;
  const withModules = request.modules !== false;
  const adaptive: AdaptiveRuns = request.runs !== undefined
    ? { min: request.runs, max: request.runs, targetPct: 0, budgetMs: Infinity }
    : { ...DEFAULT_ADAPTIVE_RUNS, ...request.adaptive };
  const start = startRunOf(request, { token, logger });
  const commandLine = request.command.join(' ');
  // Of the whole command: warm-ups 5%, timed runs 50%, the compile-cache trial 15%, profiled runs 25%.
  const span = { warmup: 0.05, timed: 0.5, cache: 0.15, profiled: 0.25 };

  for (let i = 0; i < warmup; i++) {
    throwIfCancelled(token);
    progress({ stage: 'warmup', message: `Warm-up start ${i + 1} of ${warmup} (discarded): ${commandLine}`, fraction: (span.warmup * i) / Math.max(1, warmup) });
    await start('time');
  }

  const timed: StartRun[] = [];
  const values: number[] = [];
  const t0 = performance.now();
  while (needMoreRuns(values, performance.now() - t0, adaptive)) {
    throwIfCancelled(token);
    const expected = expectedRuns(values, performance.now() - t0, adaptive);
    const so = values.length ? ` · so far ${formatMs(mean(values))} mean` : '';
    progress({ stage: 'measuring', message: `Timed start ${values.length + 1} of ~${expected}${so}`, fraction: span.warmup + span.timed * Math.min(1, values.length / expected) });
    const run = await start(withModules ? 'modules' : 'time');
    timed.push(run);
    values.push(run.ms);
  }
  if (!timed.length) throw new HotpathError(ErrorCode.InvalidOption, 'No timed start was made (--runs must be at least 2).');
  const stats = summarizeRuns(values);
  const last = timed[timed.length - 1];
  const program = last.program!;
  const moduleRuns = timed.map((r) => r.modules).filter((m): m is ModulesFile => m !== undefined);

  // Node's compile cache: measured, not guessed, when the advice would apply.
  let compileCache: StartupSummary['compileCache'];
  const moduleCount = moduleRuns.length ? Math.max(...moduleRuns.map((m) => m.cjs.length + m.esm.length)) : 0;
  if (request.tryCompileCache !== false && program.compileCache.available && !program.compileCache.directory && moduleCount >= 20) {
    const dir = ownedTempDir('hotpath-compile-cache-'); // removed below, or by the next run if this one is killed
    try {
      const outcome = await runAbComparison(STARTUP_METRICS, 'startupMs', { ...DEFAULT_AB_SETTINGS, minPairs: 5, maxPairs: 10, budgetMs: 30_000, warmupRounds: 1 }, {
        token,
        onState: (s) => progress({ stage: 'measuring', message: `Trying Node's compile cache: pair ${s.pairs + 1}, ${s.next?.side === 'b' ? 'with' : 'without'} the cache`, fraction: span.warmup + span.timed + span.cache * s.fraction }),
        measure: async (side) => {
          const r = await start('time', side === 'b' ? { NODE_COMPILE_CACHE: dir } : undefined);
          return { startupMs: r.ms, ...(r.cpuMs ? { cpuMs: r.cpuMs } : {}) };
        },
      });
      const m = outcome.comparison.metrics.startupMs;
      compileCache = { pairs: outcome.pairs, withMs: m.b.geomean, withoutMs: m.a.geomean, comparison: outcome.comparison };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  // Profiled starts, merged into one profile.
  const profiles = [];
  for (let i = 0; i < profileRuns; i++) {
    throwIfCancelled(token);
    progress({ stage: 'profiling', message: `Profiled start ${i + 1} of ${profileRuns} (every ${interval} µs)`, fraction: span.warmup + span.timed + span.cache + (span.profiled * i) / profileRuns });
    const run = await start('profile');
    if (run.profile) profiles.push(run.profile);
  }
  const warnings: Warning[] = [];
  let analysis: Analysis | undefined;
  let saved: SavedProfile[] = [];
  if (profiles.length) {
    progress({ stage: 'analyzing', message: 'Merging and analyzing the profiles', fraction: 0.95 });
    const merged = mergeCpuProfiles(profiles, isHotpathUrl);
    if (merged.samples > 0) {
      saved = await saveProfiles(request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles'), `${request.name}-startup`, [{ thread: 'main', pid: program.pid, profile: merged.profile, partial: false }]);
      analysis = await analyzeProfiles(saved, { limit: request.limit ?? 15, token });
      // Each start is profiled from its preload, before any of its code: the "profiling started late"
      // heuristic (most time on one loader line) only sees module compilation, which is real time here.
      warnings.push(...analysis.warnings.filter((w) => w.code !== 'PROFILE_LATE_START'));
      if (merged.droppedUs > 0) {
        warnings.push({ code: 'HOTPATH_OVERHEAD', message: `Hotpath's own frames (starting and stopping the profiler in each start) took ${formatMs(merged.droppedUs / 1000 / merged.runs)} per profiled start; they are left out of the merged profile.` });
      }
    }
    if (profiles.length < profileRuns) warnings.push({ code: 'PROFILES_MISSING', message: `${profileRuns - profiles.length} of ${profileRuns} profiled starts wrote no profile; the merged profile has ${profiles.length}.` });
  }

  const tree = buildModuleTree({ runs: moduleRuns, cwd: request.cwd, esmSelfMs: esmEvaluationMs(analysis?.model, profiles.length), sourceOf: sourceReader() });
  const phases: StartupPhases = {
    launchMs: meanOf(timed.map((r) => r.launchMs)),
    bootstrapMs: meanOf(timed.map((r) => r.bootstrapMs)),
    appMs: meanOf(timed.map((r) => (r.launchMs !== null && r.bootstrapMs !== null ? r.ms - r.launchMs - r.bootstrapMs : null))),
  };
  const wrappers = last.wrappers;
  if (stats.outliers.length) {
    warnings.push({
      code: 'STARTUP_OUTLIERS',
      message: `${stats.outliers.length} of ${stats.runs} timed starts are outliers (modified z-score on the MAD above 3.5): ${stats.outliers.map((o) => `run ${o.run} ${formatMs(o.ms)}`).join(', ')}. They are kept in the statistics; another program taking the CPU, or a cold disk cache, are the usual causes. Re-run on a quieter machine if the mean matters more than the median.`,
    });
  }
  if (request.runs === undefined && stats.meanHalfWidthPct !== null && stats.meanHalfWidthPct > adaptive.targetPct) {
    warnings.push({ code: 'STARTUP_UNSTABLE', message: `After ${stats.runs} starts the mean is known to ±${formatPct(stats.meanHalfWidthPct)} (95%), not the ±${adaptive.targetPct}% aimed for: starts vary a lot on this machine (σ ${formatMs(stats.stddevMs)}). Compare medians, or run more starts (--runs).` });
  }
  // ES modules show in a profile as file:// URLs (CommonJS scripts as paths).
  const profiledEsm = analysis?.model.functions.some((f) => f.url.startsWith('file://') && (f.category === 'user' || f.category === 'dependency'));
  if (tree.esmUnavailable && profiledEsm) {
    warnings.push({ code: 'ESM_GRAPH_UNAVAILABLE', message: `${tree.esmUnavailable}. CommonJS modules are measured; ES modules appear only with the time the profile gives them.` });
  }
  const end = timed.every((r) => r.end === 'listen') ? 'listen' : 'exit';
  if (end === 'listen') {
    const w = nodeEnvWarning(program.nodeEnv);
    if (w) warnings.push(w);
  }
  const advice = startupAdvice({
    meanMs: stats.meanMs, modules: tree.modules, nodeVersion: program.nodeVersion, compileCache: program.compileCache, wrappers, launchMs: phases.launchMs, command: request.command,
    ...(analysis ? { usage: { of: startupUsage(analysis.model, profiles.length), runs: profiles.length } } : {}),
    ...(compileCache ? { compileCacheTrial: { withMs: compileCache.withMs, withoutMs: compileCache.withoutMs, ratio: compileCache.comparison.metrics.startupMs.ratio, significant: compileCache.comparison.metrics.startupMs.significant } } : {}),
  });
  progress({ stage: 'analyzing', message: 'Done', fraction: 1 });
  const summary: StartupSummary = {
    ...stats, warmup, end, runsMs: values, phases, cpuMs: meanOf(timed.map((r) => r.cpuMs)),
    modules: tree.modules, packages: tree.packages, moduleHookMs: moduleRuns.length ? tree.hookMs : null,
    profileRuns: profiles.length, samplingIntervalMicros: interval, ...(compileCache ? { compileCache } : {}),
  };
  return {
    kind: 'startup',
    target: { command: request.command, nodeVersion: program.nodeVersion, nodeEnv: program.nodeEnv, wrappers },
    startup: summary,
    advice,
    profilePath: saved[0]?.path ?? null,
    profiles: saved,
    hotspots: analysis?.hotspots ?? [],
    lines: analysis?.lines ?? [],
    packages: analysis?.packages ?? [],
    warnings,
    ...(analysis ? { model: analysis.model, attribution: analysis.attribution } : {}),
  };
}
