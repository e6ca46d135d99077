/**
 * Checks after a run that say, in a Node developer's words, when it is not the CPU profile's hot code
 * that limits the app but GC (allocation churn), a blocked event loop, or a growing heap — with the
 * usual fixes, naming the line where the run found one. They join the production-parity checklist.
 */
import { formatBytes, formatMs, formatPct } from '../../shared/text/numbers';
import type { GrowthSummary } from '../memory/growthComparison';
import { growthRate } from '../memory/growthComparison';
import { noPauseListReason } from '../memory/gc';
import type { PreflightCheck } from './preflight';
import type { EventLoopResult, MemoryResult } from './memoryAndLoop';

/** GC above this share of the window is worth a warning; above the lower one, a note. */
export const GC_WARN_PCT = 10;
export const GC_INFO_PCT = 5;
/** Loop delay p99 above this is worth a warning (ms); above the lower one, a note. */
export const DELAY_WARN_MS = 50;
export const DELAY_INFO_MS = 20;

const where = (file: string, line: number | null) => `${file.split(/[\\/]/).pop()}${line ? `:${line}` : ''}`;

function topUserSite(memory: MemoryResult) {
  return memory.allocations?.sites.find((s) => s.category === 'user');
}

export function gcCheck(memory: MemoryResult): PreflightCheck {
  const pauses = memory.gcPauses;
  const observed = `${formatPct(memory.gcPct)} of the time in GC pauses${pauses ? ` (${pauses.count} collections, p99 ${formatMs(pauses.p99Ms)}, longest ${formatMs(pauses.maxMs)})` : ` (${noPauseListReason(memory.allocations !== null)})`}`;
  // Titles state what was found (the checklist reads as findings), not the goal.
  if (memory.gcPct < GC_INFO_PCT) return { id: 'gc-share', status: 'pass', title: 'GC not a bottleneck', observed };
  const title = memory.gcPct >= GC_WARN_PCT ? 'GC takes a large share of the time' : 'GC takes a noticeable share of the time';
  const site = topUserSite(memory);
  const perRequest = memory.allocations?.bytesPerRequest;
  const named = site
    ? ` The biggest allocator of your code is ${site.function} (${where(site.file, site.line)}): ${site.bytesPerRequest !== null ? `${formatBytes(site.bytesPerRequest)}/request` : formatBytes(site.bytes)} of ${perRequest ? `${formatBytes(perRequest)}/request` : 'the allocations'}.`
    : memory.allocations ? '' : ' Run with --memory (VS Code: hotpath.profile.memory) to see which lines allocate.';
  return {
    id: 'gc-share', status: memory.gcPct >= GC_WARN_PCT ? 'warn' : 'info', title, observed,
    advice: `Allocation churn: every object a request creates must be collected, and the pauses stop the event loop.${named} Reuse buffers and objects across requests, hoist closures, regular expressions and constant objects out of hot functions, avoid chains of map/filter that build intermediate arrays, and stream large responses instead of building them in memory.`,
  };
}

export function loopCheck(loop: EventLoopResult): PreflightCheck {
  const d = loop.delayMs;
  const top = loop.blockingLines[0];
  const longest = loop.longTasks.reduce((m, t) => Math.max(m, t.durationMs), 0);
  const observed = d
    ? `event-loop delay p50 ${formatMs(d.p50)}, p99 ${formatMs(d.p99)}, max ${formatMs(d.max)}; ${loop.episodes} turn${loop.episodes === 1 ? '' : 's'} over ${formatMs(loop.thresholdMs)}${loop.utilization !== null ? `; loop busy ${formatPct(loop.utilization * 100)} of the time` : ''}`
    : `${loop.episodes} turn${loop.episodes === 1 ? '' : 's'} over ${formatMs(loop.thresholdMs)} (no delay histogram: ${loop.limitation ?? 'the monitor did not run'})`;
  const p99 = d?.p99 ?? longest;
  if (p99 < DELAY_INFO_MS && loop.episodes === 0) return { id: 'loop-delay', status: 'pass', title: 'Event loop not blocked', observed };
  const title = p99 >= DELAY_WARN_MS ? 'Event loop blocked' : 'Event loop delayed at times';
  const named = top
    ? ` Most of the blocked time ran at ${top.function} (${where(top.file, top.line)}): ${formatMs(top.blockedMs)} in ${top.episodes} episode${top.episodes === 1 ? '' : 's'}.`
    : '';
  return {
    id: 'loop-delay', status: p99 >= DELAY_WARN_MS ? 'warn' : 'info', title, observed,
    advice: `While one request runs synchronous code, every other request waits: their p99 latency shows it, not this route's.${named} Use the async form of the API (crypto.pbkdf2 instead of pbkdf2Sync, fs.promises, zlib's streams), split long loops into chunks with setImmediate, or move the work to a worker thread (worker_threads, a pool such as Piscina).`,
  };
}

/** The leak check's verdict as a check (hotpath leak, verify with a leak check). */
export function growthCheck(growth: GrowthSummary, site?: { function: string; file: string; line: number | null }): PreflightCheck {
  const observed = `heap after full GC: ${growthRate(growth.bytesPerRequest)} (95% CI ${growthRate(growth.ciLow)} … ${growthRate(growth.ciHigh)})`;
  if (growth.verdict === 'stable') return { id: 'heap-growth', status: 'pass', title: 'Heap stable under load', observed };
  return {
    id: 'heap-growth', status: 'warn', title: 'Heap grows with every request', observed,
    advice: `The heap keeps what each request allocates, so the process grows until it is killed or spends its time in GC.${site ? ` The objects that stay were allocated in ${site.function} (${where(site.file, site.line)}).` : ''} Bound caches (an LRU with a maximum size or a TTL), do not keep per-request data in module-level arrays or maps, remove event listeners and timers you add per request, and close what you open.`,
  };
}

/** A leak check the app did not survive: the heap-growth check says so instead of a verdict. */
export function crashCheck(crash: { outOfMemory: boolean; message: string }): PreflightCheck {
  return {
    id: 'heap-growth', status: 'warn',
    title: crash.outOfMemory ? 'The app ran out of memory during the leak check' : 'The app ended during the leak check',
    observed: 'no verdict: the check is incomplete', advice: crash.message,
  };
}

export function runtimeChecks(memory: MemoryResult | undefined, loop: EventLoopResult | undefined): PreflightCheck[] {
  return [...(memory ? [gcCheck(memory)] : []), ...(loop ? [loopCheck(loop)] : [])];
}
