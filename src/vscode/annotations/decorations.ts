import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { heatBucket, lineLabel } from './format';
import { labelText } from '../../shared/text';

/**
 * Hot-line decorations: a background heat in four theme colours by share, an overview-ruler mark and an
 * after-line label (`4.2% · 61 ms`). Re-applied to visible editors whenever the store changes.
 */
export class HotLineDecorations implements vscode.Disposable {
  private readonly types: vscode.TextEditorDecorationType[];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: AnnotationStore) {
    this.types = [1, 2, 3, 4].map((n) => vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(`hotpath.hotLine.heat${n}`),
      border: '1px dotted',
      borderColor: new vscode.ThemeColor('hotpath.hotLine.border'),
      overviewRulerColor: new vscode.ThemeColor('hotpath.hotLine.ruler'),
      overviewRulerLane: vscode.OverviewRulerLane.Right,
      after: { color: new vscode.ThemeColor('hotpath.hotLine.label'), margin: '0 0 0 2em', fontStyle: 'normal' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    }));
    this.disposables.push(
      store.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      ...this.types,
    );
    this.refreshAll();
  }

  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.refresh(editor);
  }

  private refresh(editor: vscode.TextEditor): void {
    const live = this.store.forDocument(editor.document);
    const byBucket: vscode.DecorationOptions[][] = [[], [], [], []];
    for (const { annotation, line } of live?.lines ?? []) {
      if (line >= editor.document.lineCount) continue;
      const range = editor.document.lineAt(line).range;
      byBucket[heatBucket(annotation.selfPct) - 1].push({ range, renderOptions: { after: { contentText: labelText(lineLabel(annotation)) } } });
    }
    this.types.forEach((type, i) => editor.setDecorations(type, byBucket[i]));
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
