'use strict';
// What `--memory` costs the app, and what the leak check's sampling costs during its rungs: req/s of a
// real Express app (test/fixtures/npm-apps/orders-api, NODE_ENV=production) under a mixed load with
// V8's sampling heap profiler on vs off, interleaved inside ONE app process. This machine is shared
// (2 cores, other work on them): two separate processes differ by ±30% from one minute to the next,
// so the comparison is made in alternating blocks of the same process under the same conditions.
//
// Set-up as `hotpath profile --memory` has it: a warm-up, then the CPU profiler (1 ms) and the
// event-loop monitor on for the whole round. Each pair is two blocks of load, one with the heap
// sampler started before it and stopped after it (exactly the CDP calls AllocationSampler makes),
// one without; the order alternates pair by pair, and the modes take turns pair by pair, so every
// mode sees the same conditions over time. Modes:
//   memory-<N>   `--memory` at N bytes (collected objects kept: includeObjectsCollectedByMajor/MinorGC)
//   leak-16384   the leak check's sampler (survivors only, 16 KiB)
// The loss of a pair is (off − on) / off of req/s; reported per mode: every pair, min / median / max,
// and the app's CPU time per request (from /proc: steadier than req/s when other work competes).
// Also: the time HeapProfiler.stopSampling takes (after the window: not in req/s) and the profile's
// size; the time of one leak-check rung's heap measurement (two forced full GCs + Runtime.getHeapUsage).
//
// The load: /orders (cheap JSON) 20 : /catalog (builds 600 objects, ~60 KB, per request) 3 — a
// service with some allocation churn, not a pathological one.
//
// And which runtimes keep objects the GC already collected in the profile (the flags are ignored
// silently where unknown): bytes sampled in a function that only makes garbage, flags off vs on, on
// this Node and on every Node of the test matrix that is installed.
//
// Environment: HOTPATH_BENCH_MEMORY_PAIRS (10 per mode), HOTPATH_BENCH_MEMORY_BLOCK (3 s),
// HOTPATH_BENCH_MEMORY_INTERVALS (16384,32768,65536,131072), HOTPATH_BENCH_MEMORY_CONNECTIONS (10),
// HOTPATH_BENCH_MEMORY_WARMUP (5 s).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { bundle, ROOT } = require('../lib/build');
const { median, minMedianMax, processCpuMs, round } = require('../lib/pairs');

const TARGET_LOSS_PCT = 10;
const APP_DIR = path.join(ROOT, 'test/fixtures/npm-apps/orders-api');
const ROUTES = ['GET:/orders?id=7:20', 'GET:/catalog?category=tools:3'];
const LEAK_INTERVAL = 16 * 1024;

function core() {
  const entry = path.join(ROOT, 'bench/.build/memory-entry.js');
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const src = (p) => JSON.stringify(path.join(ROOT, p));
  fs.writeFileSync(entry, [
    `export { launchTarget } from ${src('src/core/target/launcher')};`,
    `export { waitForHttpReady } from ${src('src/core/target/readiness')};`,
    `export { CdpClient } from ${src('src/core/inspector/cdpClient')};`,
    `export { ProfilingRun } from ${src('src/core/inspector/profilingRun')};`,
    `export { LoopMonitor } from ${src('src/core/loop/loopMonitor')};`,
    `export { runLoad } from ${src('src/core/load/runner')};`,
    `export { resolveLoadOptions } from ${src('src/core/load/options')};`,
    `export { DEFAULT_SAMPLING_INTERVAL_BYTES } from ${src('src/core/memory/allocationSampler')};`,
    `export { LEAK_SAMPLING_INTERVAL_BYTES } from ${src('src/core/workflow/leakCheck')};`,
  ].join('\n'));
  return require(bundle(path.relative(ROOT, entry), 'memory'));
}

