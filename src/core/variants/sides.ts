/**
 * The two sides of a comparison: what each runs (a git revision from a worktree or the working tree,
 * a Node runtime, environment variables, node flags) turned into a concrete command, folder and
 * environment, with a label that names what differs. Resolving may install: a revision's dependencies
 * when its lock file differs, a Node version from the npm registry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, throwIfCancelled } from '../common/cancellation';
import { invalidOption } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Warning } from '../common/warnings';
import type { InstallProgress } from '../runtimes/install';
import { resolveRuntime } from '../runtimes/resolve';
import type { NodeRuntime } from '../runtimes/types';
import type { SideKey } from '../stats/metrics';
import { withV } from '../runtimes/version';
import { type DependencyPlan, planDependencies, type ProvidedDependencies, provideDependencies, runLogged } from './dependencies';
import { entryFile, isNodeCommand } from './entry';
import { repositoryRoot, treeOf, workingTreeState } from './git';
import { inPackage, realPath, repositoryRelative } from './paths';
import { checkSidesDiffer, COMPARE_WORDING, type SideIdentity, type SidesWording } from './sameSides';
import { checkoutRevision, inWorktree, resolveCommit, type Worktree } from './worktree';


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
  /** Run even when both sides resolve to the same code, node and settings: an A/A comparison on purpose. */
  allowSameSides?: boolean;
}

/** One variant resolved: what it runs, and the facts that prove it (folder, entry file, revision, node, dependencies). */
export interface ResolvedVariant {
  /** How messages and the log name it: `A`, `B`, or a list entry's number. */
  name: string;
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
  /** How the side's dependencies were provided: a worktree's reused, copied or installed; the working tree's own. */
  dependencies: string;
  /** The real path of the file the command starts (null when the command line does not name one). */
  entry: string | null;
  /** The node binary the side runs (real path): its runtime, else the first `node` on PATH. */
  nodePath: string | null;
  /** The variables and node flags that make this side differ, for headers and JSON. */
  envShown: Record<string, string>;
  nodeArgs: string[];
}

export interface ResolvedSide extends ResolvedVariant {
  key: SideKey;
}

/**
 * What a result states of each side, to prove what it ran (CLI, `--json` `sides[]`, VS Code): the label,
 * the command as run, the folder (a revision's temporary worktree) and tree, the entry file, the revision,
 * the node binary, where the dependencies came from, and the variables and flags that set it apart.
 */
export interface SideFacts {
  label: string;
  command: string[];
  /** As the app reported it in the runs ("v24.21.0"); null when it did not say. */
  nodeVersion: string | null;
  gitRev: string | null;
  gitDirty: boolean | null;
  /** The variables that set this side apart (its own --env-a/--env-b). */
  env: Record<string, string>;
  nodeArgs: string[];
  cwd: string;
  /** How the side's dependencies were provided (a revision's reused, copied or installed; the working tree's own). */
  dependencies: string;
  /** The real path of the file the command starts; null when the command line names none. */
  entry: string | null;
  /** The node binary the side ran (real path). */
  nodePath: string | null;
  /** The side's tree: the repository or the revision's temporary worktree. */
  root: string | null;
}

/** The facts of a resolved side, with the Node version the app reported (null when it did not say). */
export function sideFacts(side: ResolvedVariant, nodeVersion: string | null): SideFacts {
  return {
    label: side.label, command: side.command, nodeVersion, gitRev: side.gitRev, gitDirty: side.gitDirty,
    env: side.envShown, nodeArgs: side.nodeArgs, cwd: side.cwd, dependencies: side.dependencies, entry: side.entry, nodePath: side.nodePath,
    root: side.projectRoot ?? null,
  };
}

export interface ResolvedVariants {
  sides: ResolvedVariant[];
  /** What the result must say about the sides themselves (an A/A run on purpose, one Node version from two binaries). */
  warnings: Warning[];
  /** Removes worktrees. Idempotent. */
  dispose(): Promise<void>;
}

