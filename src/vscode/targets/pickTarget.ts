import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { joinCommandLine, splitCommandLine } from './commandLine';
import { resolveTarget, targetToSettings, type TargetSettings, type TargetSpec } from './targetSpec';
import { labelText } from '../../shared/text';
import { lastRequest, rememberRequest } from './requestPicker';
import { STAY } from '../pickerFocus';

const REMEMBERED = 'hotpath.target';
const LAST_CHOICE = 'hotpath.lastTargetName';

export class TargetCancelled extends Error {}

/** The workspace folder a command works in: the active editor's, else the only/first one. */
export function currentFolder(): vscode.WorkspaceFolder {
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('Open the folder of your app first (File → Open Folder): Hotpath runs targets from a workspace folder.');
  return folder;
}

function configuredTargets(folder: vscode.WorkspaceFolder): TargetSpec[] {
  const raw = vscode.workspace.getConfiguration('hotpath', folder.uri).get<unknown[]>('targets') ?? [];
  if (!Array.isArray(raw)) throw new Error('The setting hotpath.targets must be an array of targets.');
  return raw.map((t) => resolveTarget(t, folder.uri.fsPath));
}

/**
 * The target for a run: from `hotpath.targets` (one → used, several → picked), else the one remembered
 * for this workspace, else asked for once (start command, request path, method) and remembered.
 */
export async function chooseTarget(state: vscode.Memento, options: { forceAsk?: boolean; http: boolean; onAsked?: (spec: TargetSpec) => void }): Promise<TargetSpec> {
  const folder = currentFolder();
  const configured = configuredTargets(folder);
  if (!options.forceAsk && configured.length === 1) return configured[0];
  if (configured.length > 1) {
    const last = state.get<string>(LAST_CHOICE);
    const items = configured
      .map((t) => ({ label: t.name, description: joinCommandLine(t.command), detail: t.path ? `load: ${t.method ?? 'GET'} ${t.path}` : undefined, target: t }))
      .sort((a, b) => Number(b.label === last) - Number(a.label === last));
    const pick = await vscode.window.showQuickPick(items, { title: 'Hotpath: which app?', placeHolder: 'Targets from the hotpath.targets setting', ...STAY });
    if (!pick) throw new TargetCancelled();
    await state.update(LAST_CHOICE, pick.target.name);
    return pick.target;
  }
  const remembered = state.get<TargetSettings>(REMEMBERED);
  if (!options.forceAsk && remembered) {
    try { return resolveTarget(remembered, folder.uri.fsPath, 'remembered target'); } catch { /* ask again */ }
  }
  const spec = await askForTarget(folder, options.http, options.forceAsk ? state : undefined);
  await state.update(REMEMBERED, targetToSettings(spec, folder.uri.fsPath));
  options.onAsked?.(spec);
  return spec;
}

/**
 * The note for the run's summary when the target was just chosen: what Hotpath remembers and how to
 * change it (a notification of its own would stay stacked under the NODE_ENV question until the run ends).
 */
export function rememberedNote(spec: TargetSpec): string {
  return `Hotpath remembers "${joinCommandLine(spec.command)}" for this workspace ("Hotpath: Choose Target…" changes it; the hotpath.targets setting keeps it in the repo).`;
}

interface CommandItem extends vscode.QuickPickItem { command?: string[] }

function packageScripts(folder: string): CommandItem[] {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const names = Object.keys(pkg.scripts ?? {}).filter((n) => !/^(pre|post)|^(test|lint|build|format|typecheck)\b/.test(n));
    names.sort((a, b) => Number(b === 'start') - Number(a === 'start') || Number(b === 'dev') - Number(a === 'dev'));
    return names.map((n) => ({ label: n === 'start' ? 'npm start' : `npm run ${n}`, detail: pkg.scripts![n], command: n === 'start' ? ['npm', 'start'] : ['npm', 'run', n] }));
  } catch {
    return [];
  }
}

