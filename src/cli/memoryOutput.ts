/**
 * The CLI's text for routes, allocations, GC, the event loop and leak checks. Every name and path from
 * the app goes through `text`/`location` (terminal-safe); every number through the shared formatters.
 */
import Table from 'cli-table3';
import type { LoadResult } from '../core/load/result';
import { growthRate } from '../core/memory/growthComparison';
import type { LeakResult, LeakSummary } from '../core/workflow/leakCheck';
import type { EventLoopResult, MemoryResult } from '../core/workflow/memoryAndLoop';
import { formatBytes, formatPct } from '../shared/text/numbers';
import { int, location, ms, text } from './format';
import { renderChecks, warningsBlock } from './humanOutput';
import type { GrowthComparison } from '../core/memory/growthComparison';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

/** Per route, when the load had several. */
export function routesBlock(load: LoadResult): string {
  const routes = load.routes ?? [];
  if (routes.length < 2) return '';
  const table = new Table({ ...plain, head: ['Route', 'Requests', 'p50', 'p90', 'p99', 'max', 'non-2xx'] });
  for (const r of routes) table.push([text(`${r.method} ${r.path}`), int(r.requests), ms(r.latencyMs.p50), ms(r.latencyMs.p90), ms(r.latencyMs.p99), ms(r.latencyMs.max), int(r.non2xx)]);
  return `\nRoutes:\n${table.toString()}\n`;
}

const where = (category: string, pkg: string | null) => (category === 'dependency' ? pkg ?? 'dependency' : category === 'node' ? 'Node' : category === 'native' ? 'native' : '');

export function memoryBlock(memory: MemoryResult | undefined, cwd: string): string {
  if (!memory) return '';
  const p = memory.gcPauses;
  const gc = `GC: ${formatPct(memory.gcPct)} of the time in pauses${p ? ` (${int(p.count)} collections: p50 ${ms(p.p50Ms)}, p99 ${ms(p.p99Ms)}, longest ${ms(p.maxMs)})` : ' (from the CPU profile; no pause list)'}`;
  const a = memory.allocations;
  if (!a) return `\n${gc}\n`;
  const head = `Allocations: ${formatBytes(a.totalBytes)} sampled${a.bytesPerRequest !== null ? ` (${formatBytes(a.bytesPerRequest)}/request)` : ''}, every ${formatBytes(a.samplingIntervalBytes)} on average${a.includesCollected ? ', objects the GC freed included' : ''}`;
  const table = new Table({ ...plain, head: ['Function', 'Location', 'Per request', 'Share', 'Where'] });
  const shown = a.sites.slice(0, 10);
  for (const s of shown) {
    const inlined = s.inlining?.ranInlinedInto?.length ? `inlined in ${names(s.inlining.ranInlinedInto)}` : s.inlining?.notPlaced ? `+ inlined ${names(s.inlining.includes ?? [])}` : '';
    table.push([text(s.function), location(s.file, s.line, cwd), s.bytesPerRequest !== null ? `${formatBytes(s.bytesPerRequest)}` : formatBytes(s.bytes), formatPct(s.pct), text([where(s.category, s.package), inlined].filter(Boolean).join('; '))]);
  }
  const notes = inliningNotes(shown, cwd);
  return `\n${gc}\n${head}\nAllocation sites (by function; V8 records the allocating function, not the line):\n${table.toString()}\n${notes}`;
}

/**
 * What ran inlined at the sites shown: V8 charges an inlined callee's allocations to the frame it ran in,
 * so a site's bytes may be its callees' (placed only where nothing else there can allocate).
 */
function inliningNotes(sites: NonNullable<MemoryResult['allocations']>['sites'], cwd: string): string {
  const lines: string[] = [];
  // The user's own code: a dependency's frame inlines dozens of its helpers, which its user cannot change.
  for (const s of sites.filter((x) => x.category === 'user')) {
    for (const i of s.inlining?.ranInlinedInto ?? []) {
      lines.push(`  ${text(s.function)}: ${formatBytes(i.bytes)} allocated while inlined in ${text(i.function)} (${location(i.file, i.line, cwd)}), whose own code allocates nothing${i.placement === 'inferred' ? ' (inlining inferred from the source: V8 did not report it)' : ''}`);
    }
    if (s.inlining?.notPlaced) {
      lines.push(`  ${text(s.function)} includes inlined ${text(names(s.inlining.includes ?? []))}; its bytes are not placed on one function: ${text(s.inlining.notPlaced)}`);
    }
  }
  return lines.length ? `Inlined code (V8 charges its allocations to the frame it ran in):\n${lines.join('\n')}\n` : '';
}

