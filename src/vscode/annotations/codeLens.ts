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
    // JavaScript and TypeScript sources can get a benchmark of a hot function, one click away.
    const benchable = /\.[cm]?[jt]sx?$/.test(document.uri.fsPath);
    return live.functions
      .filter((f) => f.line < document.lineCount)
      .flatMap(({ annotation, line }) => [
        new vscode.CodeLens(document.lineAt(line).range, {
          title: labelText(codeLensText(annotation, this.v8Summary(annotation), live.edited)),
          tooltip: labelText(`Show ${annotation.function} in the flamegraph`),
          command: 'hotpath.showFlamegraph',
          arguments: [{ file: annotation.file, line: annotation.line, name: annotation.function }],
        }),
        ...(benchable && /^[A-Za-z_$][\w$]*$/.test(annotation.function) ? [new vscode.CodeLens(document.lineAt(line).range, {
          title: '$(beaker) Benchmark',
          tooltip: labelText(`Create a tinybench benchmark of ${annotation.function} next to this file (Hotpath: Create Benchmark for This Function)`),
          command: 'hotpath.createBenchmark',
          arguments: [{ file: document.uri.fsPath, name: annotation.function }],
        })] : []),
      ]);
  }
}