export interface ResolvedSides {
  sides: [ResolvedSide, ResolvedSide];
  /** What the result must say about the sides themselves (an A/A run on purpose, one Node version from two binaries). */
  warnings: Warning[];
  /** Removes worktrees. Idempotent. */
  dispose(): Promise<void>;
}

export interface ResolveDeps {
  token: CancellationToken;
  logger: Logger;
  /** Progress of the preparation (worktree, install, Node download). */
  onProgress: (message: string, fraction?: number) => void;
}

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

/**
 * A revision as the user named it, with the commit it resolved to: "HEAD~1 (1a2b3c4)", "c2 (c2b85b3)".
 * A commit id (7 to 40 hex digits, as git abbreviates them) reads as its short form alone. Shorter hex
 * names are names: a tag "c2" whose commit happens to start with c2 (1 in 256) kept its name only by
 * luck before (census48 run 3: the bisect's "c2 (…)" read "c2b85b3").
 */
export function revisionLabel(base: string, gitRev: string): string {
  const short = gitRev.slice(0, 7);
  const isCommitId = /^[0-9a-f]{7,40}$/i.test(base) && gitRev.toLowerCase().startsWith(base.toLowerCase());
  return isCommitId ? short : `${base} (${short})`;
}

/**
 * Labels from what differs between the specs, e.g. "HEAD~1 (1a2b3c4)" vs "working tree", "Node 22.23.3"
 * vs "Node 24.21.0"; a spec's own label wins. Sides that differ in nothing shown (an A/A run on purpose)
 * are told apart by their names.
 */
function labels(specs: readonly SideSpec[], resolved: ReadonlyArray<Omit<ResolvedVariant, 'label'>>): string[] {
  const parts: string[][] = specs.map(() => []);
  const differ = <T>(values: T[]) => values.some((v) => v !== values[0]);
  if (specs.some((s) => s.base !== undefined)) {
    resolved.forEach((s, i) => {
      const spec = specs[i];
      const short = (s.gitRev ?? '').slice(0, 7);
      const base = spec.base === undefined ? undefined : revisionLabel(spec.base, s.gitRev ?? '');
      parts[i].push(base ?? `working tree${s.gitRev ? ` (${short}${s.gitDirty ? ' + changes' : ''})` : ''}`);
    });
  }
  if (differ(resolved.map((s) => s.runtime?.version))) {
    resolved.forEach((s, i) => parts[i].push(s.runtime ? `Node ${s.runtime.version}` : 'default Node'));
  } else if (resolved[0].runtime && differ(resolved.map((s) => s.nodePath))) {
    // One version from several binaries: the binary as asked for tells them apart.
    resolved.forEach((s, i) => parts[i].push(`Node ${s.runtime!.version} (${specs[i].node})`));
  }
  const keys = [...new Set(specs.flatMap((s) => Object.keys(s.env ?? {})))].filter((k) => differ(specs.map((s) => s.env?.[k]))).sort();
  if (keys.length) specs.forEach((s, i) => parts[i].push(keys.map((k) => (s.env?.[k] === undefined ? `${k} unset` : `${k}=${s.env[k]}`)).join(' ')));
  if (differ(specs.map((s) => (s.nodeArgs ?? []).join(' ')))) specs.forEach((s, i) => parts[i].push(s.nodeArgs?.length ? s.nodeArgs.join(' ') : 'no node flags'));
  const derived = parts.map((p, i) => (p.length ? p.join(', ') : resolved[i].name));
  const out = specs.map((s, i) => s.label ?? derived[i]);
  // Two entries alike (an A/A run asked for): each keeps its name, so steps and results say which.
  return out.map((l, i) => (out.indexOf(l) !== i || out.lastIndexOf(l) !== i ? `${l} [${resolved[i].name}]` : l));
}

/** The first `node` on a PATH, as a real path (what a side without a runtime of its own starts). */
function nodeOnPath(searchPath: string | undefined): string | null {
  const names = process.platform === 'win32' ? ['node.exe'] : ['node'];
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const file = path.join(dir, name);
      try { fs.accessSync(file, fs.constants.X_OK); if (fs.statSync(file).isFile()) return realPath(file); } catch { /* next */ }
    }
  }
  return null;
}

