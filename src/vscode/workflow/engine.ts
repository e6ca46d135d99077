/**
 * The heavy half of the extension (dist/engine.js): the core workflows with autocannon and the inspector
 * client. Loaded on the first run, not at activation — it is most of the bundle's size and parse time.
 */
import { establishBaseline, verifyAgainstBaseline } from '../../core/workflow/baseline';
import { profileAttached } from '../../core/workflow/profileAttached';
import { profileScript } from '../../core/workflow/profileScript';
import { profileWithLoad, type WorkflowDeps } from '../../core/workflow/profileWithLoad';
import { compareVariants } from '../../core/workflow/compare';
import { measureStartup } from '../../core/workflow/startup';
import { runStartupVariants } from '../../core/workflow/startupCompare';
import { runBench } from '../../core/workflow/bench';
import { profileName, type RunRequest, type RunResult } from './runs';
import { checkForLeaks } from '../../core/workflow/leakCheck';
import { runEmergencyStops } from '../../core/common/emergency';

/**
 * The editor is going away (window reload or close, extension update): no time for graceful stops.
 * Everything the runs started is stopped at once — apps' process groups, installs and --prepare
 * steps — and their temporary files and git worktrees are removed (see core/common/emergency.ts).
 */
export function stopEverythingNow(): Promise<void> {
  return runEmergencyStops(2000);
}

export async function executeRun(request: RunRequest, deps: WorkflowDeps): Promise<RunResult> {
  switch (request.kind) {
    case 'profile': {
      const t = request.target;
      return profileWithLoad({
        command: t.command, cwd: t.cwd, env: t.env, load: request.settings.load, samplingIntervalMicros: request.settings.samplingIntervalMicros, name: profileName(t.name), limit: 50,
        memoryIntervalBytes: request.settings.memoryIntervalBytes, blockThresholdMs: request.settings.blockThresholdMs,
      }, deps);
    }
    case 'leak': {
      const t = request.target;
      return checkForLeaks({ command: t.command, cwd: t.cwd, env: t.env, load: request.settings.load, name: profileName(t.name), ...request.settings.leak }, deps);
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
    case 'compare': {
      const t = request.target;
      const c = request.compare;
      const load = { ...request.settings.load, durationSeconds: c.durationSeconds, warmupSeconds: c.warmupSeconds };
      return compareVariants({
        command: t.command, cwd: t.cwd, env: t.env, sides: request.sides, mode: c.script ? 'script' : 'http', load,
        interleave: c.pairs >= 2 ? { fixedPairs: c.pairs } : { targetHalfWidthPct: c.targetCiPercent, budgetMs: c.budgetSeconds * 1000 },
        samplingIntervalMicros: request.settings.samplingIntervalMicros, name: `${profileName(t.name)}-compare`,
      }, deps);
    }
    case 'startup': {
      const t = request.target;
      const v = request.variants;
      if (v) return runStartupVariants({ command: t.command, cwd: t.cwd, env: t.env, ...(v.nodes ? { nodes: v.nodes } : {}), ...(v.base !== undefined ? { base: v.base } : {}), bisect: false, options: {} }, deps);
      // The editor's sampling setting is for load profiles; startup profiles sample at 100 µs (a start is short).
      return measureStartup({ command: t.command, cwd: t.cwd, env: t.env, profileRuns: request.profileRuns, ...(request.runs ? { runs: request.runs } : {}), name: profileName(t.name), limit: 50 }, deps);
    }
    case 'bench':
      return runBench({ file: request.file, cwd: request.cwd, runs: request.runs, tasks: request.tasks, ...(request.compareTasks ? { compareTasks: request.compareTasks } : {}), ...(request.pairs !== undefined ? { pairs: request.pairs } : {}) }, deps);
    case 'attach':
      return profileAttached({ attach: request.attach, load: request.settings.load, cwd: request.cwd, samplingIntervalMicros: request.settings.samplingIntervalMicros, name: 'attached', limit: 50 }, deps);
  }
}

/** The agents' tool host (language-model tools): loaded with the engine, on the first tool call. */
export { ToolHost } from '../../core/agents/host';
