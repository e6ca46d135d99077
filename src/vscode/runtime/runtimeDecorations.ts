import * as vscode from 'vscode';
import { labelText } from '../../shared/text';
import { allocationLabel, blockedLabel } from './format';
import type { RuntimeAnnotationStore } from './runtimeStore';

/**
 * Allocation heat (its own theme colours, `hotpath.allocLine.heat1…4`, apart from the CPU heat) with an
 * after-line label (`allocates 1.4 KB/req`, `retains 310 B/req`), and a tint, ruler mark and label on
 * lines that held the event loop (`blocked the loop: 69 turns, up to 201 ms`).
 */
export class RuntimeDecorations implements vscode.Disposable {
  private readonly allocation: vscode.TextEditorDecorationType[];
  private readonly blocked: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly store: RuntimeAnnotationStore) {
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
    const live = this.store.forDocument(editor.document);
    const heat: vscode.DecorationOptions[][] = [[], [], [], []];
    const blocked: vscode.DecorationOptions[] = [];
    const count = editor.document.lineCount;
    if (live && this.store.allocationsEnabled) {
      // One label per line: the largest amount (a function's own bytes and its calls' can share a line).
      const best = new Map<number, (typeof live.allocations)[number]>();
      for (const a of live.allocations) if (a.line < count && (best.get(a.line)?.annotation.bytes ?? -1) < a.annotation.bytes) best.set(a.line, a);
      for (const { annotation, line } of best.values()) {
        heat[annotation.heat - 1].push({ range: editor.document.lineAt(line).range, renderOptions: { after: { contentText: labelText(allocationLabel(annotation)) } } });
      }
    }
    for (const { annotation, line } of live?.blocked ?? []) {
      if (line < count) blocked.push({ range: editor.document.lineAt(line).range, renderOptions: { after: { contentText: labelText(blockedLabel(annotation)) } } });
    }
    this.allocation.forEach((type, i) => editor.setDecorations(type, heat[i]));
    editor.setDecorations(this.blocked, blocked);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
