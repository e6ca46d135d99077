import * as vscode from 'vscode';
import type { AnnotationStore } from './store';
import { codeLensText } from './format';
import { labelText } from '../../shared/text';
import type { FunctionAnnotation } from '../../core/annotate';
import { labelsFor } from './labelPlacement';

/** Marks the lens that carries a hot line's label (the line below it); tests find it by this icon. */
export const LINE_LENS_ICON = '$(arrow-small-down)';

/**
 * CodeLens above each hot function's declaration (its share of the profile), and above each hot line too
 * long for its label at its end (that label); click → flamegraph.
 */
export class HotFunctionCodeLens implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;

  constructor(private readonly store: AnnotationStore, private readonly v8Summary: (f: FunctionAnnotation) => string | undefined) {
    this.onDidChangeCodeLenses = store.onDidChange;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const live = this.store.forDocument(document);
    if (!live) return [];
    const file = live.source.file;
    // A line too long for its label at its end gets it here, above the line, first on the row (lineLabels.ts).
    const lineLenses = [...labelsFor(document, live).values()]
      .filter((l) => l.placement === 'above')
      .map((l) => ({
        line: l.line,
        lens: new vscode.CodeLens(document.lineAt(l.line).range, {
          title: `${LINE_LENS_ICON} ${labelText(l.text)}`,
          tooltip: labelText(`Line ${l.line + 1}: its label is shown above it, the line being too long for it at its end (hotpath.annotations.labelColumn). Click: ${l.function} in the flamegraph.`),
          command: 'hotpath.showFlamegraph',
          arguments: [{ file, line: 0, name: l.function }],
        }),
      }));
    // Callbacks declared on one line (`.map((s) => …).filter((r) => …)`) share one lens: the one with the
    // most own cost first and whole, the others counted, so the row stays short and its main figure first.
    const byLine = new Map<number, FunctionAnnotation[]>();
    for (const { annotation, line } of live.functions) {
      if (line < document.lineCount) byLine.set(line, [...(byLine.get(line) ?? []), annotation]);
    }
    const functionLevel = this.store.current?.granularity === 'functions';
    const functionLenses = [...byLine].map(([line, fns]) => {
      const [top, ...rest] = [...fns].sort((a, b) => a.rank - b.rank);
      const more = rest.length ? ` · +${rest.length} more function${rest.length > 1 ? 's' : ''} on this line` : '';
      return {
        line,
        lens: new vscode.CodeLens(document.lineAt(line).range, {
          title: labelText(`${codeLensText(top, this.v8Summary(top), live.edited, functionLevel)}${more}`),
          tooltip: labelText(`Show ${top.function} in the flamegraph.${functionLevel ? ' The profile records functions, not lines (its frames carry each function\'s start line), so no line of it is labelled.' : ''}${top.v8?.tierUnknown ? ` Tier unknown: ${top.v8.tierUnknown.reason}` : ''}${rest.length
            ? ` Also declared on this line: ${rest.map((f) => `${f.function} (${codeLensText(f, this.v8Summary(f))})`).join('; ')}`
            : ''}`),
          command: 'hotpath.showFlamegraph',
          arguments: [{ file: top.file, line: top.line, name: top.function }],
        }),
      };
    });
    // JavaScript and TypeScript sources can get a benchmark of a hot function, one click away.
    const benchable = /\.[cm]?[jt]sx?$/.test(document.uri.fsPath);
    const benchLenses = benchable ? [...byLine].flatMap(([line, fns]) => {
      const top = [...fns].sort((a, b) => a.rank - b.rank)[0];
      return /^[A-Za-z_$][\w$]*$/.test(top.function) ? [{
        line,
        lens: new vscode.CodeLens(document.lineAt(line).range, {
          title: '$(beaker) Benchmark',
          tooltip: labelText(`Create a tinybench benchmark of ${top.function} next to this file (Hotpath: Create Benchmark for This Function)`),
          command: 'hotpath.createBenchmark',
          arguments: [{ file: document.uri.fsPath, name: top.function }],
        }),
      }] : [];
    }) : [];
    return [...lineLenses, ...functionLenses, ...benchLenses].map((x) => x.lens);
  }
}
