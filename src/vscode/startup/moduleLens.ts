import * as path from 'node:path';
import * as vscode from 'vscode';
import { lineStillLoads, moduleLabelText } from '../../core/startup/lineLabels';
import { labelText } from '../../shared/text';
import { formatMs } from '../../shared/text/numbers';
import type { HotpathSession } from '../session';

/**
 * After "Profile Startup": on each require/import line, what loading it adds to every start —
 * `+38 ms (12 modules)`. A line edited so that it no longer asks for the module loses its lens (an
 * honest nothing beats a number on the wrong line).
 */
export class StartupModuleLens implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;

  constructor(private readonly session: HotpathSession) {
    this.onDidChangeCodeLenses = session.onDidChangeStartup;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== 'file') return [];
    const labels = this.session.startupLinesOf(path.normalize(document.uri.fsPath));
    return labels
      .filter((l) => l.line - 1 < document.lineCount && lineStillLoads(document.lineAt(l.line - 1).text, l))
      .map((l) => new vscode.CodeLens(document.lineAt(l.line - 1).range, {
        title: `$(clock) ${labelText(moduleLabelText(l))}${l.sampled ? ' (from the profile)' : ''}`,
        tooltip: labelText(`Loading ${l.requests.join(', ')} here adds this to every start (mean of the timed cold starts; ${formatMs(l.selfMs)} in the module's own code, the rest in what it loads).`),
        command: '',
      }));
  }
}
