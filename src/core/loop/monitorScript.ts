/**
 * The event-loop and GC monitor Hotpath evaluates inside the target over the inspector (launch and
 * attach alike), started right before the measured load and read right after it:
 *
 * - delay percentiles: how late the tick below ran each time, in a `perf_hooks` histogram (what Node's
 *   `monitorEventLoopDelay` measures with a timer of its own — a second timer waking the loop, which the
 *   monitor used until the tick's own lateness replaced it: +1.7% main-thread CPU per request alone);
 * - event-loop utilization (`performance.eventLoopUtilization`) over the window;
 * - with `gcPauses` (`--memory`), every GC pause (main-thread pause per collection, by kind) from
 *   `v8.GCProfiler`, recorded by V8's own GC callbacks in C++ and read once a second from the tick (its
 *   JSON, ≈3.5 KB and ≈25 µs of parsing per collection, stays small and the read short). Recording every
 *   collection is the monitor's one real cost, so it is not on by default: on a fast endpoint the defaults
 *   with it cost +6.3% main-thread CPU per request (95% CI +3.2 … +9.5) and +1.7% (−2.1 … +5.6) without
 *   it, the same as without the monitor at all (+1.8%), in one run (`npm run bench -- overhead`,
 *   concurrent pairs, 12 rounds). A `PerformanceObserver` of `gc` entries, the source before, calls into
 *   JS for every collection and cost more still (+6.9% alone, against +0.4% for the GC profiler unread);
 * - loop turns longer than a threshold, with their start and end on the process's monotonic clock (the
 *   clock of the CPU profile's timestamps), from a repeating timer (every `tickMs`) that measures how late
 *   it fires: a late tick means the loop did not come back to its timers, i.e. one turn ran that long.
 *   An episode is the part of the turn that is certain — from when the tick was due to when it ran — so
 *   a turn's first `tickMs` at most go uncounted: every turn of threshold + `tickMs` or more counts, and
 *   a shorter one when its certain part reaches the threshold. The tick is every 20 ms (never more than
 *   the threshold), not 5 or 1: every early wake-up of a loaded loop costs far more than the tick's own
 *   code. On a fast endpoint (examples/shop in production) a bare 1 ms timer cost +8.4% main-thread CPU
 *   per request, 5 ms +4.2% (+0.4 … +8.2), 20 ms −0.1% (−2.6 … +2.5) (concurrent pairs; the last two
 *   in one 12-round run).
 *
 * Why a timer and not only the CPU profile: under load the main thread is rarely idle, so runs of
 * consecutive non-idle samples last hundreds of ms while every turn of the loop is short (measured on
 * an Express route at 3,000 req/s: 73 such runs over 20 ms, none a long task). The profile then says
 * what ran during each long turn.
 *
 * Everything in the target is named hotpath… so the profile shows it as Hotpath's own frames.
 */

/** Symbol.for key of the monitor object on globalThis (non-enumerable: the app never sees it). */
export const MONITOR_KEY = 'hotpath.loopMonitor';

export interface MonitorStartOptions {
  /** Loop turns at least this long are recorded as blocking episodes, ms. */
  thresholdMs: number;
  /** How often the turn-timing tick is due, ms (1–20, and never more than thresholdMs). */
  tickMs: number;
  /** Record every GC pause (v8.GCProfiler): it costs the app, so only `--memory` asks for it. */
  gcPauses: boolean;
  /** How often the tick reads the GC profiler's record and starts a new one, ms: its JSON stays small. */
  gcReadMs: number;
  /** At most this many episodes are kept (the longest are what matters; the rest are counted). */
  maxEpisodes: number;
}

/** What the monitor reports for the window (times in ms unless said otherwise). */
export interface MonitorReport {
  /** Event-loop delay percentiles: how late the tick ran (ms; count = ticks). */
  delay: { p50: number; p90: number; p99: number; max: number; mean: number; count: number };
  /** Share of the window the loop was busy (0–1). */
  utilization: number;
  windowMs: number;
  /** null when gcPauses was off. */
  gc: { count: number; totalMs: number; /** [durationMs, kind] pairs, the first maxGcEntries. */ entries: number[] } | null;
  /** [startUs, endUs] pairs on the monotonic clock (µs), in order. */
  episodes: number[];
  /** Episodes seen in all, including any beyond maxEpisodes. */
  episodeCount: number;
  /** process.hrtime at start and stop, µs (the same clock as the CPU profile's timestamps). */
  startUs: number;
  stopUs: number;
}

