import * as vscode from 'vscode';
import { showError } from '../notify';
import { discoverRuntimes } from '../../core/runtimes/discover';
import { parseVersionSpec } from '../../core/runtimes/version';
import { recentCommits, repositoryRoot, workingTreeState } from '../../core/variants/git';
import { revisionRows, runtimeRows, type PickRow } from './pickItems';
import { STAY } from '../pickerFocus';

type Item = vscode.QuickPickItem & { value?: string };
const toItems = (rows: PickRow[]): Item[] => rows.map((r) => ({ ...r }));

/** A revision to compare the working tree with: recent commits, or one typed in. Undefined when cancelled. */
export async function pickRevision(cwd: string): Promise<string | undefined> {
  if (!(await repositoryRoot(cwd))) {
    void showError(`Hotpath: ${cwd} is not in a git repository, so there is no revision to compare with. "Hotpath: Compare Node Versions…" compares runtimes instead.`);
    return undefined;
  }
  const [commits, state] = await Promise.all([recentCommits(cwd, 30), workingTreeState(cwd)]);
  const pick = await vscode.window.showQuickPick(toItems(revisionRows(commits, state.dirty)), {
    title: 'Hotpath: compare the working tree (B) with which revision (A)?',
    placeHolder: 'A runs from a temporary git worktree (dependencies installed if its lock file differs); both sides run interleaved',
    matchOnDescription: true,
    ...STAY,
  });
  if (!pick) return undefined;
  if (pick.value) return pick.value;
  const typed = await vscode.window.showInputBox({ title: 'Hotpath: revision to compare with', prompt: 'A commit, branch or tag, e.g. main, v1.2.0, HEAD~3', ...STAY, validateInput: (v) => (v.trim() && !v.trim().startsWith('-') ? undefined : 'A revision, e.g. HEAD~1') });
  return typed?.trim() || undefined;
}

/** One Node runtime (a binary path, or a version to install); undefined when cancelled. */
async function pickRuntime(title: string, placeHolder: string, exclude?: string): Promise<string | undefined> {
  const runtimes = await discoverRuntimes();
  const pick = await vscode.window.showQuickPick(toItems(runtimeRows(runtimes, exclude)), { title, placeHolder, matchOnDescription: true, ...STAY });
  if (!pick) return undefined;
  if (pick.value) return pick.value;
  const typed = await vscode.window.showInputBox({
    ...STAY,
    title: 'Hotpath: Node version from the npm registry', prompt: 'A version, e.g. 26, 24.1 or 22.23.3: the newest matching release is downloaded (with progress) into Hotpath\'s cache',
    validateInput: (v) => (parseVersionSpec(v) ? undefined : 'A Node.js version, e.g. 26 or 22.23.3'),
  });
  return typed?.trim() || undefined;
}

/** The two runtimes of a comparison: A, the reference, then B. */
export async function pickRuntimes(): Promise<[string, string] | undefined> {
  const a = await pickRuntime('Hotpath: compare Node versions — A, the reference', 'Installed Node versions (nvm, fnm, Volta, asdf, PATH, Hotpath\'s cache)');
  if (!a) return undefined;
  const b = await pickRuntime('Hotpath: compare Node versions — B, compared with A', 'The version to measure against A', a);
  return b ? [a, b] : undefined;
}
