/** VS Code entry point (dist/extension.js). All wiring is in src/vscode/activate.ts. */
import type * as vscode from 'vscode';
import { activateHotpath } from './vscode/activate';
import { stopRunsNow } from './vscode/workflow/runs';

export function activate(context: vscode.ExtensionContext) {
  // The returned object is the extension's API: the extension-host tests read the session through it.
  return activateHotpath(context);
}

/**
 * A window reload or close, or an update, ends the extension host shortly after this returns — too
 * soon for a run's graceful stop (its cancellation through context.subscriptions). So whatever runs
 * started is stopped now, at once: the app's process group, an install or --prepare step, and their
 * temporary files and git worktrees are removed.
 */
export function deactivate(): Promise<void> {
  return stopRunsNow();
}
