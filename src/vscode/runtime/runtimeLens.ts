import * as vscode from 'vscode';
import { labelText } from '../../shared/text';
import type { AnnotationStore } from '../annotations/store';
import { runtimeLabelsFor } from './runtimeLabels';
import type { RuntimeAnnotationStore } from './runtimeStore';

/** Marks a lens that carries an allocation or "blocked the loop" label of the line below; tests find it by this icon. */
export const RUNTIME_LENS_ICON = '$(triangle-down)';

/** Allocation and "blocked the loop" labels too long for the end of their line, in a CodeLens row above it. */
export class RuntimeLabelLens implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;

  constructor(private readonly store: RuntimeAnnotationStore, private readonly cpu: AnnotationStore) {
    this.onDidChangeCodeLenses = store.onDidChange;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return runtimeLabelsFor(document, this.store, this.cpu)
      .filter((l) => l.placement === 'above')
      .map((l) => new vscode.CodeLens(document.lineAt(l.line).range, {
        title: `${RUNTIME_LENS_ICON} ${labelText(l.text)}`,
        tooltip: labelText(`Line ${l.line + 1}: shown above it, the line being too long for the label at its end (hotpath.annotations.labelColumn). Hover the line for the details.`),
        command: '',
      }));
  }
}
