import * as path from 'node:path';
import * as vscode from 'vscode';
import { detectHarness, taskLines } from '../../core/bench/detect';
import { benchTaskLabel } from '../../core/bench/labels';
import { labelText } from '../../shared/text';
import type { HotpathSession } from '../session';

/** Benchmark files are small; a file larger than this is not scanned for a CodeLens. */
const MAX_SCAN = 512 * 1024;

/**
 * On a benchmark file (it imports tinybench or node:bench): "Benchmark" above it, and after a run each
 * task's line shows its result — ops/s with the interval, time per operation, p99, V8's tier, warnings.
 */
export class BenchmarkLens implements vscode.CodeLensProvider {
  readonly onDidChangeCodeLenses: vscode.Event<void>;

  constructor(private readonly session: HotpathSession) {
    this.onDidChangeCodeLenses = session.onDidChangeBench;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== 'file' || document.getText().length > MAX_SCAN) return [];
    const text = document.getText();
    if (!detectHarness(text)) return [];
    const file = path.normalize(document.uri.fsPath);
    const lenses = [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: '$(beaker) Benchmark', tooltip: 'Run this benchmark file with Hotpath (fresh processes, V8\'s view of each task)', command: 'hotpath.runBenchmark', arguments: [document.uri] })];
    const results = this.session.benchResultsOf(file);
    if (!results) return lenses;
    for (const { name, line } of taskLines(text)) {
      const task = results.find((t) => t.name === name || t.name.endsWith(` › ${name}`));
      if (!task || line - 1 >= document.lineCount) continue;
      lenses.push(new vscode.CodeLens(document.lineAt(line - 1).range, {
        title: labelText(benchTaskLabel(task)),
        tooltip: labelText(task.warnings.length ? task.warnings.map((w) => w.message).join(' ') : `${task.runs} processes, ${task.samples} samples`),
        command: '',
      }));
    }
    return lenses;
  }
}
