/**
 * The only way Hotpath shows a notification or a modal message. VS Code turns `[label](command:…)` in
 * message text into a link that runs any command with any arguments, and Hotpath's messages carry
 * profile and app text (function names, file names, URLs, the app's output). Every message passes
 * `notificationText` here, so no call site can forget it (test/unit/vscode/surfaces.test.ts checks
 * that no other file calls `vscode.window.show*Message` or reports unwrapped progress).
 */
import * as vscode from 'vscode';
import { notificationText } from '../shared/text';

type Show = typeof vscode.window.showInformationMessage;

function shown(which: () => Show) {
  function message<T extends string>(text: string, ...items: T[]): Thenable<T | undefined>;
  function message<T extends string>(text: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
  function message(text: string, ...rest: unknown[]): Thenable<string | undefined> {
    const show = which();
    // Modal options' `detail` is message text too.
    if (rest.length && typeof rest[0] === 'object' && rest[0] !== null) {
      const options = rest[0] as vscode.MessageOptions;
      const safe = options.detail === undefined ? options : { ...options, detail: notificationText(options.detail) };
      return (show as (m: string, o: vscode.MessageOptions, ...i: string[]) => Thenable<string | undefined>)(notificationText(text), safe, ...(rest.slice(1) as string[]));
    }
    return (show as (m: string, ...i: string[]) => Thenable<string | undefined>)(notificationText(text), ...(rest as string[]));
  }
  return message;
}

export const showInfo = shown(() => vscode.window.showInformationMessage);
export const showWarning = shown(() => vscode.window.showWarningMessage);
export const showError = shown(() => vscode.window.showErrorMessage);

/** The text of a progress notification (its title or a `progress.report` message). */
export const progressText = notificationText;
