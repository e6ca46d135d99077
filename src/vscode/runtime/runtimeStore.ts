import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AllocationAnnotation, BlockedAnnotation, RuntimeFileAnnotations } from '../../core/annotate';
import { fileKey } from '../annotations/store';
import { mapLineThroughEdits, type LineEdit } from '../annotations/lineTracking';
import type { AnnotationStore } from '../annotations/store';
import type { HotpathSession } from '../session';

/** One file's allocation, retained and blocked lines as they are now (edits applied). */
export interface LiveRuntimeFile {
  allocations: { annotation: AllocationAnnotation; line: number }[];
  blocked: { annotation: BlockedAnnotation; line: number }[];
  edited: boolean;
}

/**
 * Allocation, leak and event-loop annotations, by file, following edits: the current profile's (its
 * allocations and blocking lines) and the last leak check's retained lines. Shown when the hot-line
 * annotations are (Clear and Toggle act on both); allocation labels have their own switch
 * (`hotpath.annotations.allocations`, "Toggle Allocation Annotations").
 */
export class RuntimeAnnotationStore implements vscode.Disposable {
  private fromProfile = new Map<string, RuntimeFileAnnotations>();
  private retained = new Map<string, RuntimeFileAnnotations>();
  private retainedSource = '';
  private files = new Map<string, LiveRuntimeFile>();
  private allocations: boolean;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(session: HotpathSession, private readonly cpu: AnnotationStore) {
    this.allocations = vscode.workspace.getConfiguration('hotpath.annotations').get<boolean>('allocations', true);
    this.disposables.push(
      session.onDidChangeProfile((p) => {
        this.fromProfile = p?.runtime ?? new Map();
        if (!p) { this.retained = new Map(); this.retainedSource = ''; }
        this.rebuild();
      }),
      cpu.onDidChange(() => this.changed.fire()),
      vscode.workspace.onDidChangeTextDocument((e) => this.track(e)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('hotpath.annotations.allocations')) this.setAllocationsEnabled(vscode.workspace.getConfiguration('hotpath.annotations').get<boolean>('allocations', true));
      }),
      this.changed,
    );
    this.fromProfile = session.profile?.runtime ?? new Map();
    this.rebuild();
  }

  get allocationsEnabled(): boolean { return this.allocations; }
  /** The leak check the retained lines come from (hovers name it). */
  get leakSource(): string { return this.retainedSource; }

  setAllocationsEnabled(enabled: boolean): void {
    if (enabled === this.allocations) return;
    this.allocations = enabled;
    this.changed.fire();
  }

  /** The retained lines of a leak check (replacing the previous check's). */
  setRetained(files: Map<string, RuntimeFileAnnotations>, source: string): void {
    this.retained = files;
    this.retainedSource = source;
    this.rebuild();
  }

  forDocument(document: vscode.TextDocument): LiveRuntimeFile | undefined {
    if (!this.cpu.isEnabled || document.uri.scheme !== 'file') return undefined;
    return this.files.get(path.normalize(document.uri.fsPath));
  }

  allFiles(): LiveRuntimeFile[] { return [...this.files.values()]; }

  private rebuild(): void {
    this.files.clear();
    for (const source of [this.fromProfile, this.retained]) {
      for (const [file, a] of source) {
        const key = fileKey(file);
        let live = this.files.get(key);
        if (!live) this.files.set(key, (live = { allocations: [], blocked: [], edited: false }));
        live.allocations.push(...a.allocations.map((annotation) => ({ annotation, line: annotation.line - 1 })));
        live.blocked.push(...a.blocked.map((annotation) => ({ annotation, line: annotation.line - 1 })));
      }
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
    live.allocations = live.allocations.map((a) => ({ ...a, line: mapLineThroughEdits(a.line, edits) })).filter((a) => a.line >= 0);
    live.blocked = live.blocked.map((b) => ({ ...b, line: mapLineThroughEdits(b.line, edits) })).filter((b) => b.line >= 0);
    live.edited = true;
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