/** A word of the command as the worktree's: an absolute path (also `--flag=/path`) inside the repository moves there. */
function commandWordIn(word: string, wt: Worktree): string {
  const flag = /^(-[^=]+=)(.+)$/.exec(word);
  if (flag && path.isAbsolute(flag[2])) return `${flag[1]}${inWorktree(flag[2], wt)}`;
  return inWorktree(word, wt);
}

const LINKS_SHOWN = 4;

/** How a revision's dependencies were provided, in words: the plan, and which workspace packages are the revision's. */
function dependenciesText(plan: DependencyPlan, provided: ProvidedDependencies): string {
  const head = plan.action === 'install' ? `installed (${plan.reason}: ${plan.command?.join(' ')})`
    : plan.action === 'reuse' ? `reused the working tree's node_modules (${plan.reason})`
      : plan.action === 'copy' ? `copied the working tree's node_modules, so --prepare writes only into the revision's (${plan.reason})`
        : plan.reason;
  const links = provided.relinked.map((r) => `${r.link} → ${r.target}`);
  const shown = links.length > LINKS_SHOWN ? [...links.slice(0, LINKS_SHOWN), `${links.length - LINKS_SHOWN} more`] : links;
  const absent = provided.absent.length ? `; not in the revision: ${provided.absent.join(', ')}` : '';
  return `${head}${shown.length ? `; workspace packages from the revision: ${shown.join(', ')}` : ''}${absent}`;
}

/** The wording of a pair's messages: compare's, or another command's (VariantsWording). */
function pairWording(wording: VariantsWording, names: [string, string], count: number): SidesWording {
  return {
    command: wording.command, revisionFlag: wording.revisionFlag, nodeFlag: wording.nodeFlag, names,
    subject: count === 2 ? 'Both sides' : `Entries ${names[0]} and ${names[1]} of ${wording.listFlag ?? 'the list'}`,
  };
}

/**
 * Before anything is checked out: the commit each `base` names, and whether the sides can differ at
 * all. Sides that would run the same files on the same node with the same settings are refused (in a
 * list, any two of them), and so is a revision whose command file lies outside the repository (the
 * revision cannot change it) — unless `allowSame`, when the result says so instead.
 */
