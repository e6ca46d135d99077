/**
 * Every run Hotpath can start, as one request type, and the single place that turns it into a core
 * workflow call. Commands and the debug adapter both go through here; nothing re-implements the core.
 */
import type { AttachSpec } from '../../core/target/attach';
import { sanitizeBaselineName } from '../../core/stats/baselineStore';
import { establishBaseline, verifyAgainstBaseline, type BaselineResult, type VerifyResult } from '../../core/workflow/baseline';
import { profileAttached } from '../../core/workflow/profileAttached';
import { profileScript, type ScriptResult } from '../../core/workflow/profileScript';
import { profileWithLoad, type ProfileResult, type WorkflowDeps } from '../../core/workflow/profileWithLoad';
import type { RunSettings } from '../settings';
import type { TargetSpec } from '../targets/targetSpec';

export type RunKind = 'profile' | 'baseline' | 'verify' | 'script' | 'attach';

export type RunRequest =
  | { kind: 'profile' | 'script'; target: TargetSpec; settings: RunSettings }
  | { kind: 'baseline' | 'verify'; target: TargetSpec; settings: RunSettings; baselineName: string }
  | { kind: 'attach'; attach: AttachSpec; cwd: string; settings: RunSettings; describe: string };

export type RunResult = ProfileResult | ScriptResult | BaselineResult | VerifyResult;

export const RUN_TITLES: Record<RunKind, string> = {
  profile: 'Profile with Load',
  baseline: 'Establish Baseline',
  verify: 'Verify Against Baseline',
  script: 'Profile Script',
  attach: 'Attach and Profile',
};

/** Baselines from VS Code are named after the target, so "Verify" finds the one "Establish" wrote. */
export function baselineNameFor(target: TargetSpec): string {
  return sanitizeBaselineName(target.name);
}

/** Profiles are named after the target too: `<stamp>-<name>.cpuprofile`. */
function profileName(name: string): string {
  try { return sanitizeBaselineName(name); } catch { return 'profile'; }
}

export async function executeRun(request: RunRequest, deps: WorkflowDeps): Promise<RunResult> {
  switch (request.kind) {
    case 'profile': {
      const t = request.target;
      return profileWithLoad({ command: t.command, cwd: t.cwd, env: t.env, load: request.settings.load, samplingIntervalMicros: request.settings.samplingIntervalMicros, name: profileName(t.name), limit: 50 }, deps);
    }
    case 'script': {
      const t = request.target;
      return profileScript({ command: t.command, cwd: t.cwd, env: t.env, samplingIntervalMicros: request.settings.samplingIntervalMicros, name: profileName(t.name), limit: 50 }, deps);
    }
    case 'baseline': {
      const t = request.target;
      return establishBaseline({ command: t.command, cwd: t.cwd, env: t.env, load: request.settings.load, runs: request.settings.runs, name: request.baselineName }, deps);
    }
    case 'verify': {
      const t = request.target;
      // Only what the target itself pins; everything else comes from the baseline, so the load is the same.
      const load = { ...(t.path ? { path: t.path } : {}), ...(t.method ? { method: t.method } : {}) };
      return verifyAgainstBaseline({ command: t.command, cwd: t.cwd, env: t.env, load, name: request.baselineName }, deps);
    }
    case 'attach':
      return profileAttached({ attach: request.attach, load: request.settings.load, cwd: request.cwd, samplingIntervalMicros: request.settings.samplingIntervalMicros, name: 'attached', limit: 50 }, deps);
  }
}
