/**
 * The two sides of a comparison: what each runs (a git revision from a worktree or the working tree,
 * a Node runtime, environment variables, node flags) turned into a concrete command, folder and
 * environment, with a label that names what differs. Resolving may install: a revision's dependencies
 * when its lock file differs, a Node version from the npm registry.
 */
import * as path from 'node:path';
import { type CancellationToken, throwIfCancelled } from '../common/cancellation';
import { invalidOption } from '../common/errors';
import type { Logger } from '../common/logger';
import type { InstallProgress } from '../runtimes/install';
import { resolveRuntime } from '../runtimes/resolve';
import type { NodeRuntime } from '../runtimes/types';
import type { SideKey } from '../stats/metrics';
import { withV } from '../runtimes/version';
import { planDependencies, provideDependencies, runLogged } from './dependencies';
import { repositoryRoot, workingTreeState } from './git';
import { checkoutRevision, inWorktree, type Worktree } from './worktree';


export interface SideSpec {
  /** A name for the side; derived from what differs when absent. */
  label?: string;
  /** A git revision to run from a temporary worktree; absent: the working tree as it is. */
  base?: string;
  /** A Node version ("24", "22.23.3") or the path of a node binary; absent: whatever the command starts. */
  node?: string;
  /** Variables for this side only, over the common ones. */
  env?: Record<string, string>;
  /** Node flags for this side, e.g. ['--max-semi-space-size=64']. */
  nodeArgs?: string[];
}

export interface CommonTarget {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Run in each side's folder before measuring (e.g. `npm run build`); through the shell. */
  prepare?: string;
}

export interface ResolvedSide {
  key: SideKey;
  label: string;
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  runtime?: NodeRuntime;
  /** The version the app must report ("v24.21.0") when a runtime was asked for. */
  expectedNodeVersion?: string;
  /** The commit the side runs (a worktree's, or the working tree's HEAD); null outside git. */
  gitRev: string | null;
  /** Uncommitted changes in the side's tree (false for a worktree); null outside git. */
  gitDirty: boolean | null;
  /** Paths in profiles are matched relative to this (the repository or worktree root); inferred from the profile outside git. */
  projectRoot?: string;
  /** How the side's dependencies were provided, for a revision in a worktree. */
  dependencies?: string;
  /** The variables and node flags that make this side differ, for headers and JSON. */
  envShown: Record<string, string>;
  nodeArgs: string[];
}

export interface ResolvedSides {
  sides: [ResolvedSide, ResolvedSide];
  /** Removes worktrees. Idempotent. */
  dispose(): Promise<void>;
}

export interface ResolveDeps {
  token: CancellationToken;
  logger: Logger;
  /** Progress of the preparation (worktree, install, Node download). */
  onProgress: (message: string, fraction?: number) => void;
}

const isNodeCommand = (word: string) => /^node(\.exe)?$/i.test(path.basename(word)) || word === process.execPath;

/**
 * The command as one side runs it: a leading `node` replaced by the side's runtime (and the runtime's
 * folder first on PATH, so `npm start` and scripts that call `node` get it too); node flags right
 * after `node`, or in NODE_OPTIONS when the command is a wrapper (npm, tsx) that starts node itself.
 */
export function sideCommand(command: string[], env: Record<string, string | undefined>, runtime: NodeRuntime | undefined, nodeArgs: string[]): { command: string[]; env: Record<string, string | undefined> } {
  const out = [...command];
  const outEnv = { ...env };
  if (runtime) {
    if (isNodeCommand(out[0])) out[0] = runtime.path;
    outEnv.PATH = [path.dirname(runtime.path), env.PATH ?? process.env.PATH ?? ''].filter(Boolean).join(path.delimiter);
  }
  if (nodeArgs.length) {
    if (isNodeCommand(out[0]) || (runtime && out[0] === runtime.path)) out.splice(1, 0, ...nodeArgs);
    else outEnv.NODE_OPTIONS = [env.NODE_OPTIONS ?? process.env.NODE_OPTIONS, ...nodeArgs].filter(Boolean).join(' ');
  }
  return { command: out, env: outEnv };
}

