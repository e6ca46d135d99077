'use strict';
// What collecting V8's signals costs the app: req/s of an HTTP target under autocannon load with the
// signals on vs off, interleaved in the same run. This machine is shared (2 cores, other work on
// them): two separate processes differ by ±30% from one minute to the next, so the comparison is made
// inside one app process, in alternating blocks under the same conditions.
//
// Each round: a fresh app; Hotpath's V8 collection started before a warm-up (as `hotpath profile`
// does), the CPU profiler on, then pairs of measured blocks, one with V8's tracing on and one with it
// off (v8.setFlagsFromString over the inspector, exactly the flags the collector uses), the order
// alternating pair by pair. The loss of a pair is (off − on) / off; reported: every pair, their median
// (target < 5%) and the time the end-of-run tier query takes (after the load, so not in req/s).
//
// The target is examples/shop in development mode: it compiles a template with `new Function` on every
// request, so V8 keeps compiling and optimizing — more trace output than a steady app, a hard case.
//
// Also reported: the same comparison in the app's CPU time per request (from /proc), which stays
// meaningful when other work on the machine makes req/s swing.
//
// Environment: HOTPATH_BENCH_V8_ROUNDS (2), HOTPATH_BENCH_V8_PAIRS (8 per round),
// HOTPATH_BENCH_V8_BLOCK (seconds per block, 2), HOTPATH_BENCH_V8_WARMUP (3), HOTPATH_BENCH_V8_CONNECTIONS (10).
const fs = require('node:fs');
const path = require('node:path');
const { bundle, ROOT } = require('../lib/build');
const os = require('node:os');

const TARGET_LOSS_PCT = 5;
const APP = path.join(ROOT, 'examples/shop/server.js');

/** The pieces of the core this suite drives, bundled from the sources. */
function core() {
  // A .js entry (re-exporting the .ts sources): the project's tsconfig type-checks bench/**/*.ts.
  const entry = path.join(ROOT, 'bench/.build/v8-overhead-entry.js');
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const src = (p) => JSON.stringify(path.join(ROOT, p));
  fs.writeFileSync(entry, [
    `export { launchTarget } from ${src('src/core/target/launcher')};`,
    `export { waitForHttpReady } from ${src('src/core/target/readiness')};`,
    `export { CdpClient } from ${src('src/core/inspector/cdpClient')};`,
    `export { ProfilingRun } from ${src('src/core/inspector/profilingRun')};`,
    `export { V8Collector } from ${src('src/core/v8/collector')};`,
    `export { enableFlags, DISABLE_FLAGS, traceFileFor } from ${src('src/core/v8/flags')};`,
    `export { setFlagsExpression } from ${src('src/core/v8/targetScripts')};`,
    `export { runLoad } from ${src('src/core/load/runner')};`,
    `export { resolveLoadOptions } from ${src('src/core/load/options')};`,
  ].join('\n'));
  return require(bundle(path.relative(ROOT, entry), 'v8-overhead'));
}

/** CPU time (user + system, all threads) the process has used so far, ms (Linux /proc). */
function processCpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

