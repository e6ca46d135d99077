import * as path from 'node:path';
import type { Warning } from '../common/warnings';
import type { LoadOptions, LoadOptionsInput } from '../load/options';
import type { LoadResult } from '../load/result';
import { type Baseline, BaselineStore } from '../stats/baselineStore';
import { compareRuns, type Comparison } from '../stats/compare';
import { captureEnvironment, compareEnvironments } from '../stats/environment';
import { summarizeRun, type RunSummary } from '../stats/runSummary';
import { measureRuns } from './measureRuns';
import { nodeEnvWarning } from './preflight';
import type { TargetInfo, WorkflowDeps } from './profileWithLoad';
import type { TargetCommand } from './runningTarget';
import { checkForLeaks, leakRecord, type LeakSummary } from './leakCheck';
import { compareGrowth, type GrowthComparison } from '../memory/growthComparison';
import { asLeakRecord } from '../memory/leakStore';

export interface BaselineRequest extends TargetCommand {
  load: LoadOptionsInput;
  runs: number;
  name: string;
  /** Default <cwd>/.hotpath/baselines */
  storeDir?: string;
  /** Also run a leak check (its own app start) and keep its growth rate with the baseline. */
  leak?: boolean | { rungRequests?: number; idleSeconds?: number };
}

export interface BaselineResult {
  kind: 'baseline';
  name: string;
  path: string;
  target: TargetInfo;
  loadOptions: LoadOptions;
  runs: RunSummary[];
  load: LoadResult;
  summary: { requestsPerSecond: number; p99Ms: number };
  /** The leak check run with the baseline (`--leak`). */
  leak?: LeakSummary;
  warnings: Warning[];
}

export interface VerifyResult {
  kind: 'verify';
  name: string;
  target: TargetInfo;
  loadOptions: LoadOptions;
  runs: RunSummary[];
  load: LoadResult;
  baseline: { createdAt: string; runs: RunSummary[]; nodeVersion: string; nodeEnv: string | null };
  comparison: Comparison;
  /** When the baseline has a leak check: this run's check, and the growth rates compared. */
  leak?: LeakSummary;
  leakComparison?: GrowthComparison;
  warnings: Warning[];
  /**
   * Set when the baseline recorded a git commit and the working tree is not that commit (another HEAD
   * or uncommitted changes): `hotpath compare --base <base>` measures both interleaved, which a verify
   * against old runs cannot.
   */
  interleavedCompare?: { base: string; baselineDirty: boolean; currentCommit: string | null; currentDirty: boolean | null };
}

export function baselineDir(request: { cwd: string; storeDir?: string }): string {
  return request.storeDir ?? path.join(request.cwd, '.hotpath', 'baselines');
}

function meanOf(runs: RunSummary[], key: 'requestsPerSecond' | 'p99Ms'): number {
  return runs.reduce((sum, r) => sum + r[key], 0) / Math.max(1, runs.length);
}

/** The run whose throughput is the median one: the representative result for display. */
function medianResult(results: LoadResult[]): LoadResult {
  return [...results].sort((a, b) => a.requests.mean - b.requests.mean)[Math.floor(results.length / 2)];
}

export async function establishBaseline(request: BaselineRequest, deps: WorkflowDeps = {}): Promise<BaselineResult> {
  const measured = await measureRuns(request, request.load, request.runs, deps);
  const runs = measured.results.map((r, i) => summarizeRun(r, measured.appCpuMs[i], measured.otherCpuCores[i]));
  const environment = await captureEnvironment({ cwd: request.cwd, nodeVersion: measured.process.nodeVersion, nodeEnv: measured.process.nodeEnv });
  const leak = request.leak ? await leakAlongside(request, request.load, request.leak, deps) : undefined;
  // A leak check the app did not survive is reported, not kept: the runs are saved without one.
  const record = leak ? leakRecord(leak.leak) : null;
  const baseline: Baseline = {
    version: 1, name: request.name, createdAt: new Date().toISOString(), command: request.command, cwd: request.cwd,
    load: measured.loadOptions, runs, results: measured.results, environment, ...(record ? { leak: record } : {}),
  };
  const store = new BaselineStore(baselineDir(request));
  const file = await store.save(baseline);
  const warnings = collectWarnings(measured.results, measured.process.nodeEnv);
  return {
    kind: 'baseline', name: request.name, path: file, target: targetInfo(request, measured),
    loadOptions: measured.loadOptions, runs, load: medianResult(measured.results),
    summary: { requestsPerSecond: meanOf(runs, 'requestsPerSecond'), p99Ms: meanOf(runs, 'p99Ms') }, ...(leak ? { leak: leak.leak } : {}), warnings,
  };
}

