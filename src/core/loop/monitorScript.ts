/**
 * The event-loop and GC monitor Hotpath evaluates inside the target over the inspector (launch and
 * attach alike), started right before the measured load and read right after it:
 *
 * - delay percentiles from Node's own `monitorEventLoopDelay` histogram (its values include the
 *   sampling resolution, which is subtracted);
 * - event-loop utilization (`performance.eventLoopUtilization`) over the window;
 * - GC pauses from a `PerformanceObserver` of `gc` entries (main-thread pause per collection, by kind);
 * - loop turns longer than a threshold, with their start and end on the process's monotonic clock (the
 *   clock of the CPU profile's timestamps), from a repeating timer (every `tickMs`) that measures how late
 *   it fires: a late tick means the loop did not come back to its timers, i.e. one turn ran that long.
 *   An episode is the part of the turn that is certain — from when the tick was due to when it ran — so
 *   a turn's first `tickMs` at most go uncounted, and a turn counts when that certain part reaches the
 *   threshold. The tick is every 5 ms, not 1: on a fast endpoint (examples/shop in production, ~12k
 *   req/s) a bare 1 ms timer cost the app +8.4% (95% CI +3.7 … +13.2) main-thread CPU per request and a
 *   5 ms one +4.2% (+0.5 … +8.1) in the same run (`npm run bench -- overhead`, concurrent crossover
 *   pairs; a later run put the 5 ms one at +8.3%): every early wake-up of a loaded loop costs far more
 *   than the tick's own code, and the tick is still the monitor's largest cost.
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
  /** monitorEventLoopDelay resolution, ms (Node's default: 10). */
  resolutionMs: number;
  /** Loop turns at least this long are recorded as blocking episodes, ms. */
  thresholdMs: number;
  /** How often the turn-timing tick is due, ms (1–20). */
  tickMs: number;
  /** At most this many episodes are kept (the longest are what matters; the rest are counted). */
  maxEpisodes: number;
}

/** What the monitor reports for the window (times in ms unless said otherwise). */
export interface MonitorReport {
  /** Event-loop delay percentiles (resolution subtracted, never below 0). */
  delay: { p50: number; p90: number; p99: number; max: number; mean: number; count: number };
  /** Share of the window the loop was busy (0–1). */
  utilization: number;
  windowMs: number;
  gc: { count: number; totalMs: number; /** [durationMs, kind] pairs, the first maxGcEntries. */ entries: number[] };
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
  let state = null;
  function hotpathLoopMonitorStop() {
    if (!state) return null;
    const s = state;
    state = null;
    clearInterval(s.timer);
    s.eld.disable();
    try { for (const e of s.observer.takeRecords()) s.onGc(e); } catch {}
    s.observer.disconnect();
    const elu = ph.performance.eventLoopUtilization(s.elu);
    const res = s.resolutionMs;
    const ms = (ns) => Math.max(0, ns / 1e6 - res);
    const h = s.eld;
    const count = h.count ?? 0;
    const stopUs = nowUs();
    return JSON.stringify({
      // The longest turn the tick saw is a delay too: Node's histogram drops its first interval, so a turn
      // that began before its first sample (a busy machine) would be missing from its max.
      delay: count > 0 ? { p50: ms(h.percentile(50)), p90: ms(h.percentile(90)), p99: ms(h.percentile(99)), max: Math.max(ms(h.max), s.longestUs / 1000), mean: ms(h.mean), count } : { p50: 0, p90: 0, p99: 0, max: s.longestUs / 1000, mean: 0, count: 0 },
      utilization: elu.utilization,
      windowMs: (stopUs - s.startUs) / 1000,
      gc: { count: s.gcCount, totalMs: s.gcTotal, entries: s.gc },
      episodes: s.episodes,
      episodeCount: s.episodeCount,
      startUs: s.startUs,
      stopUs,
    });
  }
  function hotpathLoopMonitorStart(options) {
    if (state) hotpathLoopMonitorStop();
    const eld = ph.monitorEventLoopDelay({ resolution: options.resolutionMs });
    eld.enable();
    const s = { eld, elu: ph.performance.eventLoopUtilization(), gc: [], gcCount: 0, gcTotal: 0, episodes: [], episodeCount: 0, longestUs: 0, resolutionMs: options.resolutionMs, startUs: nowUs() };
    s.onGc = function hotpathGcEntry(e) {
      s.gcCount++;
      s.gcTotal += e.duration;
      if (s.gc.length < 40000) s.gc.push(Math.round(e.duration * 1000) / 1000, (e.detail && e.detail.kind) || e.kind || 0);
    };
    s.observer = new ph.PerformanceObserver(function hotpathGcObserved(list) { for (const e of list.getEntries()) s.onGc(e); });
    s.observer.observe({ entryTypes: ['gc'] });
    const thresholdUs = options.thresholdMs * 1000;
    const maxPairs = options.maxEpisodes * 2;
    const tickMs = Math.min(20, Math.max(1, Math.round(options.tickMs || 5)));
    const tickUs = tickMs * 1000;
    let last = nowUs();
    s.timer = setInterval(function hotpathLoopTick() {
      const now = nowUs();
      // The tick was due one period after the previous one; anything later is time the loop spent elsewhere.
      const due = last + tickUs;
      if (now - due > s.longestUs) s.longestUs = now - due;
      if (now - due >= thresholdUs) {
        s.episodeCount++;
        if (s.episodes.length < maxPairs) s.episodes.push(due, now);
      }
      last = now;
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