function openFileCommand(folder: string): CommandItem[] {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== 'file') return [];
  const rel = path.relative(folder, doc.uri.fsPath);
  if (rel.startsWith('..')) return [];
  if (/\.(c|m)?js$/.test(rel)) return [{ label: `node ${rel}`, description: 'the open file', command: ['node', rel] }];
  if (/\.(c|m)?ts$/.test(rel)) {
    const tsx = path.join(folder, 'node_modules', '.bin', 'tsx');
    if (fs.existsSync(tsx)) return [{ label: `tsx ${rel}`, description: 'the open file, through the project\'s tsx', command: [tsx, rel] }];
    return [{ label: `node --experimental-strip-types ${rel}`, description: 'the open file (Node 22.6+)', command: ['node', '--experimental-strip-types', rel] }];
  }
  return [];
}

async function askForTarget(folder: vscode.WorkspaceFolder, http: boolean, state: vscode.Memento | undefined): Promise<TargetSpec> {
  const items: CommandItem[] = [...packageScripts(folder.uri.fsPath), ...openFileCommand(folder.uri.fsPath), { label: '$(edit) Enter a command…', alwaysShow: true }];
  const pick = await vscode.window.showQuickPick(items, { title: 'Hotpath: how do you start the app?', placeHolder: 'A package.json script, the open file, or any command', matchOnDetail: true, ...STAY });
  if (!pick) throw new TargetCancelled();
  let command = pick.command;
  if (!command) {
    const line = await vscode.window.showInputBox({
      title: 'Hotpath: start command', prompt: 'Run from the workspace folder, without a shell. Example: node server.js', value: 'node ',
      // The cursor after "node ": typing adds the script instead of replacing the whole pre-filled text.
      valueSelection: [5, 5],
      validateInput: (v) => { try { return splitCommandLine(v).length ? undefined : 'Enter a command.'; } catch (e) { return (e as Error).message; } },
      ...STAY,
    });
    if (!line) throw new TargetCancelled();
    command = splitCommandLine(line);
  }
  const spec: TargetSpec = { name: joinCommandLine(command), command, cwd: folder.uri.fsPath, env: {} };
  // The request path is asked once the app runs, with the paths it prints and the routes it registers
  // (requestPicker.ts). "Choose Target…" may pin one now, the last one used first.
  if (http && state) await askForRequest(state, spec);
  return spec;
}

interface RequestPickItem extends vscode.QuickPickItem { path?: string; method?: string; enter?: boolean }

/** Writes the answer to the target's remembered request (requestPicker.ts), which the next runs use. */
async function askForRequest(state: vscode.Memento, spec: TargetSpec): Promise<void> {
  const last = lastRequest(state, spec.name);
  const items: RequestPickItem[] = [
    ...(last ? [{ label: labelText(`${last.method ?? 'GET'} ${last.path}`), description: 'used last time', path: last.path, method: last.method ?? 'GET' }] : []),
    { label: '$(play) Choose when the app runs', description: 'offers the paths it prints at startup and the routes it registers' },
    { label: '$(edit) Enter a path…', enter: true },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'Hotpath: which request should the load send?', placeHolder: 'Keep the last one, choose from what the app announces when it runs, or enter one', ...STAY });
  if (!pick) throw new TargetCancelled();
  if (pick.path) return;
  if (!pick.enter) { await rememberRequest(state, spec.name, undefined); return; }
  const reqPath = await vscode.window.showInputBox({
    title: 'Hotpath: request path to load', value: '/', valueSelection: [1, 1],
    prompt: 'autocannon sends requests to http://127.0.0.1:<the port the app listens on><path>',
    validateInput: (v) => (v.startsWith('/') && !/\s/.test(v) ? undefined : 'The path starts with / and has no spaces, e.g. /api/products'),
    ...STAY,
  });
  if (reqPath === undefined) throw new TargetCancelled();
  const method = await vscode.window.showQuickPick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], { title: 'Hotpath: HTTP method', ...STAY });
  if (!method) throw new TargetCancelled();
  await rememberRequest(state, spec.name, { path: reqPath, method });
}