async function checkBeforeCheckout(
  target: CommonTarget, specs: readonly SideSpec[],
  ctx: { repoRoot: string | undefined; state: { head: string | null; dirty: boolean | null }; runtimes: Array<NodeRuntime | undefined>; allowSame: boolean; names: string[]; wording: VariantsWording },
): Promise<{ commits: Array<string | undefined>; warnings: Warning[] }> {
  const { repoRoot, state, wording } = ctx;
  const commits: Array<string | undefined> = [];
  for (const spec of specs) {
    if (spec.base === undefined) { commits.push(undefined); continue; }
    if (!repoRoot) throw invalidOption(`${wording.revisionFlag} compares git revisions, but ${target.cwd} is not inside a git repository.`);
    commits.push(await resolveCommit(repoRoot, spec.base));
  }
  const identity = async (i: number): Promise<SideIdentity> => {
    const spec = specs[i];
    const runtime = ctx.runtimes[i];
    const node = runtime ? realPath(runtime.path) : nodeOnPath(spec.env?.PATH ?? target.env?.PATH ?? process.env.PATH);
    const base = { node, nodeVersion: runtime?.version ?? null, env: { ...spec.env }, nodeArgs: spec.nodeArgs ?? [] };
    const sha = commits[i];
    if (sha) return { ...base, code: `tree ${await treeOf(repoRoot!, sha)}`, codeText: `${wording.revisionFlag} ${spec.base} (${sha.slice(0, 7)})` };
    if (!repoRoot || !state.head) return { ...base, code: `folder ${realPath(target.cwd)}`, codeText: 'the working tree' };
    if (state.dirty) return { ...base, code: 'working tree with changes', codeText: `the working tree (${state.head.slice(0, 7)} + uncommitted changes)` };
    return { ...base, code: `tree ${await treeOf(repoRoot, state.head)}`, codeText: `the working tree (${state.head.slice(0, 7)}, no uncommitted changes)` };
  };
  const ids: SideIdentity[] = [];
  for (let i = 0; i < specs.length; i++) ids.push(await identity(i));
  const warnings: Warning[] = [];
  for (let i = 0; i < specs.length; i++) {
    for (let j = i + 1; j < specs.length; j++) {
      const found = checkSidesDiffer([specs[i], specs[j]], [ids[i], ids[j]], ctx.allowSame, pairWording(wording, [ctx.names[i], ctx.names[j]], specs.length));
      for (const w of found) if (!warnings.some((x) => x.code === w.code && x.message === w.message)) warnings.push(w);
    }
  }
  if (repoRoot && commits.some(Boolean)) {
    // The file the command starts must be the revision's: one outside the repository is the same file on every side.
    const entry = entryFile(target.command, target.cwd);
    if (entry && !inPackage(entry) && repositoryRelative(repoRoot, entry) === undefined) {
      const message = `${entry}, the file the command starts, is outside the repository ${repoRoot}, so ${wording.revisionFlag} cannot check out another version of it: ${specs.length === 2 ? 'both sides' : 'every side'} would run that one file.`;
      if (!ctx.allowSame) throw invalidOption(`${message} Run a file inside the repository (its path through a symlink is fine), or, if that file loads the revision's code from its working folder, add --allow-same-sides.`);
      warnings.push({ code: 'ENTRY_OUTSIDE_REPOSITORY', message: `${message} Only what it loads from the side's folder differs (--allow-same-sides).` });
    }
  }
  return { commits, warnings };
}

/**
 * How a command names its sides, for refusals and warnings: compare's pair (the default), startup's
 * pair, or a list (bisect) whose entries are compared with each other.
 */
export interface VariantsWording {
  command: string;
  revisionFlag: string;
  nodeFlag: string;
  /** A list's flag (`--bisect-node`), naming the entries of a refusal. */
  listFlag?: string;
}

export const COMPARE_VARIANTS: VariantsWording = { command: COMPARE_WORDING.command, revisionFlag: COMPARE_WORDING.revisionFlag, nodeFlag: COMPARE_WORDING.nodeFlag };

/**
 * Resolves two or more variants of one command (a comparison's pair, a bisect's list): runtimes named by
 * version are looked up once. Sides that cannot differ are refused before anything is checked out
 * (checkBeforeCheckout). Paths are matched by their real location, so a folder reached through a symlink
 * runs the revision too. On failure or cancellation every worktree made so far is removed before the
 * error propagates. `names` name the sides in messages and the log (default A, B, … or 1, 2, …).
 */
