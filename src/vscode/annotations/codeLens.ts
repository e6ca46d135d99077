import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { codeLensText } from './format';
import { labelText } from '../../shared/text';
import type { FunctionAnnotation } from '../../core/annotate';

/** CodeLens above each hot function's declaration: its share of the profile; click → flamegraph. */
export class HotFunctionCodeLens implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;

  constructor(private readonly store: AnnotationStore, private readonly v8Summary: (f: FunctionAnnotation) => string | undefined) {
    this.onDidChangeCodeLenses = store.onDidChange;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const live = this.store.forDocument(document);
    if (!live) return [];
    return live.functions
      .filter((f) => f.line < document.lineCount)
      .map(({ annotation, line }) => new vscode.CodeLens(document.lineAt(line).range, {
        title: labelText(codeLensText(annotation, this.v8Summary(annotation), live.edited)),
        tooltip: labelText(`Show ${annotation.function} in the flamegraph`),
        command: 'hotpath.showFlamegraph',
        arguments: [{ file: annotation.file, line: annotation.line, name: annotation.function }],
      }));
  }
}