async function measureRound(c, settings, modes, log) {
  const preloadPath = path.join(ROOT, 'dist/hotpath-preload.js');
  if (!fs.existsSync(preloadPath)) throw new Error('dist/hotpath-preload.js is missing: run `npm run build` (npm run bench does)');
  if (!fs.existsSync(path.join(APP_DIR, 'node_modules', 'express'))) throw new Error('orders-api has no node_modules: run `node scripts/ensure-fixture-apps.js`');
  const target = await c.launchTarget({ command: [process.execPath, 'server.js'], cwd: APP_DIR, mode: 'http', preloadPath, env: { PORT: '0', NODE_ENV: 'production', QUIET: '1' } });
  try {
    const ready = await c.waitForHttpReady(target, { timeoutMs: 30_000 });
    const client = await c.CdpClient.connect(ready.process.inspectorUrl);
    try {
      const pid = ready.process.pid;
      const options = c.resolveLoadOptions({ connections: settings.connections, durationSeconds: settings.block, warmupSeconds: 0, routes: ROUTES }, { port: ready.port });
      await c.runLoad({ ...options, durationSeconds: settings.warmup });
      const profiler = await c.ProfilingRun.start(client, pid, { samplingIntervalMicros: 1000, workers: false });
      const monitor = await c.LoopMonitor.start(client, {});
      await client.send('HeapProfiler.enable');
      const results = Object.fromEntries(modes.map((m) => [m.name, { pairs: [], stopMs: [], profileKB: [] }]));
      for (let p = 0; p < settings.pairs; p++) {
        for (const [i, mode] of modes.entries()) {
          const order = (p + i) % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
          const pair = {};
          for (const side of order) {
            if (side === 'on') {
              await client.send('HeapProfiler.startSampling', { samplingInterval: mode.intervalBytes, includeObjectsCollectedByMajorGC: mode.includeCollected, includeObjectsCollectedByMinorGC: mode.includeCollected });
            }
            const cpu0 = processCpuMs(pid);
            const m = await c.runLoad(options);
            const cpuMs = processCpuMs(pid) - cpu0;
            if (side === 'on') {
              const t = Date.now();
              const { profile } = await client.send('HeapProfiler.stopSampling');
              results[mode.name].stopMs.push(Date.now() - t);
              results[mode.name].profileKB.push(round(JSON.stringify(profile).length / 1024, 0));
            }
            pair[side] = m.requests.mean;
            pair[`${side}CpuUs`] = (1000 * cpuMs) / Math.max(1, m.requests.total);
          }
          pair.lossPct = (100 * (pair.off - pair.on)) / pair.off;
          pair.cpuOverheadPct = (100 * (pair.onCpuUs - pair.offCpuUs)) / pair.offCpuUs;
          results[mode.name].pairs.push(pair);
          log(`pair ${p + 1} ${mode.name}: off ${Math.round(pair.off)} req/s (${pair.offCpuUs.toFixed(0)} µs CPU/request), on ${Math.round(pair.on)} req/s (${pair.onCpuUs.toFixed(0)} µs), loss ${pair.lossPct.toFixed(1)}%, CPU ${pair.cpuOverheadPct >= 0 ? '+' : ''}${pair.cpuOverheadPct.toFixed(1)}%`);
        }
      }
      if (monitor instanceof c.LoopMonitor) { await monitor.stop(); await monitor.dispose(); }
      await profiler.stop();
      profiler.dispose();
      // One leak-check rung's heap measurement, as leakCheck.ts's measureHeap does it: the app is stopped for this long.
      const rungMs = [];
      let heapUsed = 0;
      for (let i = 0; i < 5; i++) {
        const t = process.hrtime.bigint();
        await client.send('HeapProfiler.collectGarbage');
        await client.send('HeapProfiler.collectGarbage');
        heapUsed = (await client.send('Runtime.getHeapUsage')).usedSize;
        rungMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      return { results, rungMs, heapUsedBytes: heapUsed };
    } finally {
      await client.close();
    }
  } finally {
    await target.stop();
  }
}

/** A process whose churn(n) allocates n × 1000 small objects and keeps none. */
const CHURN_APP = 'globalThis.churn = function churn(n) { let k = 0; for (let r = 0; r < n; r++) { const a = []; for (let i = 0; i < 1000; i++) a.push({ i, s: "x" + i }); k += a.length; } return k; }; setInterval(() => {}, 1000);';

function bytesIn(node, name) {
  let s = node.callFrame.functionName === name ? node.selfSize : 0;
  for (const child of node.children) s += bytesIn(child, name);
  return s;
}

/** Bytes sampled in churn() with includeObjectsCollectedByMajorGC/MinorGC off and on, on one Node binary. */
async function collectedFlags(c, node) {
  const child = spawn(node, ['--inspect=127.0.0.1:0', '-e', CHURN_APP], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d) => { err += d; const m = /ws:\/\/\S+/.exec(err); if (m) resolve(m[0]); });
      child.on('exit', (code) => reject(new Error(`${node} exited (${code}): ${err}`)));
    });
    const client = await c.CdpClient.connect(url);
    try {
      while ((await client.send('Runtime.evaluate', { expression: 'typeof churn', returnByValue: true })).result.value !== 'function') await new Promise((r) => setTimeout(r, 50));
      const version = (await client.send('Runtime.evaluate', { expression: 'process.version', returnByValue: true })).result.value;
      const bytes = {};
      await client.send('HeapProfiler.enable');
      for (const on of [false, true]) {
        await client.send('HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: on, includeObjectsCollectedByMinorGC: on });
        await client.send('Runtime.evaluate', { expression: 'churn(2000)' });
        await client.send('HeapProfiler.collectGarbage');
        bytes[on ? 'on' : 'off'] = bytesIn((await client.send('HeapProfiler.stopSampling')).profile.head, 'churn');
      }
      // Kept: with the flags, about everything churn() allocated (~180 MB) is in the profile; without, nothing survives.
      return { node: version, sampledBytesFlagsOff: bytes.off, sampledBytesFlagsOn: bytes.on, keepsCollected: bytes.on > 10 * Math.max(bytes.off, 1024 * 1024) };
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGKILL');
  }
}

