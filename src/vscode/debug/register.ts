import * as vscode from 'vscode';
import { compareSettings, runSettings } from '../settings';
import { resolveTarget } from '../targets/targetSpec';
import type { RunController } from '../workflow/runController';
import { HotpathDebugSession } from './debugSession';
import { showError, showInfo } from '../notify';

const TYPE = 'hotpath';

/** F5 with no launch.json: profile the open file. Untrusted workspaces run nothing. */
class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!vscode.workspace.isTrusted) {
      void showError('Hotpath: launch configurations start this workspace\'s code, which VS Code does not run in an untrusted workspace. Trust the workspace first.');
      return undefined;
    }
    if (!config.type && !config.request && !config.name) {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc || !/\.(c|m)?js$/.test(doc.fileName)) {
        void showInfo('Hotpath: open the app\'s entry file (e.g. server.js) or add a "hotpath" configuration to launch.json.');
        return undefined;
      }
      return { type: TYPE, request: 'launch', name: 'Hotpath: Profile with Load', mode: 'profile', program: doc.fileName, cwd: folder?.uri.fsPath };
    }
    return config;
  }
}

/** The dropdown's dynamic entries: one per `hotpath.targets` entry, per mode that makes sense. */
class TargetsProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(folder: vscode.WorkspaceFolder | undefined): vscode.DebugConfiguration[] {
    if (!folder) return [];
    const raw = vscode.workspace.getConfiguration('hotpath', folder.uri).get<unknown[]>('targets') ?? [];
    const out: vscode.DebugConfiguration[] = [];
    for (const t of Array.isArray(raw) ? raw : []) {
      try {
        const spec = resolveTarget(t, folder.uri.fsPath);
        for (const mode of ['profile', 'baseline', 'verify'] as const) {
          out.push({ type: TYPE, request: 'launch', name: `Hotpath ${mode}: ${spec.name}`, mode, command: spec.command, cwd: spec.cwd, env: spec.env, baselineName: spec.name, ...(spec.path || spec.method ? { load: { ...(spec.path ? { path: spec.path } : {}), ...(spec.method ? { method: spec.method } : {}) } } : {}) });
        }
      } catch { /* an invalid target shows its error when run from a command */ }
    }
    return out;
  }
}

export function registerDebugType(controller: RunController): vscode.Disposable[] {
  const factory: vscode.DebugAdapterDescriptorFactory = {
    createDebugAdapterDescriptor(session) {
      const folder = session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
      return new vscode.DebugAdapterInlineImplementation(new HotpathDebugSession(controller, folder, runSettings(session.workspaceFolder?.uri), compareSettings(session.workspaceFolder?.uri)));
    },
  };
  return [
    vscode.debug.registerDebugAdapterDescriptorFactory(TYPE, factory),
    vscode.debug.registerDebugConfigurationProvider(TYPE, new ConfigurationProvider()),
    vscode.debug.registerDebugConfigurationProvider(TYPE, new TargetsProvider(), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
  ];
}