/** `a, b`; past three, the first three and how many more. */
function names(list: readonly { function: string }[]): string {
  const shown = list.slice(0, 3).map((x) => x.function).join(', ');
  return list.length > 3 ? `${shown} +${list.length - 3}` : shown;
}

export function eventLoopBlock(loop: EventLoopResult | undefined, cwd: string): string {
  if (!loop) return '';
  const d = loop.delayMs;
  const delay = d ? `delay p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}` : `no delay histogram (${text(loop.limitation ?? 'the monitor did not run')})`;
  const busy = loop.utilization !== null ? `; busy ${formatPct(loop.utilization * 100)} of the time` : '';
  const head = `Event loop: ${delay}${busy}; ${int(loop.episodes)} turn${loop.episodes === 1 ? '' : 's'} of ${ms(loop.thresholdMs)} or more held it for ${ms(loop.blockedMs)} in all`;
  if (!loop.episodes) return `\n${head}\n`;
  const lines = new Table({ ...plain, head: ['Line', 'Blocked', 'Episodes', 'Function'] });
  for (const l of loop.blockingLines.slice(0, 8)) lines.push([location(l.file, l.line, cwd), ms(l.blockedMs), int(l.episodes), text(l.function)]);
  const longest = [...loop.longTasks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5);
  const tasks = longest.map((t) => `  ${ms(t.durationMs)} at ${ms(t.startMs)}: ${text(t.function)}${t.file ? ` (${location(t.file, t.line, cwd)})` : ''}${t.cpuMs < t.durationMs * 0.25 ? ` — the process ran only ${ms(t.cpuMs)} of it` : ''}`).join('\n');
  return `\n${head}\n${loop.blockingLines.length ? `Lines that held the loop (CPU time inside those turns):\n${lines.toString()}\n` : ''}Longest turns:\n${tasks}\n`;
}

export function growthLine(leak: LeakSummary): string {
  return `${leak.verdict === 'growing' ? 'GROWING' : 'STABLE'}: ${growthRate(leak.bytesPerRequest)} (95% CI ${growthRate(leak.ciLow)} … ${growthRate(leak.ciHigh)}, ${leak.n} heap measurements over ${int(leak.requests)} requests)`;
}

export function comparisonLine(c: GrowthComparison | undefined | null, since?: string): string {
  if (!c) return '';
  return `Compared with the check of ${text(since ?? 'the baseline')}: ${text(c.summary)}\n`;
}

export function renderLeak(r: LeakResult, cwd: string): string {
  const l = r.leak;
  const rungs = new Table({ ...plain, head: ['Measured', 'Requests', 'Heap used', 'External'] });
  for (const g of l.rungs) rungs.push([g.phase === 'warmup' ? 'after warm-up' : g.phase === 'idle' ? 'after idle' : 'after load', int(g.requests), formatBytes(g.heapUsedBytes), g.externalBytes !== undefined ? formatBytes(g.externalBytes) : '']);
  const sites = new Table({ ...plain, head: ['Retained by', 'Location', 'Per request', 'Retained', 'Where'] });
  for (const s of l.sites.slice(0, 8)) sites.push([text(s.function), location(s.file, s.line, cwd), `${formatBytes(s.retainedBytesPerRequest)}`, formatBytes(s.retainedBytes), text(where(s.category, s.package))]);
  const top = l.sites.find((s) => s.category === 'user');
  const culprit = l.verdict === 'growing' && top ? `Objects that stay were allocated in ${text(top.function)} at ${location(top.file, top.line, cwd)} (${formatBytes(top.retainedBytesPerRequest)}/request).\n` : '';
  return `Hotpath leak check '${text(r.name)}': ${text(r.target.command.join(' '))} (Node ${text(r.target.nodeVersion)})\n` +
    `Heap after full GC: ${growthLine(l)}\n${culprit}${comparisonLine(r.previous?.comparison, r.previous?.createdAt)}` +
    `\nHeap after each forced full GC:\n${rungs.toString()}\n` +
    (l.sites.length ? `\nAllocated during the check and still alive after the last GC (sampled every ${formatBytes(l.samplingIntervalBytes)}):\n${sites.toString()}\n` : '') +
    renderChecks('Checks', r.checks) + warningsBlock(r.warnings) +
    (l.heapProfilePath ? `\nRetained objects' heap profile: ${text(l.heapProfilePath)}\n` : '');
}
