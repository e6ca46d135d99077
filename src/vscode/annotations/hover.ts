import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FunctionAnnotation } from '../../core/annotate';
import type { AnnotationStore } from './store';
import { deoptHover, functionHover, lineHover } from './format';

/** Hover on a hot line or a hot function's declaration: the numbers behind the decoration. */
export class HotLineHover implements vscode.HoverProvider {
  constructor(private readonly store: AnnotationStore, private readonly v8Markdown: (f: FunctionAnnotation) => string | undefined) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const live = this.store.forDocument(document);
    if (!live) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(document.uri)?.uri.fsPath;
    const base = (file: string) => (folder && file.startsWith(folder + path.sep) ? path.relative(folder, file) : path.basename(file));
    const profileName = path.basename(this.store.profilePath ?? '');
    const threads = this.store.current?.threads;
    const parts: string[] = [];
    for (const f of live.functions) if (f.line === position.line) parts.push(functionHover(f.annotation, profileName, base, this.v8Markdown(f.annotation), threads));
    for (const l of live.lines) if (l.line === position.line) parts.push(lineHover(l.annotation, profileName, base, threads));
    for (const d of live.deopts) if (d.line === position.line) parts.push(deoptHover(d.annotation));
    if (!parts.length) return undefined;
    if (live.edited) parts.push('_The file changed since this profile; the numbers describe the code as it was._');
    const md = new vscode.MarkdownString(parts.join('\n\n---\n\n'));
    md.isTrusted = false;
    md.supportHtml = false;
    return new vscode.Hover(md, document.lineAt(position.line).range);
  }
}
