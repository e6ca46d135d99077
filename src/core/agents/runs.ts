/**
 * What a run tool asks for, as one request type (from the tool's arguments), how to say it to the
 * person who confirms it, and how the core runs it (the MCP server; VS Code runs the same request
 * through its run controller so the editor shows the result).
 */
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../common/errors';
import type { LoadOptionsInput } from '../load/options';
import type { RunResultAny } from '../report';
import { baselineNameFromCommand } from '../stats/baselineStore';
import type { SideSpec } from '../variants/sides';
import type { WorkflowDeps } from '../workflow/profileWithLoad';
import type { ToolName } from './tools';

export type AgentRunKind = 'profile' | 'script' | 'baseline' | 'verify' | 'compare' | 'leak' | 'startup' | 'bench';

export interface AgentRun {
  tool: ToolName;
  kind: AgentRunKind;
  /** argv; empty for bench (the file runs on Hotpath's node). */
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** Only what the agent set; the rest are each workflow's defaults (verify: the baseline's load). */
  load: LoadOptionsInput;
  port?: number;
  memory?: boolean;
  runs?: number;
  name: string;
  timeoutMs?: number;
  compare?: { sides: [SideSpec, SideSpec]; script: boolean; pairs?: number; budgetSeconds?: number };
  startup?: { nodes?: [string, string]; base?: string };
  bench?: { file: string; tasks?: string[]; compareTasks?: [string, string]; pairs?: number };
  leak?: { rungRequests?: number; idleSeconds?: number };
}

/** The arguments every run tool may have (validated against its schema before). */
export interface RunArguments {
  command?: string[];
  cwd?: string;
  env?: Record<string, string>;
  path?: string;
  method?: string;
  requests?: Array<{ method?: string; path: string; weight?: number }>;
  duration?: number;
  warmup?: number;
  connections?: number;
  port?: number;
  script?: boolean;
  memory?: boolean;
  timeout?: number;
  runs?: number;
  name?: string;
  base?: string;
  node?: string[];
  envA?: Record<string, string>;
  envB?: Record<string, string>;
  nodeArgsA?: string[];
  nodeArgsB?: string[];
  pairs?: number;
  budget?: number;
  rung?: number;
  idle?: number;
  file?: string;
  tasks?: string[];
  compare?: string[];
}

const KIND: Partial<Record<ToolName, AgentRunKind>> = {
  hotpath_profile: 'profile', hotpath_baseline: 'baseline', hotpath_verify: 'verify', hotpath_compare: 'compare',
  hotpath_leak: 'leak', hotpath_startup: 'startup', hotpath_bench: 'bench',
};

function loadOf(a: RunArguments): LoadOptionsInput {
  return {
    ...(a.path !== undefined ? { path: a.path } : {}),
    ...(a.method !== undefined ? { method: a.method } : {}),
    ...(a.requests ? { routes: a.requests.map((r) => ({ method: r.method ?? 'GET', path: r.path, weight: r.weight ?? 1 })) } : {}),
    ...(a.duration !== undefined ? { durationSeconds: a.duration } : {}),
    ...(a.warmup !== undefined ? { warmupSeconds: a.warmup } : {}),
    ...(a.connections !== undefined ? { connections: a.connections } : {}),
  };
}

/** The sides of a comparison: what differs (git revision, Node versions, env, node flags). */
function sidesOf(a: RunArguments): [SideSpec, SideSpec] {
  const [nodeA, nodeB] = a.node?.length === 1 ? [a.node[0], a.node[0]] : [a.node?.[0], a.node?.[1]];
  return [
    { ...(a.base ? { base: a.base } : {}), ...(nodeA ? { node: nodeA } : {}), ...(a.envA ? { env: a.envA } : {}), ...(a.nodeArgsA ? { nodeArgs: a.nodeArgsA } : {}) },
    { ...(nodeB ? { node: nodeB } : {}), ...(a.envB ? { env: a.envB } : {}), ...(a.nodeArgsB ? { nodeArgs: a.nodeArgsB } : {}) },
  ];
}

/** The request a run tool's arguments describe; `cwd` already resolved inside the roots. */
export function agentRunOf(tool: ToolName, a: RunArguments, cwd: string): AgentRun {
  const base = KIND[tool]!;
  const kind: AgentRunKind = base === 'profile' && a.script ? 'script' : base;
  if (kind === 'bench' && a.pairs !== undefined && !a.compare) throw new HotpathError(ErrorCode.InvalidOption, '`pairs` counts the pairs of a task comparison: give `compare: [A, B]` with it, or leave `pairs` out (`runs` sets how many processes run the file).');
  const command = a.command ?? [];
  return {
    tool, kind, command, cwd, env: a.env ?? {}, load: loadOf(a),
    ...(a.port !== undefined ? { port: a.port } : {}),
    ...(a.memory ? { memory: true } : {}),
    ...(a.runs !== undefined ? { runs: a.runs } : {}),
    name: a.name ?? (command.length ? baselineNameFromCommand(command) : path.basename(a.file ?? 'bench').replace(/\W+/g, '-')),
    ...(a.timeout !== undefined ? { timeoutMs: a.timeout * 1000 } : {}),
    ...(kind === 'compare' ? { compare: { sides: sidesOf(a), script: Boolean(a.script), ...(a.pairs !== undefined ? { pairs: a.pairs } : {}), ...(a.budget !== undefined ? { budgetSeconds: a.budget } : {}) } } : {}),
    ...(kind === 'startup' && (a.node || a.base) ? { startup: { ...(a.node ? { nodes: [a.node[0], a.node[1]] as [string, string] } : {}), ...(a.base ? { base: a.base } : {}) } } : {}),
    ...(kind === 'bench' ? { bench: { file: path.resolve(cwd, a.file!), ...(a.tasks ? { tasks: a.tasks } : {}), ...(a.compare ? { compareTasks: [a.compare[0], a.compare[1]] as [string, string] } : {}), ...(a.pairs !== undefined ? { pairs: a.pairs } : {}) } } : {}),
    ...(kind === 'leak' && (a.rung !== undefined || a.idle !== undefined) ? { leak: { ...(a.rung !== undefined ? { rungRequests: a.rung } : {}), ...(a.idle !== undefined ? { idleSeconds: a.idle } : {}) } } : {}),
  };
}

