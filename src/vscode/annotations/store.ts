import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vscode from 'vscode';
import type { Annotations, DeoptAnnotation, FileAnnotations, FunctionAnnotation, LineAnnotation } from '../../core/annotate';
import type { HotpathSession, LoadedProfile } from '../session';
import { mapLineThroughEdits, type LineEdit } from './lineTracking';

/** A profile path as an editor path: file URLs to paths, normalised, so lookups by document match. */
export function fileKey(file: string): string {
  if (file.startsWith('file://')) {
    try { return path.normalize(fileURLToPath(file)); } catch { return file; }
  }
  return path.isAbsolute(file) ? path.normalize(file) : file;
}

/** One file's annotations with lines as they are now (edits applied); stale entries are gone. */
export interface LiveFile {
  source: FileAnnotations;
  functions: { annotation: FunctionAnnotation; line: number }[];
  lines: { annotation: LineAnnotation; line: number }[];
  deopts: { annotation: DeoptAnnotation; line: number }[];
  /** The document changed since the profile: numbers describe the code as it was. */
  edited: boolean;
}

/**
 * The annotations of the current profile, by file, following the user's edits. CodeLens, decorations and
 * hovers read from here; `onDidChange` tells them to refresh.
 */
export class AnnotationStore implements vscode.Disposable {
  private files = new Map<string, LiveFile>();
  private annotations: Annotations | undefined;
  private enabled: boolean;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(session: HotpathSession) {
    this.enabled = vscode.workspace.getConfiguration('hotpath.annotations').get<boolean>('enabled', true);
    this.disposables.push(
      session.onDidChangeProfile((p) => this.load(p)),
      vscode.workspace.onDidChangeTextDocument((e) => this.track(e)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('hotpath.annotations.enabled')) this.setEnabled(vscode.workspace.getConfiguration('hotpath.annotations').get<boolean>('enabled', true));
        // Where labels go (after a line or above it) follows these.
        else if (['hotpath.annotations.labelColumn', 'editor.codeLens', 'editor.wordWrap', 'editor.tabSize'].some((k) => e.affectsConfiguration(k))) this.changed.fire();
      }),
      this.changed,
    );
    this.load(session.profile);
  }

  get isEnabled(): boolean { return this.enabled; }
  get profilePath(): string | undefined { return this.annotations?.profilePath; }
  get current(): Annotations | undefined { return this.annotations; }

  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    this.changed.fire();
  }

  clear(): void {
    this.annotations = undefined;
    this.files.clear();
    this.changed.fire();
  }

  forDocument(document: vscode.TextDocument): LiveFile | undefined {
    if (!this.enabled || document.uri.scheme !== 'file') return undefined;
    return this.files.get(path.normalize(document.uri.fsPath));
  }

  /** All files with annotations (the Hotspots view and tests). */
  allFiles(): LiveFile[] { return [...this.files.values()]; }

  private load(profile: LoadedProfile | undefined): void {
    this.annotations = profile?.annotations;
    this.files.clear();
    for (const [file, source] of profile?.annotations.files ?? []) {
      this.files.set(fileKey(file), {
        source,
        functions: source.functions.map((annotation) => ({ annotation, line: annotation.line - 1 })),
        lines: source.lines.map((annotation) => ({ annotation, line: annotation.line - 1 })),
        deopts: source.deopts.map((annotation) => ({ annotation, line: annotation.line - 1 })),
        edited: false,
      });
    }
    this.changed.fire();
  }

  private track(event: vscode.TextDocumentChangeEvent): void {
    if (event.contentChanges.length === 0 || event.document.uri.scheme !== 'file') return;
    const live = this.files.get(path.normalize(event.document.uri.fsPath));
    if (!live) return;
    const edits: LineEdit[] = event.contentChanges.map((c) => ({
      startLine: c.range.start.line,
      endLine: c.range.end.line,
      insertedLines: (c.text.match(/\n/g) ?? []).length,
      pureInsertAbove: c.range.isEmpty && c.range.start.character === 0 && c.text.endsWith('\n'),
    }));
    live.lines = live.lines.map((l) => ({ ...l, line: mapLineThroughEdits(l.line, edits) })).filter((l) => l.line >= 0);
    live.deopts = live.deopts.map((d) => ({ ...d, line: mapLineThroughEdits(d.line, edits) })).filter((d) => d.line >= 0);
    // A function keeps its CodeLens while its declaration line exists; the lens then says "edited".
    live.functions = live.functions.map((f) => ({ ...f, line: mapLineThroughEdits(f.line, edits) })).filter((f) => f.line >= 0);
    live.edited = true;
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