export interface VerifyRequest extends TargetCommand {
  /** Only the load options the user set; the rest comes from the baseline, so the load is the same. */
  load: LoadOptionsInput;
  runs?: number;
  name: string;
  storeDir?: string;
  /** Family-wise significance level of the verdict (default 0.05). */
  alpha?: number;
  /** Run the leak check too when the baseline has one (default true); false skips it. */
  leak?: boolean | { rungRequests?: number; idleSeconds?: number };
}

export async function verifyAgainstBaseline(request: VerifyRequest, deps: WorkflowDeps = {}): Promise<VerifyResult> {
  const store = new BaselineStore(baselineDir(request));
  const baseline = await store.load(request.name);
  const { port: _port, url: _url, ...baselineLoad } = baseline.load;
  const load: LoadOptionsInput = { ...baselineLoad, ...request.load };
  const runs = request.runs ?? baseline.runs.length;
  const measured = await measureRuns(request, load, runs, deps);
  const current = measured.results.map((r, i) => summarizeRun(r, measured.appCpuMs[i], measured.otherCpuCores[i]));
  const comparison = compareRuns(baseline.runs, current, { alpha: request.alpha });
  const environment = await captureEnvironment({ cwd: request.cwd, nodeVersion: measured.process.nodeVersion, nodeEnv: measured.process.nodeEnv });
  const warnings = [...collectWarnings(measured.results, measured.process.nodeEnv), ...compareEnvironments(baseline.environment, environment), ...comparison.warnings];
  const stored = asLeakRecord(baseline.leak);
  let leak: Awaited<ReturnType<typeof leakAlongside>> | undefined;
  if (stored && request.leak !== false) leak = await leakAlongside(request, load, request.leak ?? true, deps);
  const differs = (['connections', 'durationSeconds', 'pipelining', 'method', 'path'] as const).filter((k) => baseline.load[k] !== measured.loadOptions[k]);
  if (JSON.stringify(baseline.load.routes ?? null) !== JSON.stringify(measured.loadOptions.routes ?? null)) {
    warnings.push({ code: 'LOAD_DIFFERS', message: 'The request mix (--request / load file) differs from the baseline\'s, so the comparison mixes two workloads. Re-run with the same requests, or record a new baseline.' });
  }
  if (differs.length) {
    warnings.push({ code: 'LOAD_DIFFERS', message: `The load differs from the baseline's (${differs.map((k) => `${k}: ${baseline.load[k]} → ${measured.loadOptions[k]}`).join(', ')}), so the comparison mixes two workloads. Re-run without those options, or record a new baseline.` });
  }
  const base = baseline.environment.gitCommit;
  const interleavedCompare = base && (environment.gitCommit !== base || environment.gitDirty === true)
    ? { base, baselineDirty: baseline.environment.gitDirty === true, currentCommit: environment.gitCommit, currentDirty: environment.gitDirty }
    : undefined;
  return {
    ...(interleavedCompare ? { interleavedCompare } : {}),
    kind: 'verify', name: request.name, target: targetInfo(request, measured), loadOptions: measured.loadOptions,
    runs: current, load: medianResult(measured.results),
    baseline: { createdAt: baseline.createdAt, runs: baseline.runs, nodeVersion: baseline.environment.nodeVersion, nodeEnv: baseline.environment.nodeEnv },
    comparison, ...(leak && stored ? { leak: leak.leak, ...(leak.leak.verdict !== 'incomplete' ? { leakComparison: compareGrowth(stored, { ...leak.leak, verdict: leak.leak.verdict }) } : {}) } : {}), warnings,
  };
}

/** A leak check beside baseline/verify runs: its own app start, the same load, nothing stored on its own. */
function leakAlongside(request: TargetCommand & { name: string }, load: LoadOptionsInput, options: true | { rungRequests?: number; idleSeconds?: number }, deps: WorkflowDeps) {
  const extra = options === true ? {} : options;
  return checkForLeaks({ ...request, load, name: request.name, store: false, ...extra }, deps);
}

function targetInfo(request: TargetCommand, measured: { process: { pid: number; nodeVersion: string; nodeEnv: string | null }; port: number }): TargetInfo {
  return { command: request.command, pid: measured.process.pid, port: measured.port, nodeVersion: measured.process.nodeVersion, nodeEnv: measured.process.nodeEnv };
}

function collectWarnings(results: LoadResult[], nodeEnv: string | null): Warning[] {
  const warnings: Warning[] = [];
  const env = nodeEnvWarning(nodeEnv);
  if (env) warnings.push(env);
  const seen = new Set<string>();
  for (const w of results.flatMap((r) => r.warnings)) {
    if (!seen.has(w.code)) { seen.add(w.code); warnings.push(w); }
  }
  return warnings;
}
