import * as vscode from 'vscode';
import { labelText } from '../../shared/text';
import type { AnnotationStore } from '../annotations/store';
import { runtimeLabelsFor } from './runtimeLabels';
import type { RuntimeAnnotationStore } from './runtimeStore';

/**
 * Allocation heat (its own theme colours, `hotpath.allocLine.heat1…4`, apart from the CPU heat) with an
 * after-line label (`allocates 1.4 KB/req`, `retains 310 B/req`), and a tint, ruler mark and label on
 * lines that held the event loop (`blocked the loop: 69 turns, up to 201 ms`). A label that would run
 * past the editor's edge is shown above its line instead (RuntimeLabelLens); the heat stays.
 */
export class RuntimeDecorations implements vscode.Disposable {
  private readonly allocation: vscode.TextEditorDecorationType[];
  private readonly blocked: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: RuntimeAnnotationStore, private readonly cpu: AnnotationStore) {
    this.allocation = [1, 2, 3, 4].map((n) => vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(`hotpath.allocLine.heat${n}`),
      after: { color: new vscode.ThemeColor('hotpath.allocLine.label'), margin: '0 0 0 2em', fontStyle: 'normal' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    }));
    this.blocked = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('hotpath.blockedLine.background'),
      overviewRulerColor: new vscode.ThemeColor('hotpath.blockedLine.label'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
      after: { color: new vscode.ThemeColor('hotpath.blockedLine.label'), margin: '0 0 0 2em', fontStyle: 'normal' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.disposables.push(
      store.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      ...this.allocation, this.blocked,
    );
    this.refreshAll();
  }

  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.refresh(editor);
  }

  private refresh(editor: vscode.TextEditor): void {
    const heat: vscode.DecorationOptions[][] = [[], [], [], []];
    const blocked: vscode.DecorationOptions[] = [];
    for (const label of runtimeLabelsFor(editor.document, this.store, this.cpu)) {
      const range = editor.document.lineAt(label.line).range;
      const renderOptions = label.placement === 'after' ? { after: { contentText: labelText(label.text) } } : undefined;
      if (label.kind === 'allocation') heat[label.annotation.heat - 1].push({ range, renderOptions });
      else blocked.push({ range, renderOptions });
    }
    this.allocation.forEach((type, i) => editor.setDecorations(type, heat[i]));
    editor.setDecorations(this.blocked, blocked);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