/** Labels from what differs between the two specs, e.g. "HEAD~1 (1a2b3c4)" vs "working tree". */
function labels(specs: [SideSpec, SideSpec], resolved: Array<Omit<ResolvedSide, 'label'>>): [string, string] {
  const parts: [string[], string[]] = [[], []];
  const [a, b] = specs;
  if (a.base !== undefined || b.base !== undefined) {
    resolved.forEach((s, i) => {
      const spec = specs[i];
      const short = (s.gitRev ?? '').slice(0, 7);
      // A commit id picked from a list reads as its short form; a name (HEAD~1, main) keeps it, with the id.
      const base = spec.base === undefined ? undefined : s.gitRev && s.gitRev.startsWith(spec.base.toLowerCase()) ? short : `${spec.base} (${short})`;
      parts[i].push(base ?? `working tree${s.gitRev ? ` (${short}${s.gitDirty ? ' + changes' : ''})` : ''}`);
    });
  }
  if (resolved[0].runtime?.version !== resolved[1].runtime?.version) {
    resolved.forEach((s, i) => parts[i].push(s.runtime ? `Node ${s.runtime.version}` : 'default Node'));
  }
  const keys = [...new Set([...Object.keys(a.env ?? {}), ...Object.keys(b.env ?? {})])].filter((k) => a.env?.[k] !== b.env?.[k]).sort();
  if (keys.length) specs.forEach((s, i) => parts[i].push(keys.map((k) => (s.env?.[k] === undefined ? `${k} unset` : `${k}=${s.env[k]}`)).join(' ')));
  if ((a.nodeArgs ?? []).join(' ') !== (b.nodeArgs ?? []).join(' ')) specs.forEach((s, i) => parts[i].push(s.nodeArgs?.length ? s.nodeArgs.join(' ') : 'no node flags'));
  const derived = parts.map((p, i) => (p.length ? p.join(', ') : i === 0 ? 'A' : 'B'));
  return [a.label ?? derived[0], b.label ?? derived[1]];
}

/**
 * Resolves both sides. A runtime named by version is looked up once for both sides. On failure or
 * cancellation every worktree made so far is removed before the error propagates.
 */
export async function resolveSides(target: CommonTarget, specs: [SideSpec, SideSpec], deps: ResolveDeps): Promise<ResolvedSides> {
  const worktrees: Worktree[] = [];
  const dispose = async () => { for (const w of worktrees.splice(0)) await w.remove(); };
  try {
    const runtimes = new Map<string, NodeRuntime>();
    const runtimeFor = async (text: string | undefined): Promise<NodeRuntime | undefined> => {
      if (text === undefined) return undefined;
      let r = runtimes.get(text);
      if (!r) {
        deps.onProgress(`Finding Node ${text}`);
        r = await resolveRuntime(text, { installDeps: { token: deps.token, onProgress: (p: InstallProgress) => deps.onProgress(p.message, p.fraction) } });
        deps.logger.info(`Node ${text}: ${r.version} at ${r.path} (${r.source})`);
        runtimes.set(text, r);
      }
      return r;
    };
    const repoRoot = await repositoryRoot(target.cwd);
    const state = repoRoot ? await workingTreeState(target.cwd) : { head: null, dirty: null };
    const resolved: Array<Omit<ResolvedSide, 'label'>> = [];
    for (const [i, spec] of specs.entries()) {
      throwIfCancelled(deps.token);
      const key: SideKey = i === 0 ? 'a' : 'b';
      const runtime = await runtimeFor(spec.node);
      const nodeArgs = spec.nodeArgs ?? [];
      let cwd = target.cwd;
      let command = target.command;
      let gitRev: string | null = state.head;
      let gitDirty: boolean | null = state.dirty;
      let projectRoot: string | undefined = repoRoot;
      let dependencies: string | undefined;
      if (spec.base !== undefined) {
        if (!repoRoot) throw invalidOption(`--base compares with a git revision, but ${target.cwd} is not inside a git repository.`);
        deps.onProgress(`Checking out ${spec.base} in a temporary git worktree`);
        const wt = await checkoutRevision(target.cwd, spec.base, deps.logger);
        worktrees.push(wt);
        cwd = inWorktree(target.cwd, wt);
        command = target.command.map((word) => inWorktree(word, wt));
        gitRev = wt.sha;
        gitDirty = false;
        projectRoot = wt.root;
        const plan = planDependencies(repoRoot, wt.root, path.relative(repoRoot, target.cwd));
        dependencies = plan.action === 'install' ? `installed (${plan.reason}: ${plan.command?.join(' ')})` : plan.action === 'reuse' ? `reused the working tree's node_modules (${plan.reason})` : plan.reason;
        deps.onProgress(plan.action === 'install' ? `Installing the dependencies of ${spec.base}: ${plan.reason}, running ${plan.command?.join(' ')}` : `Dependencies of ${spec.base}: ${dependencies}`);
        deps.logger.info(`Dependencies of ${spec.base}: ${dependencies}`);
        await provideDependencies(plan, repoRoot, wt.root, deps);
      }
      const env = { ...target.env, ...spec.env };
      const run = sideCommand(command, env, runtime, nodeArgs);
      if (target.prepare) {
        deps.onProgress(`Preparing ${spec.base ?? 'the working tree'}: ${target.prepare}`);
        await runLogged([target.prepare], cwd, { ...deps, shell: true });
      }
      resolved.push({
        key, command: run.command, cwd, env: run.env, runtime, expectedNodeVersion: runtime ? withV(runtime.version) : undefined,
        gitRev, gitDirty, projectRoot, dependencies, envShown: { ...spec.env }, nodeArgs,
      });
    }
    const [la, lb] = labels(specs, resolved);
    return { sides: [{ ...resolved[0], label: la }, { ...resolved[1], label: lb }], dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
