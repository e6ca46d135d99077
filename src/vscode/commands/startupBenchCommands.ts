import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { benchmarkHarness, findExport } from '../../core/bench/harness';
import { detectHarness } from '../../core/bench/detect';
import { errorMessage } from '../../core/common/errors';
import { labelText } from '../../shared/text';
import { runSettings, startupSettings } from '../settings';
import { chooseTarget, TargetCancelled } from '../targets/pickTarget';
import type { RunController } from '../workflow/runController';
import { showError, showInfo } from '../notify';
import { requireTrust } from './trust';
import { STAY } from '../pickerFocus';

export interface StartupBenchDeps {
  controller: RunController;
  state: vscode.Memento;
}

/** "Hotpath: Profile Startup": the target's command, cold starts, the module-load tree, a merged profile. */
async function profileStartup(deps: StartupBenchDeps): Promise<void> {
  if (!(await requireTrust('Profiling startup'))) return;
  let target;
  try { target = await chooseTarget(deps.state, { http: false }); } catch (err) {
    if (!(err instanceof TargetCancelled)) void showError(`Hotpath: ${errorMessage(err)}`);
    return;
  }
  const scope = vscode.Uri.file(target.cwd);
  await deps.controller.runWithProgress({ kind: 'startup', target, settings: runSettings(scope, target), ...startupSettings(scope) });
}

/** "Hotpath: Run Benchmark": the given file (the CodeLens), the active editor's, or one picked. */
async function runBenchmark(deps: StartupBenchDeps, uri?: vscode.Uri): Promise<void> {
  if (!(await requireTrust('Running a benchmark'))) return;
  let file = uri?.fsPath ?? vscode.window.activeTextEditor?.document.uri.fsPath;
  if (!file || !detectHarness(safeRead(file))) {
    const found = await vscode.workspace.findFiles('**/*.{bench,benchmark}.{js,mjs,cjs,ts,mts}', '**/node_modules/**', 50);
    const pick = await vscode.window.showQuickPick(found.map((u) => ({ label: labelText(vscode.workspace.asRelativePath(u)), uri: u })), { title: 'Hotpath: which benchmark file?', placeHolder: 'A file written for tinybench or node:bench', ...STAY });
    if (!pick) return;
    file = pick.uri.fsPath;
  }
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  const runs = vscode.workspace.getConfiguration('hotpath.bench', vscode.Uri.file(file)).get<number>('runs') ?? 5;
  await vscode.window.activeTextEditor?.document.save();
  await deps.controller.runWithProgress({ kind: 'bench', file, cwd: folder?.uri.fsPath ?? path.dirname(file), runs });
}

function safeRead(file: string): string {
  try {
    const st = fs.statSync(file);
    return st.isFile() && st.size < 1024 * 1024 ? fs.readFileSync(file, 'utf8') : '';
  } catch { return ''; }
}

/**
 * "Hotpath: Create Benchmark for This Function": from a hot function's CodeLens (its file and name), or
 * the function at the cursor. Writes a tinybench harness next to the file and opens it.
 */
async function createBenchmark(args?: { file: string; name: string }): Promise<void> {
  let file = args?.file;
  let name = args?.name;
  if (!file || !name) {
    const editor = vscode.window.activeTextEditor;
    if (!editor) { void showInfo('Hotpath: open the file of the function to benchmark, or use the Benchmark link above a hot function.'); return; }
    file = editor.document.uri.fsPath;
    const range = editor.document.getWordRangeAtPosition(editor.selection.active);
    name = await vscode.window.showInputBox({ title: 'Hotpath: benchmark which function?', prompt: 'The name of an exported function of this file', value: range ? editor.document.getText(range) : '', ...STAY });
    if (!name) return;
  }
  const source = safeRead(file);
  const exported = findExport(source, file, name);
  if (!exported) {
    void showInfo(`Hotpath: ${name} is not exported from ${path.basename(file)}. Export it (the benchmark imports it), then create the benchmark again.`);
    return;
  }
  const harness = benchmarkHarness({ sourceFile: file, name, exported, exists: (f) => fs.existsSync(f) });
  try {
    fs.writeFileSync(harness.file, harness.text, { flag: 'wx' });
  } catch (err) {
    void showError(`Hotpath: could not write ${harness.file}: ${errorMessage(err)}`);
    return;
  }
  const doc = await vscode.window.showTextDocument(vscode.Uri.file(harness.file));
  const todo = harness.text.split('\n').findIndex((l) => l.includes('TODO'));
  if (todo >= 0) doc.selection = new vscode.Selection(todo, 0, todo, 0);
  if (!fs.existsSync(path.join(path.dirname(harness.file), 'node_modules', 'tinybench')) && !hasTinybench(path.dirname(harness.file))) {
    void showInfo('Hotpath: the benchmark uses tinybench, which is not installed here yet: npm install --save-dev tinybench');
  }
}

function hasTinybench(dir: string): boolean {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) if (fs.existsSync(path.join(d, 'node_modules', 'tinybench', 'package.json'))) return true;
  return false;
}

export function registerStartupBenchCommands(deps: StartupBenchDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('hotpath.profileStartup', () => profileStartup(deps)),
    vscode.commands.registerCommand('hotpath.runBenchmark', (uri?: vscode.Uri) => runBenchmark(deps, uri instanceof vscode.Uri ? uri : undefined)),
    vscode.commands.registerCommand('hotpath.createBenchmark', (args?: { file: string; name: string }) => createBenchmark(args)),
  ];
}