/** A word is quoted as a POSIX shell would need it (for reading only: nothing is run through a shell). */
const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** The exact command and what Hotpath does with it, for the confirmation a person answers. */
export function describeRun(run: AgentRun): string {
  const env = Object.entries(run.env).map(([k, v]) => `${k}=${quote(v)} `).join('');
  const line = run.kind === 'bench' ? `node ${quote(run.bench!.file)}` : `${env}${run.command.map(quote).join(' ')}`;
  const what: Record<AgentRunKind, string> = {
    profile: 'profile it under HTTP load on 127.0.0.1', script: 'profile it until it exits', baseline: `measure it ${run.runs ?? 3} times under load (baseline "${run.name}")`,
    verify: `measure it under load and compare with baseline "${run.name}"`, compare: 'run two variants of it alternately under load and compare them',
    leak: 'check its heap for a leak under load', startup: 'time its cold starts', bench: 'run the benchmark file in fresh processes',
  };
  return `${line}\n(in ${run.cwd}; Hotpath will ${what[run.kind]}, then stop it)`;
}

/** Runs the request on the core workflows, as the CLI does. */
export async function runOnCore(run: AgentRun, deps: WorkflowDeps): Promise<RunResultAny> {
  const target = { command: run.command, cwd: run.cwd, env: run.env, ...(run.port !== undefined ? { port: run.port } : {}) };
  const name = run.name;
  switch (run.kind) {
    case 'profile': {
      const { profileWithLoad } = await import('../workflow/profileWithLoad');
      return profileWithLoad({ ...target, load: run.load, samplingIntervalMicros: 1000, name, limit: 20, ...(run.memory ? { memoryIntervalBytes: 32768 } : {}) }, deps);
    }
    case 'script': {
      const { profileScript } = await import('../workflow/profileScript');
      return profileScript({ command: run.command, cwd: run.cwd, env: run.env, samplingIntervalMicros: 1000, name, limit: 20, timeoutMs: run.timeoutMs ?? 300_000 }, deps);
    }
    case 'baseline': {
      const { establishBaseline } = await import('../workflow/baseline');
      return establishBaseline({ ...target, load: run.load, runs: run.runs ?? 3, name }, deps);
    }
    case 'verify': {
      const { verifyAgainstBaseline } = await import('../workflow/baseline');
      return verifyAgainstBaseline({ ...target, load: run.load, runs: run.runs, name }, deps);
    }
    case 'leak': {
      const { checkForLeaks } = await import('../workflow/leakCheck');
      return checkForLeaks({ ...target, load: run.load, name, ...(run.leak ?? {}) }, deps);
    }
    case 'compare': {
      const { compareVariants } = await import('../workflow/compare');
      const c = run.compare!;
      return compareVariants({
        ...target, sides: c.sides, mode: c.script ? 'script' : 'http', load: run.load, name: `${name}-compare`,
        interleave: c.pairs ? { fixedPairs: c.pairs } : c.budgetSeconds ? { budgetMs: c.budgetSeconds * 1000 } : undefined,
      }, deps);
    }
    case 'startup': {
      if (run.startup) {
        const { runStartupVariants } = await import('../workflow/startupCompare');
        return runStartupVariants({ command: run.command, cwd: run.cwd, env: run.env, ...(run.startup.nodes ? { nodes: run.startup.nodes } : {}), ...(run.startup.base ? { base: run.startup.base } : {}), bisect: false, options: {} }, deps);
      }
      const { measureStartup } = await import('../workflow/startup');
      return measureStartup({ command: run.command, cwd: run.cwd, env: run.env, ...(run.runs !== undefined ? { runs: run.runs } : {}), name, limit: 20 }, deps);
    }
    case 'bench': {
      const { runBench } = await import('../workflow/bench');
      const b = run.bench!;
      return runBench({ file: b.file, cwd: run.cwd, node: process.execPath, env: run.env, ...(run.runs !== undefined ? { runs: run.runs } : {}), ...(b.tasks ? { tasks: b.tasks } : {}), ...(b.compareTasks ? { compareTasks: b.compareTasks } : {}), ...(b.pairs !== undefined ? { pairs: b.pairs } : {}) }, deps);
    }
  }
}