async function oneRound(c, settings, log, roundIndex) {
  const preloadPath = path.join(ROOT, 'dist/hotpath-preload.js');
  if (!fs.existsSync(preloadPath)) throw new Error('dist/hotpath-preload.js is missing: run `npm run build` (npm run bench does)');
  const target = await c.launchTarget({ command: [process.execPath, APP], cwd: ROOT, mode: 'http', preloadPath, env: { PORT: '0', NODE_ENV: 'development' } });
  try {
    const ready = await c.waitForHttpReady(target, { timeoutMs: 30_000 });
    const client = await c.CdpClient.connect(ready.process.inspectorUrl);
    try {
      const pid = ready.process.pid;
      const v8 = await c.V8Collector.start(client, pid, { mode: 'launch', output: target.onOutput });
      if (!v8.isActive) throw new Error('V8 signals did not start');
      const setTracing = async (on) => {
        const flags = on ? c.enableFlags(c.traceFileFor(pid), { stdoutTraces: true }) : c.DISABLE_FLAGS;
        const r = await client.send('Runtime.evaluate', { expression: c.setFlagsExpression(flags), returnByValue: true });
        if (r.exceptionDetails) throw new Error('could not switch V8 tracing');
      };
      const options = c.resolveLoadOptions({ connections: settings.connections, durationSeconds: settings.warmup, warmupSeconds: 0 }, { port: ready.port });
      await c.runLoad(options);
      const run = await c.ProfilingRun.start(client, pid, { samplingIntervalMicros: 1000, workers: false });
      const pairs = [];
      for (let p = 0; p < settings.pairs; p++) {
        const order = (p + roundIndex) % 2 === 0 ? [false, true] : [true, false];
        const pair = {};
        for (const on of order) {
          await setTracing(on);
          const cpu0 = processCpuMs(pid);
          const m = await c.runLoad({ ...options, durationSeconds: settings.block });
          const cpuMs = processCpuMs(pid) - cpu0;
          pair[on ? 'on' : 'off'] = m.requests.mean;
          // CPU the app spent per request: steadier than req/s when other work competes for the cores.
          pair[on ? 'onCpuUs' : 'offCpuUs'] = (1000 * cpuMs) / Math.max(1, m.requests.total);
        }
        pair.lossPct = (100 * (pair.off - pair.on)) / pair.off;
        pair.cpuOverheadPct = (100 * (pair.onCpuUs - pair.offCpuUs)) / pair.offCpuUs;
        log(`round ${roundIndex + 1} pair ${p + 1}: off ${Math.round(pair.off)} req/s (${pair.offCpuUs.toFixed(0)} µs CPU/request), on ${Math.round(pair.on)} req/s (${pair.onCpuUs.toFixed(0)} µs), loss ${pair.lossPct.toFixed(1)}%, CPU ${pair.cpuOverheadPct >= 0 ? '+' : ''}${pair.cpuOverheadPct.toFixed(1)}%`);
        pairs.push(pair);
      }
      await setTracing(true); // as the collector left it: its own finish switches it off
      await v8.stopTracing();
      const [main] = await run.stop();
      run.dispose();
      const started = Date.now();
      const raw = await v8.finish(main?.profile);
      return { pairs, finishMs: Date.now() - started, functionsWithSignals: raw.functions.length };
    } finally {
      await client.close();
    }
  } finally {
    await target.stop();
  }
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (v, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

async function run({ log }) {
  const settings = {
    rounds: Number(process.env.HOTPATH_BENCH_V8_ROUNDS || 2),
    pairs: Number(process.env.HOTPATH_BENCH_V8_PAIRS || 8),
    block: Number(process.env.HOTPATH_BENCH_V8_BLOCK || 2),
    warmup: Number(process.env.HOTPATH_BENCH_V8_WARMUP || 3),
    connections: Number(process.env.HOTPATH_BENCH_V8_CONNECTIONS || 10),
  };
  log('bundling the core → bench/.build/v8-overhead.js');
  const c = core();
  const pairs = [];
  const finishMs = [];
  for (let r = 0; r < settings.rounds; r++) {
    const result = await oneRound(c, settings, log, r);
    pairs.push(...result.pairs);
    finishMs.push(result.finishMs);
    log(`round ${r + 1}: tiers of ${result.functionsWithSignals} functions read in ${result.finishMs} ms after the load`);
  }
  const medianLossPct = round(median(pairs.map((x) => x.lossPct)), 2);
  log(`median loss with V8 signals on: ${medianLossPct}% (target < ${TARGET_LOSS_PCT}%)`);
  return {
    target: `${path.relative(ROOT, APP)} (NODE_ENV=development), ${settings.connections} connections, CPU profiler on, ${settings.rounds} × ${settings.pairs} pairs of ${settings.block} s blocks after a ${settings.warmup} s warm-up`,
    node: process.version,
    pairs: pairs.map((x) => ({ offRequestsPerSecond: round(x.off), onRequestsPerSecond: round(x.on), lossPct: round(x.lossPct, 2), offCpuUsPerRequest: round(x.offCpuUs), onCpuUsPerRequest: round(x.onCpuUs), cpuOverheadPct: round(x.cpuOverheadPct, 2) })),
    medianOffRequestsPerSecond: round(median(pairs.map((x) => x.off))),
    medianOnRequestsPerSecond: round(median(pairs.map((x) => x.on))),
    medianLossPct,
    /** The same comparison in the app's CPU time per request (Linux): robust to other load on the machine. */
    medianCpuOverheadPct: round(median(pairs.map((x) => x.cpuOverheadPct)), 2),
    loadAverageAtEnd: round(os.loadavg()[0], 2),
    targetLossPct: TARGET_LOSS_PCT,
    pass: medianLossPct < TARGET_LOSS_PCT,
    endOfRunQueryMs: finishMs,
  };
}

module.exports = { run };
