import * as vscode from 'vscode';
import { DEFAULT_LABEL_COLUMN, placeLabels, type PlacedLabel } from './lineLabels';
import type { LiveFile } from './store';

export interface EditorLabelLayout {
  tabSize: number;
  maxColumn: number;
  /** CodeLens can be shown and lines do not wrap: a label too long for its line can go above it. */
  above: boolean;
}

/** How wide a line and its labels may get in this document's editor (the settings lineLabels.ts needs). */
export function layoutFor(document: vscode.TextDocument): EditorLabelLayout {
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === document);
  const editorConfig = vscode.workspace.getConfiguration('editor', document);
  const tabSize = typeof editor?.options.tabSize === 'number' ? editor.options.tabSize : editorConfig.get<number>('tabSize', 4);
  const maxColumn = vscode.workspace.getConfiguration('hotpath.annotations', document.uri).get<number>('labelColumn', DEFAULT_LABEL_COLUMN);
  const above = editorConfig.get<boolean>('codeLens', true) && editorConfig.get<string>('wordWrap', 'off') === 'off';
  return { tabSize, maxColumn, above };
}

/**
 * The labels of one document as the decorations and the CodeLens show them (lineLabels.ts decides;
 * this reads the editor's settings): one per line, after it or above it.
 */
export function labelsFor(document: vscode.TextDocument, live: LiveFile): Map<number, PlacedLabel> {
  return placeLabels(live.lines, live.deopts, {
    lineText: (line) => (line < document.lineCount ? document.lineAt(line).text : undefined),
    ...layoutFor(document),
  });
}
