/**
 * The CLI's text for routes, allocations, GC, the event loop and leak checks: the report model's
 * sections (src/core/report/runtime.ts) as the terminal shows them.
 */
import type { LoadResult } from '../core/load/result';
import type { GrowthComparison } from '../core/memory/growthComparison';
import type { LeakResult, LeakSummary } from '../core/workflow/leakCheck';
import type { EventLoopResult, MemoryResult } from '../core/workflow/memoryAndLoop';
import type { Section } from '../core/report/model';
import { inlineTerminal, renderSectionsTerminal, renderTerminal } from '../core/report/render/terminal';
import { growthLine as growthInline, leakComparisonLine, loopSection, memorySection, routesSection } from '../core/report/runtime';
import { leakReport } from '../core/report/runs';

const sectionText = (s: Section | undefined, cwd: string) => (s ? renderSectionsTerminal([s], { cwd }) : '');

/** Per route, when the load had several. */
export function routesBlock(load: LoadResult): string {
  return sectionText(routesSection(load), '');
}

export function memoryBlock(memory: MemoryResult | undefined, cwd: string): string {
  return sectionText(memorySection(memory), cwd);
}

export function eventLoopBlock(loop: EventLoopResult | undefined, cwd: string): string {
  return sectionText(loopSection(loop), cwd);
}

export function growthLine(leak: LeakSummary): string {
  return inlineTerminal(growthInline(leak), '');
}

export function comparisonLine(c: GrowthComparison | undefined | null, since?: string): string {
  const l = leakComparisonLine(c, since);
  return l ? `${inlineTerminal(l, '')}\n` : '';
}

export function renderLeak(r: LeakResult, cwd: string): string {
  return renderTerminal(leakReport(r, { cwd }), { cwd });
}
