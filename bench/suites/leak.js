'use strict';
// What the leak check costs, and why it samples survivors instead of diffing heap snapshots.
//
// 1. Wall time of `hotpath leak` (checkForLeaks with its defaults: rungs after N, 2N, 4N requests with
//    N = 2000, a 5 s idle period, two forced full GCs per rung, survivors sampling, inlining off) on
//    test/fixtures/npm-apps/orders-api's leaking /visit route, against the same app started the same
//    way and sent the same warm-up and the same 4N requests with none of that — in the same run,
//    alternating which goes first, each in a fresh app process. Reported: every pair, the ratio
//    check / plain (min / median / max) and the extra seconds (of which the idle period is by design).
//
// 2. A process holding ~500 MB of small objects (HOTPATH_BENCH_LEAK_HEAP_MB), grown while the leak
//    check's sampler runs (survivors only, 16 KiB): the time of one rung's heap measurement (two
//    forced full GCs), of stopping the sampler and the size of its profile — against one
//    HeapProfiler.takeHeapSnapshot of the same heap: the time until the last chunk arrived (the app
//    does nothing else meanwhile), the snapshot's size (what Hotpath would have to parse, twice, for a
//    diff) and the app's peak RSS before and after.
//
// Environment: HOTPATH_BENCH_LEAK_PAIRS (3), HOTPATH_BENCH_LEAK_HEAP_MB (500; 0 skips part 2).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { bundle, ROOT } = require('../lib/build');
const { minMedianMax, round } = require('../lib/pairs');

const APP_DIR = path.join(ROOT, 'test/fixtures/npm-apps/orders-api');
const LOAD = { connections: 10, warmupSeconds: 3, routes: ['GET:/visit'] };

function core() {
  const entry = path.join(ROOT, 'bench/.build/leak-entry.js');
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const src = (p) => JSON.stringify(path.join(ROOT, p));
  fs.writeFileSync(entry, [
    `export { checkForLeaks, DEFAULT_RUNG_REQUESTS, DEFAULT_IDLE_SECONDS, LEAK_SAMPLING_INTERVAL_BYTES } from ${src('src/core/workflow/leakCheck')};`,
    `export { withHttpTarget } from ${src('src/core/workflow/runningTarget')};`,
    `export { CdpClient } from ${src('src/core/inspector/cdpClient')};`,
    `export { runLoad } from ${src('src/core/load/runner')};`,
    `export { resolveLoadOptions } from ${src('src/core/load/options')};`,
    `export { neverCancelled } from ${src('src/core/common/cancellation')};`,
    `export { silentLogger } from ${src('src/core/common/logger')};`,
  ].join('\n'));
  const out = bundle(path.relative(ROOT, entry), 'leak');
  // The launcher looks for its preloads next to the running bundle.
  for (const f of fs.readdirSync(path.join(ROOT, 'dist')).filter((name) => /preload\.js$/.test(name))) fs.copyFileSync(path.join(ROOT, 'dist', f), path.join(path.dirname(out), f));
  return require(out);
}

const target = () => ({ command: [process.execPath, 'server.js'], cwd: APP_DIR, env: { ...process.env, PORT: '0', NODE_ENV: 'production', QUIET: '1' } });

async function leakCheck(c, tmp) {
  const t = Date.now();
  const r = await c.checkForLeaks({ ...target(), load: LOAD, name: 'bench', outDir: tmp, storeDir: tmp, store: false });
  return { ms: Date.now() - t, verdict: r.leak.verdict, bytesPerRequest: r.leak.bytesPerRequest, requests: r.leak.requests };
}

/** The same app, the same warm-up and the same requests in the same steps: no GCs, no sampler, no idle period. */
async function plainLoad(c) {
  const t = Date.now();
  const n = c.DEFAULT_RUNG_REQUESTS;
  let requests = 0;
  await c.withHttpTarget(target(), { token: c.neverCancelled, logger: c.silentLogger }, async (_t, ready) => {
    const options = c.resolveLoadOptions(LOAD, { port: ready.port });
    await c.runLoad({ ...options, durationSeconds: options.warmupSeconds, warmupSeconds: 0 });
    for (const step of [n, n, 2 * n]) {
      requests += (await c.runLoad({ ...options, warmupSeconds: 0 }, { requests: step })).requests.total;
    }
  });
  return { ms: Date.now() - t, requests };
}

/** A Node process holding `mb` MB of small objects, grown on request while the inspector watches. */
const BIG_HEAP_APP = `
globalThis.kept = [];
globalThis.grow = (mb) => {
  const target = mb * 1024 * 1024;
  let bytes = 0;
  for (let i = 0; bytes < target; i++) {
    kept.push({ id: i, name: 'visit-' + i, tags: ['a', i % 7], at: i * 1.5 });
    bytes += 196; // the object, its two-element array and its string: 140 here gave 699 MB for 500
  }
  return kept.length;
};
setInterval(() => {}, 1000);
`;

function vmHwmKB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : null;
}

