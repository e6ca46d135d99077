import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, ErrorCode, isHotpathError } from '../../core/common/errors';
import type { AnnotationStore } from '../annotations/store';
import type { FlamePanel } from '../flame/flamePanel';
import type { HotpathSession } from '../session';
import { showProfile, type ApplyContext } from '../workflow/applyResult';
import { loadedFromFile } from '../workflow/loadedProfile';
import { deleteProfile, listProfiles } from '../views/history';
import type { HotspotsView, HotspotsViewNode } from '../views/hotspotsView';
import { labelText } from '../../shared/text';
import { progressText, showError, showInfo, showWarning } from '../notify';
import { STAY } from '../pickerFocus';

export interface ProfileCommandDeps extends ApplyContext {
  session: HotpathSession;
  flame: FlamePanel;
  store: AnnotationStore;
  view: HotspotsView;
}

/** Loads a profile file with a progress notification; a malformed file gets its specific error. */
async function openProfileFile(deps: ProfileCommandDeps, file: string, before?: string): Promise<void> {
  const title = before ? `Hotpath: comparing ${path.basename(before)} → ${path.basename(file)}` : `Hotpath: opening ${path.basename(file)}`;
  try {
    // Read and parsed in a worker thread: progress by stage, Cancel stops it at once.
    const loaded = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: progressText(title), cancellable: true }, (progress, token) => {
      let done = 0;
      return loadedFromFile(file, { before, token, onProgress: (stage, fraction) => { progress.report({ message: progressText(stage), increment: Math.max(0, fraction - done) * 100 }); done = Math.max(done, fraction); } });
    });
    if (before) {
      deps.session.setProfile(loaded);
      deps.flame.show({ model: loaded.model, title: loaded.title, before: loaded.before, beforeTitle: path.basename(before), payload: loaded.payload }, { preserveFocus: false });
    } else {
      showProfile(deps, loaded, { preserveFocus: false });
    }
  } catch (err) {
    if (isHotpathError(err, ErrorCode.Cancelled)) { deps.log.info(`Opening ${file}: cancelled`); return; }
    deps.log.error(`Opening ${file}: ${errorMessage(err)}`);
    void showError(`Hotpath: ${errorMessage(err)}`);
  }
}

async function pickProfile(title: string, exclude?: string): Promise<string | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const saved = (await Promise.all(folders.map((f) => listProfiles(f.uri.fsPath)))).flat().filter((p) => p.file !== exclude);
  type Item = vscode.QuickPickItem & { file?: string };
  const items: Item[] = [
    ...saved.map((p) => ({ label: labelText(p.name), description: new Date(p.mtimeMs).toLocaleString(), detail: labelText(p.file), file: p.file })),
    { label: '$(folder-opened) Choose a profile file…', description: '.cpuprofile, pprof (.pb.gz, .pprof)', alwaysShow: true },
    { label: '$(folder-opened) Choose a 0x output folder…', alwaysShow: true, folder: true } as Item & { folder: true },
  ];
  const pick = await vscode.window.showQuickPick(items, { title, ...STAY });
  if (!pick) return undefined;
  if (pick.file) return pick.file;
  const folder = (pick as { folder?: boolean }).folder === true;
  const uris = await vscode.window.showOpenDialog(folder
    ? { canSelectMany: false, canSelectFiles: false, canSelectFolders: true, title }
    : { canSelectMany: false, filters: { 'Profiles': ['cpuprofile', 'json', 'gz', 'pprof', 'pb'] }, title });
  return uris?.[0]?.fsPath;
}

interface FocusArgs { file: string; line: number; name?: string }

export function registerProfileCommands(deps: ProfileCommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('hotpath.openProfile', async (uri?: vscode.Uri) => {
      const file = uri instanceof vscode.Uri ? uri.fsPath : await pickProfile('Hotpath: open a CPU profile');
      if (file) await openProfileFile(deps, file);
    }),
    vscode.commands.registerCommand('hotpath.showFlamegraph', async (arg?: FocusArgs | vscode.Uri) => {
      if (arg instanceof vscode.Uri) { await openProfileFile(deps, arg.fsPath); return; }
      const loaded = deps.session.profile;
      if (!loaded) {
        const file = await pickProfile('Hotpath: no profile yet — open one');
        if (file) await openProfileFile(deps, file);
        return;
      }
      if (!deps.flame.shows(loaded.model ?? loaded.payload)) deps.flame.show({ model: loaded.model, title: loaded.title, before: loaded.before, payload: loaded.payload, attribution: loaded.attribution, ...loaded.diff, decorate: deps.decorate?.(loaded), choices: deps.flameChoices?.(loaded) }, { preserveFocus: true });
      if (arg && typeof arg.file === 'string') deps.flame.focus(arg.file, arg.line, arg.name);
    }),
    vscode.commands.registerCommand('hotpath.compareProfiles', async (beforeArg?: string, afterArg?: string) => {
      const before = beforeArg ?? await pickProfile('Hotpath: compare — the BEFORE profile (e.g. the baseline run)');
      if (!before) return;
      const after = afterArg ?? await pickProfile('Hotpath: compare — the AFTER profile (e.g. after the fix)', before);
      if (!after) return;
      await openProfileFile(deps, after, before);
    }),
    vscode.commands.registerCommand('hotpath.clearAnnotations', () => {
      deps.store.clear();
      deps.session.setProfile(undefined);
    }),
    vscode.commands.registerCommand('hotpath.toggleAnnotations', () => {
      deps.store.setEnabled(!deps.store.isEnabled);
      void vscode.window.setStatusBarMessage(`Hotpath annotations ${deps.store.isEnabled ? 'shown' : 'hidden'}`, 2500);
    }),
    vscode.commands.registerCommand('hotpath.refreshView', () => deps.view.refresh()),
    vscode.commands.registerCommand('hotpath.history.open', (node?: HotspotsViewNode) => {
      if (node?.kind === 'profile') return openProfileFile(deps, node.profile.file);
    }),
    vscode.commands.registerCommand('hotpath.history.compareWithLatest', async (node?: HotspotsViewNode) => {
      if (node?.kind !== 'profile') return;
      const latest = (await listProfiles(node.folder))[0];
      if (!latest || latest.file === node.profile.file) { void showInfo('Hotpath: this is the latest profile; pick an older one to compare with it.'); return; }
      await vscode.commands.executeCommand('hotpath.compareProfiles', node.profile.file, latest.file);
    }),
    vscode.commands.registerCommand('hotpath.history.delete', async (node?: HotspotsViewNode) => {
      if (node?.kind !== 'profile') return;
      const ok = await showWarning(`Delete ${node.profile.name}?`, { modal: true }, 'Delete');
      if (ok !== 'Delete') return;
      await deleteProfile(node.profile.file);
      deps.session.historyDidChange();
    }),
    vscode.commands.registerCommand('hotpath.baselines.open', async (node?: HotspotsViewNode) => {
      const file = node?.kind === 'baseline' ? node.baseline.file : deps.session.lastBaselineFile;
      if (file) await vscode.window.showTextDocument(vscode.Uri.file(file));
      else void showInfo('Hotpath: no baseline yet. Run "Hotpath: Establish Baseline".');
    }),
    vscode.commands.registerCommand('hotpath.baselines.delete', async (node?: HotspotsViewNode) => {
      if (node?.kind !== 'baseline') return;
      const ok = await showWarning(`Delete baseline "${node.baseline.name}"?`, { modal: true }, 'Delete');
      if (ok !== 'Delete') return;
      await vscode.workspace.fs.delete(vscode.Uri.file(node.baseline.file));
      deps.session.historyDidChange();
    }),
  ];
}
