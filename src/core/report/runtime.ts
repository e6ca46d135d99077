/** Sections beyond CPU time: routes of a mixed load, allocations and GC, the event loop, leak checks. */
import type { LoadResult } from '../load/result';
import { perSecondSpread } from '../load/perSecondSpread';
import { describeRequests } from '../load/routes';
import { growthRate, type GrowthComparison } from '../memory/growthComparison';
import { noPauseListReason } from '../memory/gc';
import type { LeakSummary } from '../workflow/leakCheck';
import type { EventLoopResult, MemoryResult } from '../workflow/memoryAndLoop';
import { bytes, code, type Inline, int, type Line, line, loc, ms, pct, prose, section, type Section, table, text } from './model';

/** `GET /api/stores · 2,323 req/s ±8.8% second to second · p50 …`: the spread is the stability check's. */
export function loadLine(load: LoadResult): Inline {
  const spread = perSecondSpread(load.requests.perSecond);
  const failures = load.errors + load.timeouts + load.non2xx;
  return [
    code(describeRequests(load.method, load.url, load.routes)), ' · ', int(load.requests.mean), ' req/s', spread ? [' ±', pct(spread.cvPct), ' second to second'] : '',
    ' · p50 ', ms(load.latencyMs.p50), ' · p99 ', ms(load.latencyMs.p99), ` · ${load.connections} connections × ${Math.round(load.durationSeconds)} s · `,
    failures ? [int(failures), ' errors/non-2xx'] : 'no errors',
  ];
}

