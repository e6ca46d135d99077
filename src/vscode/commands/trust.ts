import * as vscode from 'vscode';
import { showError } from '../notify';

/**
 * Commands that start workspace code check trust themselves too (their `enablement` hides them in the
 * palette, but other extensions, keybindings or the debug adapter can still call them).
 */
export async function requireTrust(what: string): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const choice = await showError(
    `Hotpath: ${what} starts this workspace's own code, which VS Code does not run in an untrusted workspace. Trust the workspace first.`,
    'Manage Workspace Trust',
  );
  if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}
