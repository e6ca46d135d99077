import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { lineHeat, lineLabel } from './format';
import { labelText } from '../../shared/text';

/**
 * Hot-line decorations: a background heat in four theme colours by the line's own share (self time plus
 * the dependency, Node and native code called there), a lighter heat for lines whose time is in calls
 * to other user code (inclusive only), an overview-ruler mark and an after-line label
 * (`4.2% · 61 ms`, `84.1% total · 0.1% self`). Re-applied to visible editors whenever the store changes.
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
    for (const { annotation, line } of live?.lines ?? []) {
      if (line >= editor.document.lineCount) continue;
      const range = editor.document.lineAt(line).range;
      const heat = lineHeat(annotation);
      (heat.kind === 'own' ? own : call)[heat.bucket - 1].push({ range, renderOptions: { after: { contentText: labelText(lineLabel(annotation)) } } });
    }
    this.own.forEach((type, i) => editor.setDecorations(type, own[i]));
    this.call.forEach((type, i) => editor.setDecorations(type, call[i]));
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
