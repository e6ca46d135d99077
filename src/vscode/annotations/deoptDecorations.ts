import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { labelsFor } from './labelPlacement';
import { labelText } from '../../shared/text';

/**
 * Deopt positions get their own decoration (apart from the heat): a tint and a ruler mark, and a label
 * when the line has no hot-line label — on a hot line the deopt is part of that one label (lineLabels.ts).
 */
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
      const labels = live ? labelsFor(editor.document, live) : new Map();
      const seen = new Set<number>();
      for (const { line } of live?.deopts ?? []) {
        if (line >= editor.document.lineCount || seen.has(line)) continue;
        seen.add(line);
        const label = labels.get(line);
        const own = label && !label.hot && label.placement === 'after' ? { renderOptions: { after: { contentText: labelText(label.text) } } } : {};
        options.push({ range: editor.document.lineAt(line).range, ...own });
      }
      editor.setDecorations(this.type, options);
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