/** Per route, when the load had several. */
export function routesSection(load: LoadResult): Section | undefined {
  const routes = load.routes ?? [];
  if (routes.length < 2) return undefined;
  return section('routes', [table([['route', 'Route'], ['requests', 'Requests'], ['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['max', 'max'], ['non2xx', 'non-2xx']],
    routes.map((r) => ({ cells: [code(`${r.method} ${r.path}`), int(r.requests), ms(r.latencyMs.p50), ms(r.latencyMs.p90), ms(r.latencyMs.p99), ms(r.latencyMs.max), int(r.non2xx)] })),
    { title: 'Routes' })]);
}

const where = (category: string, pkg: string | null): Inline => (category === 'dependency' ? code(pkg ?? 'dependency') : category === 'node' ? 'Node' : category === 'native' ? 'native' : '');

export function memorySection(memory: MemoryResult | undefined): Section | undefined {
  if (!memory) return undefined;
  const p = memory.gcPauses;
  const gc: Inline = ['GC: ', pct(memory.gcPct), ' of the time in pauses', p ? [' (', int(p.count), ' collections: p50 ', ms(p.p50Ms), ', p99 ', ms(p.p99Ms), ', longest ', ms(p.maxMs), ')'] : [' (', noPauseListReason(memory.allocations !== null), ')']];
  const a = memory.allocations;
  if (!a) return section('memory', [text([gc])]);
  const head: Inline = ['Allocations: ', bytes(a.totalBytes), ' sampled', a.bytesPerRequest !== null ? [' (', bytes(a.bytesPerRequest), '/request)'] : '', ', every ', bytes(a.samplingIntervalBytes), ' on average', a.includesCollected ? ', objects the GC freed included' : ''];
  const shown = a.sites.slice(0, 10);
  const sites = table([['function', 'Function'], ['location', 'Location'], ['perRequest', 'Per request'], ['pct', 'Share'], ['where', 'Where']],
    shown.map((s) => {
      const inlined: Inline = s.inlining?.ranInlinedInto?.length ? ['inlined in ', names(s.inlining.ranInlinedInto)] : s.inlining?.notPlaced ? ['+ inlined ', names(s.inlining.includes ?? [])] : '';
      const at = where(s.category, s.package);
      return { cells: [code(s.function), loc(s.file, s.line), s.bytesPerRequest !== null ? bytes(s.bytesPerRequest) : bytes(s.bytes), pct(s.pct), at && inlined ? [at, '; ', inlined] : at || inlined] };
    }),
    { title: 'Allocation sites (by function; V8 records the allocating function, not the line)', ...(a.sites.length > 10 ? { more: { count: a.sites.length - 10 } } : {}) });
  const notes = inliningNotes(shown);
  return section('memory', [text([gc, head]), sites, ...(notes.length ? [text(notes, 'Inlined code (V8 charges its allocations to the frame it ran in)')] : [])]);
}

/**
 * What ran inlined at the sites shown: V8 charges an inlined callee's allocations to the frame it ran in,
 * so a site's bytes may be its callees' (placed only where nothing else there can allocate).
 */
function inliningNotes(sites: NonNullable<MemoryResult['allocations']>['sites']): Line[] {
  const lines: Line[] = [];
  // The user's own code: a dependency's frame inlines dozens of its helpers, which its user cannot change.
  for (const s of sites.filter((x) => x.category === 'user')) {
    for (const i of s.inlining?.ranInlinedInto ?? []) {
      lines.push(line([code(s.function), ': ', bytes(i.bytes), ' allocated while inlined in ', code(i.function), ' (', loc(i.file, i.line), '), whose own code allocates nothing', i.placement === 'inferred' ? ' (inlining inferred from the source: V8 did not report it)' : ''], 2));
    }
    if (s.inlining?.notPlaced) {
      lines.push(line([code(s.function), ' includes inlined ', names(s.inlining.includes ?? []), '; its bytes are not placed on one function: ', prose(s.inlining.notPlaced)], 2));
    }
  }
  return lines;
}

/** `a, b`; past three, the first three and how many more. */
function names(list: readonly { function: string }[]): Inline {
  const shown = code(list.slice(0, 3).map((x) => x.function).join(', '));
  return list.length > 3 ? [shown, ` +${list.length - 3}`] : shown;
}

export function loopSection(loop: EventLoopResult | undefined): Section | undefined {
  if (!loop) return undefined;
  const d = loop.delayMs;
  const delay: Inline = d ? ['delay p50 ', ms(d.p50), ', p99 ', ms(d.p99), ', max ', ms(d.max)] : ['no delay histogram (', prose(loop.limitation ?? 'the monitor did not run'), ')'];
  const busy: Inline = loop.utilization !== null ? ['; busy ', pct(loop.utilization * 100), ' of the time'] : '';
  const head: Inline = ['Event loop: ', delay, busy, '; ', int(loop.episodes), ` turn${loop.episodes === 1 ? '' : 's'} of `, ms(loop.thresholdMs), ' or more held it for ', ms(loop.blockedMs), ' in all'];
  if (!loop.episodes) return section('loop', [text([head])]);
  const lines = table([['location', 'Line'], ['blockedMs', 'Blocked'], ['episodes', 'Episodes'], ['function', 'Function']],
    loop.blockingLines.slice(0, 8).map((l) => ({ cells: [loc(l.file, l.line), ms(l.blockedMs), int(l.episodes), code(l.function)] })),
    { title: 'Lines that held the loop (CPU time inside those turns)' });
  const longest = [...loop.longTasks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5);
  const tasks: Line[] = longest.map((t) => line([ms(t.durationMs), ' at ', ms(t.startMs), ': ', code(t.function), t.file ? [' (', loc(t.file, t.line), ')'] : '', t.cpuMs < t.durationMs * 0.25 ? [' — the process ran only ', ms(t.cpuMs), ' of it'] : ''], 2));
  return section('loop', [text([head]), ...(loop.blockingLines.length ? [lines] : []), text(tasks, 'Longest turns')]);
}

export function growthLine(leak: LeakSummary): Inline {
  const fit: Inline = [growthRate(leak.bytesPerRequest), ' (95% CI ', growthRate(leak.ciLow), ' … ', growthRate(leak.ciHigh), `, ${leak.n} heap measurements over `, int(leak.requests), ' requests)'];
  if (leak.verdict === 'incomplete') {
    const what = leak.crash?.outOfMemory ? 'the app ran out of memory' : 'the app ended';
    return ['INCOMPLETE: ', what, ' before the check did, no verdict (', leak.n >= 3 ? ['the measurements before: ', fit] : `${leak.n} heap measurement${leak.n === 1 ? '' : 's'} before the end`, ')'];
  }
  return [leak.verdict === 'growing' ? 'GROWING' : 'STABLE', ': ', fit];
}

/** How the app ended (the check's words, then the app's last output, indented); none for a complete check. */
export function crashLines(leak: LeakSummary): Line[] {
  const c = leak.crash;
  if (!c) return [];
  const exit = c.signal ? `killed by ${c.signal}` : c.code !== null ? `exit code ${c.code}` : 'exit not reported';
  return [
    line(prose(c.message)),
    ...(c.output.length ? [line(`Last output of the app (${exit}):`), ...c.output.map((l) => line(code(l), 2))] : [line(`The app printed nothing (${exit}).`)]),
  ];
}

/** The heap limit the app ran under, and who set it (the check's ceiling, or the app). */
export function heapLimitLine(leak: LeakSummary): Inline {
  const c = leak.heapCeiling;
  const limit: Inline = c.heapSizeLimitBytes !== null ? bytes(c.heapSizeLimitBytes) : 'unknown';
  return c.setBy === 'hotpath'
    ? ['Heap limit during the check: ', limit, ` (the check's ceiling, --max-old-space-size=${c.maxOldSpaceMb}; set your own in NODE_OPTIONS to change it)`]
    : ['Heap limit during the check: ', limit, ` (the app's own${c.maxOldSpaceMb !== null ? ` --max-old-space-size=${c.maxOldSpaceMb}` : ''})`];
}

export function leakComparisonLine(c: GrowthComparison | undefined | null, since?: string): Inline | undefined {
  if (!c) return undefined;
  return ['Compared with the check of ', code(since ?? 'the baseline'), ': ', prose(c.summary)];
}

/** The heap at each rung, and the objects that stayed (with their allocating lines). */
export function leakSections(l: LeakSummary): Section[] {
  const rungs = table([['measured', 'Measured'], ['requests', 'Requests'], ['heapUsed', 'Heap used'], ['external', 'External']],
    l.rungs.map((g) => ({ cells: [g.phase === 'warmup' ? 'after warm-up' : g.phase === 'idle' ? 'after idle' : 'after load', int(g.requests), bytes(g.heapUsedBytes), g.externalBytes !== undefined ? bytes(g.externalBytes) : ''] })),
    { title: `Heap after each forced full GC${l.crash ? ' (before the app ended)' : ''}` });
  const none = text(['  (none)'], `Heap after each forced full GC${l.crash ? ' (before the app ended)' : ''}`);
  const out = [section('leak', [l.rungs.length ? rungs : none, text([heapLimitLine(l)])])];
  if (l.sites.length) {
    out.push(section('leak', [table([['function', 'Retained by'], ['location', 'Location'], ['perRequest', 'Per request'], ['retained', 'Retained'], ['where', 'Where']],
      l.sites.slice(0, 8).map((s) => ({ cells: [code(s.function), loc(s.file, s.line), bytes(s.retainedBytesPerRequest), bytes(s.retainedBytes), where(s.category, s.package)] })),
      { title: ['Allocated during the check and still alive after the last GC (sampled every ', bytes(l.samplingIntervalBytes), ')'], ...(l.sites.length > 8 ? { more: { count: l.sites.length - 8 } } : {}) })]));
  }
  return out;
}

/** The user line whose objects stay, when the heap grows. */
export function leakCulprit(l: LeakSummary): Inline | undefined {
  const top = l.sites.find((s) => s.category === 'user');
  if (l.verdict !== 'growing' || !top) return undefined;
  return ['Objects that stay were allocated in ', code(top.function), ' at ', loc(top.file, top.line), ' (', bytes(top.retainedBytesPerRequest), '/request).'];
}