export async function resolveVariants(target: CommonTarget, specs: readonly SideSpec[], deps: ResolveDeps, options: { wording?: VariantsWording; names?: string[] } = {}): Promise<ResolvedVariants> {
  const worktrees: Worktree[] = [];
  const dispose = async () => { for (const w of worktrees.splice(0)) await w.remove(); };
  const names = options.names ?? specs.map((_, i) => (specs.length === 2 ? (i === 0 ? 'A' : 'B') : String(i + 1)));
  const wording = options.wording ?? COMPARE_VARIANTS;
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
    const allowSame = target.allowSameSides === true;

    // What each side runs, known before anything is checked out or installed.
    const sideRuntimes: Array<NodeRuntime | undefined> = [];
    for (const spec of specs) sideRuntimes.push(await runtimeFor(spec.node));
    const { commits, warnings } = await checkBeforeCheckout(target, specs, { repoRoot, state, runtimes: sideRuntimes, allowSame, names, wording });

    const resolved: Array<Omit<ResolvedVariant, 'label'>> = [];
    for (const [i, spec] of specs.entries()) {
      throwIfCancelled(deps.token);
      const runtime = sideRuntimes[i];
      const nodeArgs = spec.nodeArgs ?? [];
      let cwd = target.cwd;
      let command = target.command;
      let gitRev: string | null = state.head;
      let gitDirty: boolean | null = state.dirty;
      let projectRoot: string | undefined = repoRoot;
      let dependencies = repoRoot ? 'the working tree\'s own (nothing reused)' : 'the folder\'s own (nothing reused)';
      let worktree: Worktree | undefined;
      if (spec.base !== undefined) {
        deps.onProgress(`Checking out ${spec.base} in a temporary git worktree`);
        const wt = await checkoutRevision(target.cwd, commits[i]!, deps.logger);
        worktrees.push(wt);
        worktree = wt;
        cwd = inWorktree(target.cwd, wt);
        command = target.command.map((word) => commandWordIn(word, wt));
        gitRev = wt.sha;
        gitDirty = false;
        projectRoot = wt.root;
        const plan = planDependencies(wt.repoRoot, wt.root, path.relative(wt.root, cwd), { writable: target.prepare !== undefined });
        deps.onProgress(plan.action === 'install' ? `Installing the dependencies of ${spec.base}: ${plan.reason}, running ${plan.command?.join(' ')}`
          : plan.action === 'copy' ? `Copying node_modules for ${spec.base} (--prepare may write into them)` : `Dependencies of ${spec.base}: ${plan.reason}`);
        const provided = await provideDependencies(plan, wt.repoRoot, wt.root, deps);
        dependencies = dependenciesText(plan, provided);
        deps.logger.info(`Dependencies of ${spec.base}: ${dependencies}`);
      }
      const env = { ...target.env, ...spec.env };
      const run = sideCommand(command, env, runtime, nodeArgs);
      if (target.prepare) {
        deps.onProgress(`Preparing ${spec.base ?? 'the working tree'}: ${target.prepare}`);
        await runLogged([target.prepare], cwd, { ...deps, shell: true });
      }
      // After the prepare, which may build the file the command starts.
      const entry = entryFile(run.command, cwd);
      if (worktree && entry && !inPackage(entry) && repositoryRelative(realPath(worktree.root), entry) === undefined && !allowSame) {
        throw invalidOption(`Side ${names[i]} would start ${entry}, which is not in the worktree of ${spec.base} (${realPath(worktree.root)}): it would not run the revision. Run the command with a path inside the repository.`);
      }
      const nodePath = runtime ? realPath(runtime.path) : nodeOnPath(run.env.PATH ?? process.env.PATH);
      resolved.push({
        name: names[i], command: run.command, cwd, env: run.env, runtime, expectedNodeVersion: runtime ? withV(runtime.version) : undefined,
        gitRev, gitDirty, projectRoot, dependencies, entry, nodePath, envShown: { ...spec.env }, nodeArgs,
      });
    }
    const shown = labels(specs, resolved);
    const sides: ResolvedVariant[] = resolved.map((r, i) => ({ ...r, label: shown[i] }));
    for (const side of sides) deps.logger.info(sideSummary(side));
    return { sides, warnings, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** Resolves a comparison's two sides (resolveVariants), keyed a and b. */
export async function resolveSides(target: CommonTarget, specs: [SideSpec, SideSpec], deps: ResolveDeps): Promise<ResolvedSides> {
  const { sides, warnings, dispose } = await resolveVariants(target, specs, deps);
  return { sides: [{ ...sides[0], key: 'a' }, { ...sides[1], key: 'b' }], warnings, dispose };
}

/**
 * One line per side for the log (CLI --verbose, VS Code's output channel, where it stays after the
 * tooltip is gone): what proves what the side ran.
 */
function sideSummary(side: ResolvedVariant): string {
  const git = side.gitRev ? `git ${side.gitRev.slice(0, 10)}${side.gitDirty ? ' + uncommitted changes' : ''}` : 'not in git';
  return `Side ${side.name} "${side.label}": runs ${side.entry ?? '(no file named by the command)'} in ${side.cwd}; ${git}; node ${side.nodePath ?? '(not found on PATH)'}; dependencies: ${side.dependencies}`;
}