async function bigHeap(c, mb, log) {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', '--max-old-space-size=8192', '-e', BIG_HEAP_APP], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  try {
    const url = await new Promise((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no inspector URL: ${err}`)), 20_000);
      child.stderr.on('data', (d) => {
        err += d;
        const m = /ws:\/\/\S+/.exec(err);
        if (m) { clearTimeout(timer); resolve(m[0]); }
      });
      child.on('exit', (code) => reject(new Error(`the big-heap app exited (${code}): ${err}`)));
    });
    const client = await c.CdpClient.connect(url);
    try {
      // The inspector URL is printed before the script has run: wait for it.
      for (let i = 0; ; i++) {
        const r = await client.send('Runtime.evaluate', { expression: 'typeof grow', returnByValue: true });
        if (r.result && r.result.value === 'function') break;
        if (i > 100) throw new Error('the big-heap app did not define grow()');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await client.send('HeapProfiler.enable');
      await client.send('HeapProfiler.startSampling', { samplingInterval: c.LEAK_SAMPLING_INTERVAL_BYTES, includeObjectsCollectedByMajorGC: false, includeObjectsCollectedByMinorGC: false });
      let t = Date.now();
      const grown = await client.send('Runtime.evaluate', { expression: `grow(${mb})`, returnByValue: true });
      const growMs = Date.now() - t;
      if (grown.exceptionDetails || typeof grown.result?.value !== 'number') throw new Error(`grow(${mb}) failed: ${JSON.stringify(grown).slice(0, 300)}`);
      t = Date.now();
      await client.send('HeapProfiler.collectGarbage');
      await client.send('HeapProfiler.collectGarbage');
      const { usedSize } = await client.send('Runtime.getHeapUsage');
      const rungMs = Date.now() - t;
      log(`heap used ${(usedSize / 1048576).toFixed(0)} MB (${grown.result.value} objects); one rung's two full GCs took ${rungMs} ms`);
      t = Date.now();
      const { profile } = await client.send('HeapProfiler.stopSampling');
      const stopMs = Date.now() - t;
      const samplingProfileBytes = Buffer.byteLength(JSON.stringify(profile));
      const hwmBefore = vmHwmKB(child.pid);
      let snapshotBytes = 0;
      const sub = client.onEvent('HeapProfiler.addHeapSnapshotChunk', (p) => { snapshotBytes += Buffer.byteLength(p.chunk); });
      t = Date.now();
      await client.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      const snapshotMs = Date.now() - t;
      sub.dispose();
      const hwmAfter = vmHwmKB(child.pid);
      log(`survivors profile: stopped in ${stopMs} ms, ${(samplingProfileBytes / 1024).toFixed(0)} KB; heap snapshot: ${snapshotMs} ms, ${(snapshotBytes / 1048576).toFixed(0)} MB, app peak RSS ${(hwmBefore / 1024).toFixed(0)} → ${(hwmAfter / 1024).toFixed(0)} MB`);
      return {
        heapUsedMB: round(usedSize / 1048576, 0), objects: grown.result.value,
        growWithSamplingMs: growMs,
        rungTwoFullGcsMs: rungMs,
        survivors: { stopSamplingMs: stopMs, profileKB: round(samplingProfileBytes / 1024, 0) },
        heapSnapshot: { ms: snapshotMs, sizeMB: round(snapshotBytes / 1048576, 0), appPeakRssMBBefore: round(hwmBefore / 1024, 0), appPeakRssMBAfter: round(hwmAfter / 1024, 0) },
        snapshotOverSamplingTime: round(snapshotMs / Math.max(1, stopMs), 0),
        snapshotOverSamplingSize: round(snapshotBytes / samplingProfileBytes, 0),
      };
    } finally {
      await client.close();
    }
  } finally {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

async function run({ log }) {
  const pairs = Number(process.env.HOTPATH_BENCH_LEAK_PAIRS || 3);
  const heapMB = Number(process.env.HOTPATH_BENCH_LEAK_HEAP_MB ?? 500);
  if (!fs.existsSync(path.join(APP_DIR, 'node_modules', 'express'))) throw new Error('orders-api has no node_modules: run `node scripts/ensure-fixture-apps.js`');
  log('bundling the core → bench/.build/leak.js');
  const c = core();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-leak-'));
  const rows = [];
  try {
    for (let p = 0; p < pairs; p++) {
      const row = {};
      for (const side of p % 2 === 0 ? ['plain', 'check'] : ['check', 'plain']) row[side] = side === 'check' ? await leakCheck(c, tmp) : await plainLoad(c);
      row.ratio = row.check.ms / row.plain.ms;
      row.extraSeconds = (row.check.ms - row.plain.ms) / 1000;
      log(`pair ${p + 1}: plain ${(row.plain.ms / 1000).toFixed(1)} s, leak check ${(row.check.ms / 1000).toFixed(1)} s (${row.check.verdict}, ${row.check.bytesPerRequest} B/request): ${row.ratio.toFixed(2)}×`);
      rows.push(row);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const big = heapMB > 0 ? await bigHeap(c, heapMB, log) : null;
  return {
    target: `${path.relative(ROOT, APP_DIR)} GET /visit (a per-request leak), ${LOAD.connections} connections, ${LOAD.warmupSeconds} s warm-up, rungs after ${c.DEFAULT_RUNG_REQUESTS}, ${2 * c.DEFAULT_RUNG_REQUESTS}, ${4 * c.DEFAULT_RUNG_REQUESTS} requests, idle ${c.DEFAULT_IDLE_SECONDS} s; ${pairs} pairs, each side in a fresh app process`,
    node: process.version,
    wallTime: {
      ratio: minMedianMax(rows.map((r) => r.ratio)),
      extraSeconds: minMedianMax(rows.map((r) => r.extraSeconds)),
      idleSecondsByDesign: c.DEFAULT_IDLE_SECONDS,
      pairs: rows.map((r) => ({ plainSeconds: round(r.plain.ms / 1000, 2), checkSeconds: round(r.check.ms / 1000, 2), ratio: round(r.ratio, 2), verdict: r.check.verdict, bytesPerRequest: r.check.bytesPerRequest})),
    },
    bigHeap: big,
    loadAverageAtEnd: round(os.loadavg()[0], 2),
  };
}

module.exports = { run };
