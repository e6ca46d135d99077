import type * as vscode from 'vscode';
import type { AllocationAnnotation, BlockedAnnotation } from '../../core/annotate';
import { labelsFor, layoutFor } from '../annotations/labelPlacement';
import type { AnnotationStore } from '../annotations/store';
import { allocationLabel, blockedLabel } from './format';
import { runtimePlacement } from './placement';
import type { RuntimeAnnotationStore } from './runtimeStore';

export type RuntimeLabel =
  | { kind: 'allocation'; line: number; text: string; placement: 'after' | 'above'; annotation: AllocationAnnotation }
  | { kind: 'blocked'; line: number; text: string; placement: 'after' | 'above'; annotation: BlockedAnnotation };

/**
 * The allocation and "blocked the loop" labels of one document, each placed after its line or above it
 * (placement.ts), counting the CPU label the line already shows at its end. One allocation label per
 * line: the largest amount (a function's own bytes and its calls' can share a line).
 */
export function runtimeLabelsFor(document: vscode.TextDocument, store: RuntimeAnnotationStore, cpu: AnnotationStore): RuntimeLabel[] {
  const live = store.forDocument(document);
  if (!live) return [];
  const count = document.lineCount;
  const layout = layoutFor(document);
  const cpuLive = cpu.forDocument(document);
  const cpuAfter = new Map<number, string>();
  if (cpuLive) for (const l of labelsFor(document, cpuLive).values()) if (l.placement === 'after') cpuAfter.set(l.line, l.text);
  const out: RuntimeLabel[] = [];
  // What the line already shows at its end: the CPU label, then the runtime labels placed so far.
  const shownAfter = (line: number) => [cpuAfter.get(line), ...out.filter((x) => x.line === line && x.placement === 'after').map((x) => x.text)].filter((t): t is string => t !== undefined);
  if (store.allocationsEnabled) {
    const best = new Map<number, AllocationAnnotation>();
    for (const a of live.allocations) if (a.line < count && (best.get(a.line)?.bytes ?? -1) < a.annotation.bytes) best.set(a.line, a.annotation);
    for (const [line, annotation] of best) {
      const text = allocationLabel(annotation);
      out.push({ kind: 'allocation', line, text, annotation, placement: runtimePlacement(document.lineAt(line).text, shownAfter(line), text, layout) });
    }
  }
  for (const { annotation, line } of live.blocked) {
    if (line >= count) continue;
    const text = blockedLabel(annotation);
    out.push({ kind: 'blocked', line, text, annotation, placement: runtimePlacement(document.lineAt(line).text, shownAfter(line), text, layout) });
  }
  return out;
}
