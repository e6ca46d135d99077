import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { deoptLabel } from './format';
import { labelText } from '../../shared/text';

/** Deopt positions get their own decoration (apart from the heat): a tint, a ruler mark, a label. */
export class DeoptDecorations implements vscode.Disposable {
  private readonly type: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: AnnotationStore) {
    this.type = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('hotpath.deopt.background'),
      overviewRulerColor: new vscode.ThemeColor('hotpath.deopt.label'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      after: { color: new vscode.ThemeColor('hotpath.deopt.label'), margin: '0 0 0 2em' },
    });
    this.disposables.push(this.type, store.onDidChange(() => this.refreshAll()), vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()));
    this.refreshAll();
  }

  private refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const live = this.store.forDocument(editor.document);
      const options: vscode.DecorationOptions[] = [];
      // One label per line: several deopts on a line are listed in its hover.
      const seen = new Set<number>();
      for (const { annotation, line } of live?.deopts ?? []) {
        if (line >= editor.document.lineCount || seen.has(line)) continue;
        seen.add(line);
        options.push({ range: editor.document.lineAt(line).range, renderOptions: { after: { contentText: labelText(deoptLabel(annotation)) } } });
      }
      editor.setDecorations(this.type, options);
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