function matrixNodes() {
  const versions = require(path.join(ROOT, 'scripts/ensure-node-versions.js'));
  return [process.execPath, ...Object.values(versions.VERSIONS).filter((v) => versions.isInstalled(v)).map((v) => versions.nodeBinary(v))];
}

async function run({ log }) {
  const settings = {
    pairs: Number(process.env.HOTPATH_BENCH_MEMORY_PAIRS || 10),
    block: Number(process.env.HOTPATH_BENCH_MEMORY_BLOCK || 3),
    warmup: Number(process.env.HOTPATH_BENCH_MEMORY_WARMUP || 5),
    connections: Number(process.env.HOTPATH_BENCH_MEMORY_CONNECTIONS || 10),
    intervals: (process.env.HOTPATH_BENCH_MEMORY_INTERVALS || '16384,32768,65536,131072').split(',').map(Number),
  };
  log('bundling the core → bench/.build/memory.js');
  const c = core();
  if (c.LEAK_SAMPLING_INTERVAL_BYTES !== LEAK_INTERVAL) throw new Error(`the leak check samples every ${c.LEAK_SAMPLING_INTERVAL_BYTES} B now: update this suite`);
  if (!settings.intervals.includes(c.DEFAULT_SAMPLING_INTERVAL_BYTES)) settings.intervals.push(c.DEFAULT_SAMPLING_INTERVAL_BYTES);
  const modes = [
    ...settings.intervals.map((b) => ({ name: `memory-${b}`, intervalBytes: b, includeCollected: true })),
    { name: `leak-${LEAK_INTERVAL}`, intervalBytes: LEAK_INTERVAL, includeCollected: false },
  ];
  const flags = [];
  for (const node of matrixNodes()) {
    const r = await collectedFlags(c, node);
    log(`${r.node}: churn() sampled ${r.sampledBytesFlagsOff} B with includeObjectsCollectedBy*GC off, ${r.sampledBytesFlagsOn} B on`);
    flags.push(r);
  }
  const measured = await measureRound(c, settings, modes, log);
  const byMode = {};
  for (const mode of modes) {
    const r = measured.results[mode.name];
    const loss = minMedianMax(r.pairs.map((x) => x.lossPct));
    byMode[mode.name] = {
      samplingIntervalBytes: mode.intervalBytes,
      includesCollected: mode.includeCollected,
      lossPct: loss,
      cpuOverheadPct: minMedianMax(r.pairs.map((x) => x.cpuOverheadPct)),
      medianOffRequestsPerSecond: round(median(r.pairs.map((x) => x.off))),
      medianOnRequestsPerSecond: round(median(r.pairs.map((x) => x.on))),
      stopSamplingMs: minMedianMax(r.stopMs),
      profileKB: minMedianMax(r.profileKB),
      pairs: r.pairs.map((x) => ({ offRequestsPerSecond: round(x.off), onRequestsPerSecond: round(x.on), lossPct: round(x.lossPct, 2), offCpuUsPerRequest: round(x.offCpuUs), onCpuUsPerRequest: round(x.onCpuUs), cpuOverheadPct: round(x.cpuOverheadPct, 2) })),
    };
    log(`${mode.name}: req/s loss min ${loss.min}% / median ${loss.median}% / max ${loss.max}%`);
  }
  const defaultMode = byMode[`memory-${c.DEFAULT_SAMPLING_INTERVAL_BYTES}`];
  return {
    target: `${path.relative(ROOT, APP_DIR)} (Express, NODE_ENV=production), routes ${ROUTES.join(' ')}, ${settings.connections} connections, CPU profiler and event-loop monitor on, ${settings.pairs} pairs of ${settings.block} s blocks per mode after a ${settings.warmup} s warm-up, one app process`,
    node: process.version,
    defaultSamplingIntervalBytes: c.DEFAULT_SAMPLING_INTERVAL_BYTES,
    targetLossPct: TARGET_LOSS_PCT,
    pass: defaultMode.lossPct.median <= TARGET_LOSS_PCT,
    modes: byMode,
    collectedObjectsFlags: flags,
    leakRungHeapMeasurementMs: minMedianMax(measured.rungMs.map((x) => round(x, 1))),
    heapUsedBytesAtRung: measured.heapUsedBytes,
    loadAverageAtEnd: round(os.loadavg()[0], 2),
  };
}

module.exports = { run };
