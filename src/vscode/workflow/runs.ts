/**
 * Every run Hotpath can start, as one request type. The engine (engine.ts, bundled separately as
 * dist/engine.js) turns it into a core workflow call on the first run; commands and the debug adapter
 * both go through `executeRun` here. Nothing re-implements the core.
 */
import type { AttachSpec } from '../../core/target/attach';
import { profileStem, sanitizeBaselineName } from '../../core/stats/baselineName';
import type { BaselineResult, VerifyResult } from '../../core/workflow/baseline';
import type { ScriptResult } from '../../core/workflow/profileScript';
import type { ProfileResult, WorkflowDeps } from '../../core/workflow/profileWithLoad';
import type { PreflightCheck } from '../../core/workflow/preflight';
import type { CompareSettings, RunSettings } from '../settings';
import type { SideSpec } from '../../core/variants/sides';
import type { CompareResult } from '../../core/workflow/compare';
import type { StartupResult } from '../../core/workflow/startup';
import type { BenchResult } from '../../core/workflow/bench';
import type { LeakResult } from '../../core/workflow/leakCheck';
import type { StartupVariantsResult } from '../../core/workflow/startupCompare';
import type { TargetSpec } from '../targets/targetSpec';

export type RunKind = 'profile' | 'baseline' | 'verify' | 'script' | 'attach' | 'compare' | 'startup' | 'bench' | 'leak';

/** An interleaved comparison of two sides of one target (git revision, Node versions, env, node flags). */
export interface CompareRunRequest {
  kind: 'compare';
  target: TargetSpec;
  settings: RunSettings;
  sides: [SideSpec, SideSpec];
  compare: CompareSettings & { script?: boolean };
}

export type RunRequest =
  | { kind: 'profile' | 'script' | 'leak'; target: TargetSpec; settings: RunSettings }
  | { kind: 'baseline' | 'verify'; target: TargetSpec; settings: RunSettings; baselineName: string }
  | { kind: 'attach'; attach: AttachSpec; cwd: string; settings: RunSettings; describe: string }
  | CompareRunRequest
  | { kind: 'startup'; target: TargetSpec; settings: RunSettings; profileRuns: number; /** Timed starts; undefined: adaptive. */ runs?: number; variants?: StartupVariants }
  | { kind: 'bench'; file: string; cwd: string; runs: number; tasks?: string[]; compareTasks?: [string, string]; pairs?: number };

/** A startup comparison instead of a startup profile: two Node versions, or a git revision against the working tree. */
export interface StartupVariants {
  nodes?: [string, string];
  base?: string;
}

export type RunResult = ProfileResult | ScriptResult | BaselineResult | VerifyResult | CompareResult | StartupResult | BenchResult | LeakResult | StartupVariantsResult;

export const RUN_TITLES: Record<RunKind, string> = {
  profile: 'Profile with Load',
  baseline: 'Establish Baseline',
  verify: 'Verify Against Baseline',
  script: 'Profile Script',
  attach: 'Attach and Profile',
  compare: 'Compare',
  startup: 'Profile Startup',
  bench: 'Run Benchmark',
  leak: 'Check for Leaks',
};

/** What the progress notification and the status bar call a run: a comparison says so. */
export function runTitle(request: RunRequest): string {
  if (request.kind === 'startup' && request.variants) return 'Compare Startup';
  if (request.kind === 'bench' && request.compareTasks) return 'Compare Benchmark Tasks';
  return RUN_TITLES[request.kind];
}

/** Baselines from VS Code are named after the target, so "Verify" finds the one "Establish" wrote. */
export function baselineNameFor(target: TargetSpec): string {
  return sanitizeBaselineName(target.name);
}

/** Profiles are named after the target too: `<stamp>-<name>.cpuprofile`. */
export function profileName(name: string): string {
  return profileStem(name);
}

/** The run's production-parity checklist (profile and script runs have one; baseline/verify not yet). */
export function checksOf(result: RunResult): PreflightCheck[] {
  return 'checks' in result ? result.checks ?? [] : [];
}

type Engine = typeof import('./engine');
let engine: Engine | undefined;

/**
 * esbuild leaves `./engine.js` external in the extension bundle (see esbuild.js), so this resolves to
 * dist/engine.js there and to engine.ts under tsx.
 */
export function loadEngine(): Engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  engine ??= require('./engine.js') as Engine;
  return engine;
}

export function executeRun(request: RunRequest, deps: WorkflowDeps): Promise<RunResult> {
  return loadEngine().executeRun(request, deps);
}

/** Stops whatever runs started, at once, and removes their temporary state (deactivation); nothing to do before the first run. */
export function stopRunsNow(): Promise<void> {
  return engine ? engine.stopEverythingNow() : Promise.resolve();
}
