import * as vscode from 'vscode';
import { errorMessage, ErrorCode, isHotpathError } from '../../core/common/errors';
import type { AttachSpec } from '../../core/target/attach';
import { listNodeProcesses } from '../../core/target/nodeProcesses';
import { runSettings } from '../settings';
import { chooseTarget, currentFolder, rememberedNote, TargetCancelled } from '../targets/pickTarget';
import { requestPicker, withRememberedRequest } from '../targets/requestPicker';
import type { TargetSpec } from '../targets/targetSpec';
import { confirmNodeEnv } from '../workflow/nodeEnvPrompt';
import type { RunController } from '../workflow/runController';
import { baselineNameFor, type RunKind, type RunRequest } from '../workflow/runs';
import { requireTrust } from './trust';
import { labelText } from '../../shared/text';
import { showError, showInfo } from '../notify';
import { STAY } from '../pickerFocus';

export interface RunCommandDeps {
  controller: RunController;
  state: vscode.Memento;
}

interface ChosenTarget {
  target: TargetSpec;
  /** For the run's summary when the target was asked for just now: what Hotpath remembers. */
  note?: string;
}

export async function targetFor(deps: RunCommandDeps, kind: RunKind, forceAsk = false): Promise<ChosenTarget | undefined> {
  try {
    let note: string | undefined;
    const http = kind !== 'script';
    const chosen = await chooseTarget(deps.state, { http, forceAsk, onAsked: (spec) => { note = rememberedNote(spec); } });
    // Scripts get no NODE_ENV question: it is about servers and frameworks (the checklist notes it).
    const target = http ? await confirmNodeEnv(withRememberedRequest(chosen, deps.state), deps.state) : chosen;
    return target ? { target, note } : undefined;
  } catch (err) {
    if (err instanceof TargetCancelled) return undefined;
    void showError(`Hotpath: ${errorMessage(err)}`);
    return undefined;
  }
}

/** Profile, baseline, verify, script: pick the target, check NODE_ENV, run with progress. */
async function runTargetCommand(deps: RunCommandDeps, kind: Exclude<RunKind, 'attach' | 'compare' | 'startup' | 'bench'>): Promise<void> {
  if (!(await requireTrust('Profiling'))) return;
  const chosen = await targetFor(deps, kind);
  if (!chosen) return;
  const { target } = chosen;
  const settings = runSettings(vscode.Uri.file(target.cwd), target);
  const request: RunRequest = kind === 'baseline' || kind === 'verify'
    ? { kind, target, settings, baselineName: baselineNameFor(target) }
    : { kind, target, settings };
  // Verify loads the baseline's request: no choosing there (a different path would compare two workloads).
  const chooseRequest = kind === 'profile' || kind === 'baseline' ? requestPicker(deps.state, target) : undefined;
  const result = await deps.controller.runWithProgress(request, { chooseRequest, note: chosen.note });
  if (result === undefined && kind === 'verify') await offerBaselineIfMissing(deps, target);
}

async function offerBaselineIfMissing(deps: RunCommandDeps, target: TargetSpec): Promise<void> {
  // runWithProgress already reported the error; when it was a missing baseline, offer the fix directly.
  const last = deps.controller.lastError;
  if (!isHotpathError(last, ErrorCode.BaselineNotFound)) return;
  const choice = await showInfo(`Hotpath: there is no baseline for "${target.name}" yet.`, 'Establish Baseline');
  if (choice) await vscode.commands.executeCommand('hotpath.establishBaseline');
}

function parseAttachInput(text: string): AttachSpec | string {
  const t = text.trim();
  if (/^wss?:\/\//.test(t)) return { inspectorUrl: t };
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    if (n > 0 && n < 65536) return { inspectorPort: n };
  }
  const m = /^(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(t);
  if (m) return { inspectorPort: Number(m[1]) };
  return 'Enter an inspector port (9229), 127.0.0.1:9229, or a ws://127.0.0.1:9229/<id> URL.';
}

/** Attach to a running Node process (picker, inspector port or URL), ask where to send load, profile. */
async function attachAndProfile(deps: RunCommandDeps): Promise<void> {
  if (!(await requireTrust('Attaching to a process'))) return;
  const processes = await listNodeProcesses();
  type Item = vscode.QuickPickItem & { pid?: number };
  const items: Item[] = [
    { label: '$(plug) Enter an inspector port or URL…', alwaysShow: true },
    // Other processes' command lines are anyone's text: one line, no icon syntax.
    ...processes.map((p) => ({ label: `$(server-process) ${p.pid}`, description: labelText(p.command), pid: p.pid })),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'Hotpath: attach to which process?', placeHolder: 'A running Node process (Hotpath opens its inspector with SIGUSR1), or an inspector address', matchOnDescription: true, ...STAY });
  if (!pick) return;
  let attach: AttachSpec;
  if (pick.pid !== undefined) {
    attach = { pid: pick.pid };
  } else {
    const text = await vscode.window.showInputBox({ title: 'Hotpath: inspector', prompt: 'The inspector the app was started with (node --inspect=127.0.0.1:9229 …): port, host:port or ws:// URL. Loopback only.', value: '9229', validateInput: (v) => { const r = parseAttachInput(v); return typeof r === 'string' ? r : undefined; }, ...STAY });
    if (!text) return;
    attach = parseAttachInput(text) as AttachSpec;
  }
  const url = await vscode.window.showInputBox({
    title: 'Hotpath: where should the load go?', prompt: 'A process Hotpath did not start cannot tell where it listens: the URL autocannon should load.', value: 'http://127.0.0.1:3000/',
    validateInput: (v) => { try { const u = new URL(v); return /^https?:$/.test(u.protocol) ? undefined : 'An http:// or https:// URL'; } catch { return 'An http:// URL, e.g. http://127.0.0.1:3000/'; } },
    ...STAY,
  });
  if (!url) return;
  const folder = currentFolder();
  const settings = runSettings(folder.uri);
  settings.load = { ...settings.load, url };
  await deps.controller.runWithProgress({ kind: 'attach', attach, cwd: folder.uri.fsPath, settings, describe: pick.pid !== undefined ? `PID ${pick.pid}` : 'inspector' });
}

export function registerRunCommands(deps: RunCommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('hotpath.profileWithLoad', () => runTargetCommand(deps, 'profile')),
    vscode.commands.registerCommand('hotpath.establishBaseline', () => runTargetCommand(deps, 'baseline')),
    vscode.commands.registerCommand('hotpath.verifyAgainstBaseline', () => runTargetCommand(deps, 'verify')),
    vscode.commands.registerCommand('hotpath.profileScript', () => runTargetCommand(deps, 'script')),
    vscode.commands.registerCommand('hotpath.attachAndProfile', () => attachAndProfile(deps)),
    vscode.commands.registerCommand('hotpath.checkForLeaks', () => runTargetCommand(deps, 'leak')),
    vscode.commands.registerCommand('hotpath.chooseTarget', async () => {
      try { await chooseTarget(deps.state, { http: true, forceAsk: true }); } catch (err) { if (!(err instanceof TargetCancelled)) void showError(`Hotpath: ${errorMessage(err)}`); }
    }),
  ];
}
