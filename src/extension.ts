/** VS Code entry point (dist/extension.js). All wiring is in src/vscode/activate.ts. */
import type * as vscode from 'vscode';
import { activateHotpath } from './vscode/activate';

export function activate(context: vscode.ExtensionContext) {
  // The returned object is the extension's API: the extension-host tests read the session through it.
  return activateHotpath(context);
}

export function deactivate(): void {
  // Everything is in context.subscriptions; runs in progress stop their targets through their tokens.
}
