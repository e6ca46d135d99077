/**
 * Where agents' runs go in VS Code: inside the workspace folders, never in an untrusted workspace, and
 * every one through the run controller — so a run an agent starts updates the editor exactly as the
 * command does (CodeLens, line heat, status bar, Hotspots view, benchmark results on the task lines, a
 * comparison's verdict in the status bar), one run at a time with the palette's.
 */
import * as vscode from 'vscode';
import type { AgentEnvironment } from '../../core/agents/host';
import type { AgentRun } from '../../core/agents/runs';
import type { Logger } from '../../core/common/logger';
import { compareSettings, runSettings, startupSettings } from '../settings';
import type { TargetSpec } from '../targets/targetSpec';
import type { RunController } from '../workflow/runController';
import type { RunRequest } from '../workflow/runs';
import { pathMapFromSettings } from '../workflow/loadedProfile';

/** The editor's request for an agent's run. */
export function runRequestOf(run: AgentRun): RunRequest {
  const target: TargetSpec = {
    name: run.name, command: run.command, cwd: run.cwd, env: run.env,
    ...(typeof run.load.path === 'string' ? { path: run.load.path } : {}),
    ...(typeof run.load.method === 'string' ? { method: run.load.method } : {}),
    ...(run.load.routes?.length ? { requests: [...run.load.routes] as TargetSpec['requests'] } : {}),
  };
  const base = runSettings(vscode.Uri.file(run.cwd), target);
  const settings = {
    ...base,
    load: { ...base.load, ...run.load, ...(run.port !== undefined ? { port: run.port } : {}) },
    ...(run.runs !== undefined ? { runs: run.runs } : {}),
    ...(run.memory ? { memoryIntervalBytes: base.memoryIntervalBytes ?? 32768 } : {}),
    ...(run.leak ? { leak: { ...base.leak, ...run.leak } } : {}),
  };
  switch (run.kind) {
    case 'profile': case 'script': case 'leak': return { kind: run.kind, target, settings };
    case 'baseline': case 'verify': return { kind: run.kind, target, settings, baselineName: run.name };
    case 'compare': {
      const c = compareSettings(vscode.Uri.file(run.cwd));
      const d = run.load.durationSeconds, w = run.load.warmupSeconds;
      return {
        kind: 'compare', target, settings, sides: run.compare!.sides,
        compare: { ...c, ...(typeof d === 'number' ? { durationSeconds: d } : {}), ...(typeof w === 'number' ? { warmupSeconds: w } : {}), ...(run.compare!.pairs ? { pairs: run.compare!.pairs } : {}), ...(run.compare!.budgetSeconds ? { budgetSeconds: run.compare!.budgetSeconds } : {}), script: run.compare!.script },
      };
    }
    case 'startup': {
      const variants = run.startup ? { ...(run.startup.nodes ? { nodes: run.startup.nodes } : {}), ...(run.startup.base !== undefined ? { base: run.startup.base } : {}) } : undefined;
      // The agent's `runs` first (it was dropped here before), then the user's setting.
      const startup = startupSettings(vscode.Uri.file(run.cwd));
      return { kind: 'startup', target, settings, ...startup, ...(run.runs ? { runs: run.runs } : {}), ...(variants ? { variants } : {}) };
    }
    case 'bench': {
      const b = run.bench!;
      return { kind: 'bench', file: b.file, cwd: run.cwd, runs: run.runs ?? vscode.workspace.getConfiguration('hotpath.bench', vscode.Uri.file(run.cwd)).get<number>('runs') ?? 5, ...(b.tasks ? { tasks: b.tasks } : {}), ...(b.compareTasks ? { compareTasks: b.compareTasks } : {}), ...(b.pairs !== undefined ? { pairs: b.pairs } : {}) };
    }
  }
}

export function editorEnvironment(controller: RunController, logger: Logger): AgentEnvironment {
  return {
    roots: async () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    runBlocked: () => (vscode.workspace.isTrusted ? undefined : 'This workspace is not trusted, and Hotpath runs the workspace\'s own code: trust the workspace (Manage Workspace Trust) to profile it. Reading existing .cpuprofile files (hotpath_hot_lines, hotpath_explain, hotpath_report with `profile`) works without trust.'),
    // Another machine's paths in a pprof or 0x profile: where `hotpath.pathMappings` says, as Open CPU Profile… reads them.
    pathMappings: () => pathMapFromSettings().mappings ?? [],
    run: async (run, deps) => {
      const { result } = await controller.execute(runRequestOf(run), { token: deps.token!, onProgress: deps.onProgress, notify: false, note: 'started by an agent' });
      return result;
    },
    logger,
  };
}
