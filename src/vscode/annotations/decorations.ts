import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { lineHeat } from './format';
import { labelsFor } from './labelPlacement';
import { labelText } from '../../shared/text';

/**
 * Hot-line decorations: a background heat in four theme colours by the line's own share (self time plus
 * the dependency, Node and native code called there), a lighter heat for lines whose time is in calls
 * to other user code (inclusive only), an overview-ruler mark and the line's one label
 * (`4.2% · 61 ms`, `84.1% total · 0.1% self`, with a deopt on the line after it) — after the line, or,
 * for a line too long for it, none here: the CodeLens shows it above (lineLabels.ts). Re-applied to
 * visible editors whenever the store changes.
 */
export class HotLineDecorations implements vscode.Disposable {
  private readonly own: vscode.TextEditorDecorationType[];
  private readonly call: vscode.TextEditorDecorationType[];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: AnnotationStore) {
    const type = (background: string, ruler: boolean) => vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(background),
      border: '1px dotted',
      borderColor: new vscode.ThemeColor('hotpath.hotLine.border'),
      ...(ruler ? { overviewRulerColor: new vscode.ThemeColor('hotpath.hotLine.ruler'), overviewRulerLane: vscode.OverviewRulerLane.Right } : {}),
      after: { color: new vscode.ThemeColor('hotpath.hotLine.label'), margin: '0 0 0 2em', fontStyle: 'normal' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.own = [1, 2, 3, 4].map((n) => type(`hotpath.hotLine.heat${n}`, true));
    this.call = [1, 2, 3, 4].map((n) => type(`hotpath.callLine.heat${n}`, false));
    this.disposables.push(
      store.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      ...this.own, ...this.call,
    );
    this.refreshAll();
  }

  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.refresh(editor);
  }

  private refresh(editor: vscode.TextEditor): void {
    const live = this.store.forDocument(editor.document);
    const own: vscode.DecorationOptions[][] = [[], [], [], []];
    const call: vscode.DecorationOptions[][] = [[], [], [], []];
    const labels = live ? labelsFor(editor.document, live) : new Map();
    for (const { annotation, line } of live?.lines ?? []) {
      if (line >= editor.document.lineCount) continue;
      const range = editor.document.lineAt(line).range;
      const heat = lineHeat(annotation);
      const label = labels.get(line);
      const after = label?.placement === 'after' ? { after: { contentText: labelText(label.text) } } : undefined;
      (heat.kind === 'own' ? own : call)[heat.bucket - 1].push({ range, ...(after ? { renderOptions: after } : {}) });
    }
    this.own.forEach((type, i) => editor.setDecorations(type, own[i]));
    this.call.forEach((type, i) => editor.setDecorations(type, call[i]));
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