/** Installs the monitor object (idempotent); returns true. Nothing runs until start(). */
export const INSTALL_MONITOR_EXPRESSION = `(() => {
  const key = Symbol.for(${JSON.stringify(MONITOR_KEY)});
  if (globalThis[key]) return true;
  const ph = process.getBuiltinModule('perf_hooks');
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const v8 = process.getBuiltinModule('v8');
  // v8.GCProfiler's gcType → perf_hooks' NODE_PERFORMANCE_GC_* kind (what gc.ts reads).
  const gcKind = (type) => /^(Scavenge|Minor)/.test(type) ? 1 : type === 'MarkSweepCompact' ? 4 : type === 'IncrementalMarking' ? 8 : type === 'ProcessWeakCallbacks' ? 16 : 0;
  let state = null;
  function hotpathGcHarvest(s, restart) {
    if (!s.gcProfiler) return;
    let stats = [];
    try { stats = s.gcProfiler.stop().statistics || []; } catch {}
    for (const e of stats) {
      const ms = e.cost / 1000;
      s.gcCount++;
      s.gcTotal += ms;
      if (s.gc.length < 40000) s.gc.push(Math.round(ms * 1000) / 1000, gcKind(e.gcType));
    }
    if (restart) s.gcProfiler.start();
  }
  function hotpathLoopMonitorStop() {
    if (!state) return null;
    const s = state;
    state = null;
    clearInterval(s.timer);
    hotpathGcHarvest(s, false);
    const elu = ph.performance.eventLoopUtilization(s.elu);
    const h = s.delays;
    const count = h.count;
    // The histogram answers with the top of a bucket (3 digits), which can lie above the longest delay seen.
    const ms = (us) => Math.min(us, Math.max(1, Math.round(s.longestUs))) / 1000;
    const stopUs = nowUs();
    return JSON.stringify({
      delay: count > 0 ? { p50: ms(h.percentile(50)), p90: ms(h.percentile(90)), p99: ms(h.percentile(99)), max: s.longestUs / 1000, mean: ms(h.mean), count } : { p50: 0, p90: 0, p99: 0, max: 0, mean: 0, count: 0 },
      utilization: elu.utilization,
      windowMs: (stopUs - s.startUs) / 1000,
      gc: s.gcProfiler ? { count: s.gcCount, totalMs: s.gcTotal, entries: s.gc } : null,
      episodes: s.episodes,
      episodeCount: s.episodeCount,
      startUs: s.startUs,
      stopUs,
    });
  }
  function hotpathLoopMonitorStart(options) {
    if (state) hotpathLoopMonitorStop();
    const s = { delays: ph.createHistogram(), elu: ph.performance.eventLoopUtilization(), gc: [], gcCount: 0, gcTotal: 0, episodes: [], episodeCount: 0, longestUs: 0, startUs: nowUs() };
    if (options.gcPauses) {
      s.gcProfiler = new v8.GCProfiler();
      s.gcProfiler.start();
    }
    s.gcHarvestedUs = s.startUs;
    const thresholdUs = options.thresholdMs * 1000;
    const maxPairs = options.maxEpisodes * 2;
    const tickMs = Math.max(1, Math.min(20, Math.round(options.tickMs || 20), Math.floor(options.thresholdMs)));
    const tickUs = tickMs * 1000;
    const gcReadUs = Math.max(tickMs, options.gcReadMs || 1000) * 1000;
    let last = nowUs();
    s.timer = setInterval(function hotpathLoopTick() {
      const now = nowUs();
      // The tick was due one period after the previous one; anything later is time the loop spent elsewhere.
      const due = last + tickUs;
      const late = now - due;
      if (late > s.longestUs) s.longestUs = late;
      s.delays.record(late >= 1 ? Math.round(late) : 1); // the histogram takes integers ≥ 1 (µs)
      if (late >= thresholdUs) {
        s.episodeCount++;
        if (s.episodes.length < maxPairs) s.episodes.push(due, now);
      }
      last = now;
      if (s.gcProfiler && now - s.gcHarvestedUs >= gcReadUs) {
        s.gcHarvestedUs = now;
        hotpathGcHarvest(s, true);
        last = nowUs(); // the harvest's own time is Hotpath's, not a turn of the app's
      }
    }, tickMs);
    s.timer.unref();
    state = s;
    return true;
  }
  Object.defineProperty(globalThis, key, { value: { start: hotpathLoopMonitorStart, stop: hotpathLoopMonitorStop }, configurable: true, enumerable: false, writable: false });
  return true;
})()`;

export function startMonitorExpression(options: MonitorStartOptions): string {
  return `globalThis[Symbol.for(${JSON.stringify(MONITOR_KEY)})].start(${JSON.stringify(options)})`;
}

export const STOP_MONITOR_EXPRESSION = `(globalThis[Symbol.for(${JSON.stringify(MONITOR_KEY)})] ? globalThis[Symbol.for(${JSON.stringify(MONITOR_KEY)})].stop() : null)`;

/** Removes the monitor object (after stop), leaving the app's global as it was. */
export const REMOVE_MONITOR_EXPRESSION = `(() => { const k = Symbol.for(${JSON.stringify(MONITOR_KEY)}); const m = globalThis[k]; if (m) { try { m.stop(); } catch {} delete globalThis[k]; } return true; })()`;
