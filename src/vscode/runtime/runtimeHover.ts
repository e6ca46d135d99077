import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnnotationStore } from '../annotations/store';
import { allocationHover, blockedHover } from './format';
import type { RuntimeAnnotationStore } from './runtimeStore';

/** Hover on an allocation, retained or blocked line: the numbers behind its label, and the usual fixes. */
export class RuntimeHover implements vscode.HoverProvider {
  constructor(private readonly store: RuntimeAnnotationStore, private readonly cpu: AnnotationStore) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const live = this.store.forDocument(document);
    if (!live) return undefined;
    const profile = path.basename(this.cpu.profilePath ?? '');
    const parts: string[] = [];
    for (const b of live.blocked) if (b.line === position.line) parts.push(blockedHover(b.annotation, profile));
    if (this.store.allocationsEnabled) {
      for (const a of live.allocations) {
        if (a.line !== position.line) continue;
        parts.push(allocationHover(a.annotation, a.annotation.kind === 'retained' ? this.store.leakSource : profile));
      }
    }
    if (!parts.length) return undefined;
    if (live.edited) parts.push('_The file changed since these were measured; the numbers describe the code as it was._');
    const md = new vscode.MarkdownString(parts.join('\n\n---\n\n'));
    md.isTrusted = false;
    md.supportHtml = false;
    return new vscode.Hover(md, document.lineAt(position.line).range);
  }
}
