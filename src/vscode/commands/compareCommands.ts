import * as vscode from 'vscode';
import { showInfo } from '../notify';
import type { SideSpec } from '../../core/variants/sides';
import { pickRevision, pickRuntimes } from '../compare/pickers';
import type { HotpathSession } from '../session';
import { compareSettings, runSettings } from '../settings';
import type { RunController } from '../workflow/runController';
import type { CompareRunRequest } from '../workflow/runs';
import { targetFor } from './runCommands';
import { requireTrust } from './trust';

export interface CompareCommandDeps {
  controller: RunController;
  state: vscode.Memento;
  session: HotpathSession;
}

/** Picks the target (as every run does), builds the request for two sides, runs it with progress. */
async function compare(deps: CompareCommandDeps, chooseSides: (cwd: string) => Promise<[SideSpec, SideSpec] | undefined>): Promise<void> {
  if (!(await requireTrust('Comparing'))) return;
  const chosen = await targetFor({ controller: deps.controller, state: deps.state }, 'compare');
  if (!chosen) return;
  const { target } = chosen;
  const sides = await chooseSides(target.cwd);
  if (!sides) return;
  const scope = vscode.Uri.file(target.cwd);
  const request: CompareRunRequest = { kind: 'compare', target, settings: runSettings(scope, target), sides, compare: compareSettings(scope) };
  deps.session.lastCompare = request;
  await deps.controller.runWithProgress(request);
}

export function registerCompareCommands(deps: CompareCommandDeps): vscode.Disposable[] {
  return [
    // `base`: a revision given by a caller (the verify notification's "Compare Interleaved" button).
    vscode.commands.registerCommand('hotpath.compareWithGitRevision', (arg?: { base?: string }) => compare(deps, async (cwd) => {
      const base = typeof arg?.base === 'string' ? arg.base : await pickRevision(cwd);
      return base ? [{ base }, {}] : undefined;
    })),
    vscode.commands.registerCommand('hotpath.compareNodeVersions', (arg?: { node?: [string, string] }) => compare(deps, async () => {
      const nodes = Array.isArray(arg?.node) && arg.node.length === 2 ? arg.node : await pickRuntimes();
      return nodes ? [{ node: nodes[0] }, { node: nodes[1] }] : undefined;
    })),
    vscode.commands.registerCommand('hotpath.compareAgain', async () => {
      const last = deps.session.lastCompare;
      if (!last) {
        void showInfo('Hotpath: no comparison yet. Run "Hotpath: Compare with Git Revision…" or "Hotpath: Compare Node Versions…".');
        return;
      }
      if (!(await requireTrust('Comparing'))) return;
      await deps.controller.runWithProgress(last);
    }),
  ];
}
