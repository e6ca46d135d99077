'use strict';
// What profiling costs the app: req/s, p99 and the app's CPU time per request without any profiler, with
// Hotpath's preload only, with the CPU profiler at each sampling interval, with V8's signals, with the
// event-loop monitor, with `--memory`, and with everything `hotpath profile` switches on by default — on a
// fast endpoint and a slow one, interleaved in one run.
//
// Why interleaved, and how: this machine is shared (2 cores, other work on them), so two separate runs
// differ by ±30% from one minute to the next. Each round starts two fresh app processes side by side:
// one plain (`node server.js`, no preload, no inspector) and one as Hotpath starts it (its preload, an
// inspector session connected). Then blocks of load go to them in turn: the reference (the preload
// process with nothing on) between every two other blocks —
//   ref, none, ref, cpu-1000, ref, v8, ref, …, ref
// — in an order rotated round by round. Every mode is compared with the mean of the two reference blocks
// around it (drift over the round cancels to first order); the plain process's blocks give the preload's
// own cost, and mode ÷ none = (mode ÷ ref) × (ref ÷ none). Each block: 1 s of load to settle after the
// switch (discarded), then the measured load.
//
// The app's slowdown and the machine's, separately (Linux /proc, per thread, nanoseconds):
//   - mainThreadCpuPerRequest: CPU time of the app's main thread per request — what the app's own code
//     path pays (the profiler's signal handler and stack walk, code-event logging, V8's tracing). This is
//     the app's slowdown, the same on any machine.
//   - otherThreadsCpuPerRequest: the app's other threads (V8's profiler thread, the inspector's, GC and
//     compiler helpers). On a machine with cores to spare they run beside the app; on 2 cores they take
//     CPU from the load generator, which shares them: the machine's part.
//   - processCpuPerRequest: both.
//   - req/s and p99: what the load generator saw on this machine: the app's slowdown plus the
//     competition for the cores.
// All are ratios to the reference measured in the same round; medians over rounds (min–max beside).
//
// Endpoints: examples/shop with NODE_ENV=production (a cached template: a fast endpoint, the issue's
// 13–14k req/s) and with NODE_ENV=development (it recompiles its template with `new Function` on every
// request: a slow endpoint that keeps V8 compiling — the hard case for code-event logging and V8's tracing).
//
// Environment: HOTPATH_BENCH_OVERHEAD_ROUNDS (3), HOTPATH_BENCH_OVERHEAD_BLOCK (2 s measured, after 1 s
// settling), HOTPATH_BENCH_OVERHEAD_CONNECTIONS (10), HOTPATH_BENCH_OVERHEAD_WARMUP (3 s per process),
// HOTPATH_BENCH_OVERHEAD_INTERVALS (100,250,500,1000,2000,4000 µs), HOTPATH_BENCH_OVERHEAD_ENDPOINTS
// (fast,slow), HOTPATH_BENCH_OVERHEAD_MODES (a comma list to run only some modes),
// HOTPATH_BENCH_OVERHEAD_DESIGNS (sequential,concurrent), HOTPATH_BENCH_OVERHEAD_CONCURRENT_ROUNDS (12).
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { bundleExports, ROOT } = require('../lib/build');
const { median, round } = require('../lib/pairs');

const TARGET_PCT = 5;
const APP = path.join(ROOT, 'examples/shop/server.js');
const ENDPOINTS = {
  fast: { env: { NODE_ENV: 'production' }, path: '/', what: 'examples/shop, NODE_ENV=production: cached template' },
  slow: { env: { NODE_ENV: 'development' }, path: '/', what: 'examples/shop, NODE_ENV=development: recompiles its template on every request' },
};

function core() {
  return bundleExports('overhead', {
    'src/core/target/launcher': ['launchTarget'],
    'src/core/target/readiness': ['waitForHttpReady'],
    'src/core/inspector/cdpClient': ['CdpClient'],
    'src/core/v8/collector': ['V8Collector'],
    'src/core/v8/flags': ['enableFlags', 'DISABLE_FLAGS', 'traceFileFor'],
    'src/core/v8/targetScripts': ['setFlagsExpression'],
    'src/core/loop/loopMonitor': ['LoopMonitor', 'DEFAULT_MONITOR_OPTIONS'],
    'src/core/memory/allocationSampler': ['AllocationSampler', 'DEFAULT_SAMPLING_INTERVAL_BYTES'],
    'src/core/profile/samplingInterval': ['defaultSamplingInterval'],
    'src/core/load/options': ['DEFAULT_LOAD_OPTIONS', 'resolveLoadOptions'],
    'src/core/load/runner': ['runLoad'],
    'src/core/stats/logRatio': ['pairedLogRatio'],
  });
}

// ── per-thread CPU time of a process (Linux) ──────────────────────────────────────────────────────────

/** ns on CPU per thread of `pid` (schedstat's first field), keyed by thread id, with the thread's name. */
function threadTimes(pid) {
  const out = new Map();
  let tids = [];
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tids) {
    try {
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { ns, name });
    } catch { /* the thread ended */ }
  }
  return out;
}

/** CPU µs between two threadTimes readings: main thread, the rest, and the rest by thread name. */
function cpuBetween(pid, before, after) {
  let main = 0;
  let others = 0;
  const byName = {};
  for (const [tid, a] of after) {
    const d = (a.ns - (before.get(tid)?.ns ?? 0)) / 1000;
    if (String(tid) === String(pid)) main += d;
    else { others += d; byName[a.name] = (byName[a.name] ?? 0) + d; }
  }
  return { mainUs: main, othersUs: others, byName };
}

// ── the two processes of a round ──────────────────────────────────────────────────────────────────────

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

/** The app as users run it: no preload, no inspector. */
async function startPlain(endpoint) {
  const port = await freePort();
  const child = spawn(process.execPath, [APP], { cwd: ROOT, env: { ...process.env, ...endpoint.env, PORT: String(port), NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => { out += d; if (/listening on/.test(out)) resolve(); };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { out += d; });
    child.once('exit', (code) => reject(new Error(`the plain app exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`the plain app did not listen within 30 s: ${out}`)), 30_000).unref();
  });
  return {
    pid: child.pid, port,
    stop: () => new Promise((resolve) => { if (child.exitCode !== null) return resolve(); child.once('exit', resolve); child.kill('SIGTERM'); setTimeout(() => child.kill('SIGKILL'), 2000).unref(); }),
  };
}

/** The app as Hotpath starts it: the preload, an inspector session connected (as during `hotpath profile`'s warm-up). */
async function startProfiled(c, endpoint) {
  const preloadPath = path.join(ROOT, 'dist/hotpath-preload.js');
  if (!fs.existsSync(preloadPath)) throw new Error('dist/hotpath-preload.js is missing: run `npm run build` (npm run bench does)');
  const target = await c.launchTarget({ command: [process.execPath, APP], cwd: ROOT, mode: 'http', preloadPath, env: { ...endpoint.env, PORT: '0' } });
  try {
    const ready = await c.waitForHttpReady(target, { timeoutMs: 30_000 });
    const client = await c.CdpClient.connect(ready.process.inspectorUrl);
    return { pid: ready.process.pid, port: ready.port, client, target, stop: async () => { await client.close(); await target.stop(); } };
  } catch (err) {
    await target.stop();
    throw err;
  }
}

// ── what each mode switches on and off in the profiled process ─────────────────────────────────────────

/** The CPU profiler as ProfilingRun starts it (Runtime, the profiler, NodeWorker for worker threads), without its post-stop source-map read. */
function cpuProfiler(intervalMicros) {
  return {
    on: async (p) => {
      await p.client.send('Runtime.enable');
      await p.client.send('Profiler.enable');
      await p.client.send('Profiler.setSamplingInterval', { interval: intervalMicros });
      await p.client.send('Profiler.start');
      await p.client.trySend('NodeWorker.enable', { waitForDebuggerOnStart: true });
    },
    off: async (p) => {
      const { profile } = await p.client.send('Profiler.stop');
      await p.client.send('Profiler.disable');
      await p.client.trySend('NodeWorker.disable');
      await p.client.send('Runtime.disable');
      const samples = profile.samples?.length ?? 0;
      return { samples, medianDeltaUs: median(profile.timeDeltas ?? []) };
    },
  };
}

/** V8's tracing, exactly the flags the collector sets (it was started once, for its probe and redirect). */
function v8Signals(c) {
  const set = async (p, on) => {
    const flags = on ? c.enableFlags(c.traceFileFor(p.pid), { stdoutTraces: true }) : c.DISABLE_FLAGS;
    const r = await p.client.send('Runtime.evaluate', { expression: c.setFlagsExpression(flags), returnByValue: true });
    if (r.exceptionDetails) throw new Error('could not switch V8 tracing');
  };
  return { on: (p) => set(p, true), off: (p) => set(p, false) };
}

function loopMonitor(c, options = {}) {
  let monitor;
  return {
    on: async (p) => { monitor = await c.LoopMonitor.start(p.client, { ...c.DEFAULT_MONITOR_OPTIONS, ...options }); if (!(monitor instanceof c.LoopMonitor)) throw new Error(monitor.limitation); },
    off: async () => { await monitor.stop(); },
  };
}

function heapSampler(c) {
  let sampler;
  return {
    on: async (p) => { sampler = await c.AllocationSampler.start(p.client, { intervalBytes: c.DEFAULT_SAMPLING_INTERVAL_BYTES, includeCollected: true }); },
    off: async () => { await sampler.stop(); },
  };
}

/** Several at once, in `hotpath profile`'s order (V8 before the profiler; the loop monitor after it). */
function together(...parts) {
  return {
    on: async (p) => { for (const x of parts) await x.on(p); },
    off: async (p) => { let info; for (const x of [...parts].reverse()) info = (await x.off(p)) ?? info; return info; },
  };
}

function modesFor(c, settings) {
  const defaultInterval = c.defaultSamplingInterval(c.DEFAULT_LOAD_OPTIONS.durationSeconds);
  const modes = [
    { name: 'none', process: 'plain', what: 'no preload, no inspector' },
    ...settings.intervals.map((us) => ({ name: `cpu-${us}`, what: `CPU profiler at ${us} µs`, ...cpuProfiler(us) })),
    { name: 'v8', what: 'V8 signals (tracing flags) alone', ...v8Signals(c) },
    { name: 'loop', what: 'event-loop monitor alone (as by default: no GC pauses)', ...loopMonitor(c) },
    { name: 'loop+gc', what: 'event-loop monitor recording every GC pause (as with --memory)', ...loopMonitor(c, { gcPauses: true }) },
    { name: 'memory', what: `--memory's heap sampler alone (${c.DEFAULT_SAMPLING_INTERVAL_BYTES} B)`, ...heapSampler(c) },
    { name: 'default', what: `hotpath profile's defaults: V8 signals, CPU profiler at ${defaultInterval} µs (the default for a ${c.DEFAULT_LOAD_OPTIONS.durationSeconds} s run), event-loop monitor`, ...together(v8Signals(c), cpuProfiler(defaultInterval), loopMonitor(c)) },
    { name: 'default+memory', what: 'the defaults with --memory (its heap sampler, every GC pause recorded)', ...together(v8Signals(c), heapSampler(c), cpuProfiler(defaultInterval), loopMonitor(c, { gcPauses: true })) },
    // What the default was before the interval was chosen from the run's length: every 1000 µs.
    ...(defaultInterval !== 1000 ? [{ name: 'previous-default', what: 'the previous defaults: V8 signals, CPU profiler at 1000 µs, event-loop monitor', ...together(v8Signals(c), cpuProfiler(1000), loopMonitor(c)) }] : []),
    // Which part of the defaults costs what: the same without the event-loop monitor.
    { name: 'default-no-loop', what: `the defaults without the event-loop monitor: V8 signals, CPU profiler at ${defaultInterval} µs`, ...together(v8Signals(c), cpuProfiler(defaultInterval)) },
  ];
  const only = settings.modes;
  return { defaultInterval, modes: only ? modes.filter((m) => only.includes(m.name)) : modes };
}

// ── one block of load ─────────────────────────────────────────────────────────────────────────────────

async function block(c, proc, settings) {
  const options = c.resolveLoadOptions({ connections: settings.connections, durationSeconds: settings.block, warmupSeconds: 0, path: settings.path }, { port: proc.port });
  await c.runLoad({ ...options, durationSeconds: 1 }); // settle after the switch
  const before = threadTimes(proc.pid);
  const lg0 = process.cpuUsage();
  const m = await c.runLoad(options);
  const lg = process.cpuUsage(lg0);
  const cpu = cpuBetween(proc.pid, before, threadTimes(proc.pid));
  const n = Math.max(1, m.requests.total);
  return {
    block: settings.block,
    requests: n,
    requestsPerSecond: m.requests.mean,
    p99Ms: m.latencyMs.p99,
    mainUsPerRequest: cpu.mainUs / n,
    othersUsPerRequest: cpu.othersUs / n,
    processUsPerRequest: (cpu.mainUs + cpu.othersUs) / n,
    loadGeneratorUsPerRequest: (lg.user + lg.system) / n,
    // How much of a core the app got: V8's profiler costs per second, so the busier the app, the smaller its share per request.
    appCores: (cpu.mainUs + cpu.othersUs) / (m.durationSeconds * 1e6),
    otherThreadsByName: Object.fromEntries(Object.entries(cpu.byName).map(([k, v]) => [k, v / n])),
  };
}

const METRICS = ['requestsPerSecond', 'p99Ms', 'mainUsPerRequest', 'othersUsPerRequest', 'processUsPerRequest', 'loadGeneratorUsPerRequest'];

/** One round on one endpoint: fresh processes, every mode once between reference blocks. */
async function oneRound(c, endpointName, settings, modes, roundIndex, log) {
  const endpoint = ENDPOINTS[endpointName];
  const plain = await startPlain(endpoint);
  let profiled;
  try {
    profiled = await startProfiled(c, endpoint);
    const v8 = await c.V8Collector.start(profiled.client, profiled.pid, { mode: 'launch' });
    if (!v8.isActive) throw new Error('V8 signals did not start');
    await v8.stopTracing(); // the redirect stays; each mode switches the flags itself
    const s = { ...settings, path: endpoint.path };
    for (const proc of [plain, profiled]) {
      const options = c.resolveLoadOptions({ connections: s.connections, durationSeconds: s.warmup, warmupSeconds: 0, path: s.path }, { port: proc.port });
      await c.runLoad(options);
    }
    // Rotated, and reversed every other round, so no mode always follows the same one.
    const order = modes.map((_, i) => modes[(i + roundIndex) % modes.length]);
    if (roundIndex % 2 === 1) order.reverse();
    const refs = [await block(c, profiled, s)];
    const rows = [];
    for (const mode of order) {
      let info;
      let m;
      if (mode.process === 'plain') {
        m = await block(c, plain, s);
      } else {
        await mode.on(profiled);
        try { m = await block(c, profiled, s); } finally { info = await mode.off(profiled); }
      }
      const ref = await block(c, profiled, s);
      const prev = refs[refs.length - 1];
      refs.push(ref);
      const ratios = {};
      for (const k of METRICS) ratios[k] = m[k] / Math.sqrt(prev[k] * ref[k]);
      rows.push({ mode: mode.name, measured: m, ratios, ...(info ? { profile: info } : {}) });
      log(`${endpointName} round ${roundIndex + 1} ${mode.name.padEnd(14)} req/s ×${ratios.requestsPerSecond.toFixed(3)}, main-thread CPU/req ×${ratios.mainUsPerRequest.toFixed(3)}, process CPU/req ×${ratios.processUsPerRequest.toFixed(3)}, p99 ×${ratios.p99Ms.toFixed(2)} (ref ${Math.round(ref.requestsPerSecond)} req/s, ${ref.processUsPerRequest.toFixed(1)} µs/req)${info?.samples ? `, ${info.samples} samples at ${round(info.medianDeltaUs, 0)} µs` : ''}`);
    }
    return { rows, refs };
  } finally {
    await plain.stop();
    if (profiled) await profiled.stop();
  }
}

// ── the app's slowdown, concurrently: crossover pairs of two processes under load at the same time ──────
//
// Blocks one after the other differ by ±15% on this machine (other work comes and goes by the second),
// which hides a 5% cost unless there are hundreds of blocks. Two processes loaded at the same moment see
// the same interference, so their ratio is far steadier (A/A: ±5% per block for CPU per request). Each
// round starts two preloaded processes, P and Q, and for every mode loads both at once twice: P with the
// mode on and Q with nothing on, then the other way round, the two loads started in the other order. The
// geometric mean of the two ratios cancels whatever makes P and Q differ (their heaps and code layout
// differ by a few % from start to start) and which load starts first: one observation per mode per round.
// The plain process (no preload) against a preloaded one with nothing on is one pair of blocks a round
// too, in both orders (the processes cannot swap roles: fresh ones each round spread their difference).
// The measure is the app's main-thread CPU per request (the app's own slowdown); req/s is not: both
// processes share one load generator and two cores, so it is reported by the sequential blocks above.

async function concurrentBlock(c, procs, settings) {
  const optionsOf = (proc) => c.resolveLoadOptions({ connections: Math.max(1, Math.round(settings.connections / procs.length)), durationSeconds: settings.block, warmupSeconds: 0, path: settings.path }, { port: proc.port });
  await Promise.all(procs.map((p) => c.runLoad({ ...optionsOf(p), durationSeconds: 1 })));
  const before = procs.map((p) => threadTimes(p.pid));
  const results = await Promise.all(procs.map((p) => c.runLoad(optionsOf(p))));
  return procs.map((p, i) => {
    const cpu = cpuBetween(p.pid, before[i], threadTimes(p.pid));
    const n = Math.max(1, results[i].requests.total);
    return { mainUsPerRequest: cpu.mainUs / n, processUsPerRequest: (cpu.mainUs + cpu.othersUs) / n, requestsPerSecond: results[i].requests.mean, mainThreadBusy: cpu.mainUs / (results[i].durationSeconds * 1e6) };
  });
}

async function concurrentRound(c, endpointName, settings, modes, roundIndex, log) {
  const endpoint = ENDPOINTS[endpointName];
  const s = { ...settings, path: endpoint.path };
  const started = [];
  try {
    const plain = await startPlain(endpoint);
    started.push(plain);
    const P = await startProfiled(c, endpoint);
    started.push(P);
    const Q = await startProfiled(c, endpoint);
    started.push(Q);
    for (const proc of [P, Q]) {
      const v8 = await c.V8Collector.start(proc.client, proc.pid, { mode: 'launch' });
      if (!v8.isActive) throw new Error('V8 signals did not start');
      await v8.stopTracing();
    }
    await concurrentBlock(c, [plain, P, Q], { ...s, block: s.warmup });
    const rows = [];
    const order = modes.map((_, i) => modes[(i + roundIndex) % modes.length]);
    for (const mode of order) {
      // Which of the two loads starts first matters too (the first process measured ~5% more CPU per
      // request than the second, whatever ran in it): the second block swaps the positions as well.
      const pairs = [];
      if (mode.process === 'plain') {
        const other = roundIndex % 2 ? Q : P;
        const [x1, y1] = await concurrentBlock(c, [plain, other], s);
        const [y2, x2] = await concurrentBlock(c, [other, plain], s);
        pairs.push([x1, y1], [x2, y2]);
      } else {
        for (const [on, off, onFirst] of roundIndex % 2 ? [[Q, P, true], [P, Q, false]] : [[P, Q, true], [Q, P, false]]) {
          await mode.on(on);
          try {
            const m = await concurrentBlock(c, onFirst ? [on, off] : [off, on], s);
            pairs.push(onFirst ? m : [m[1], m[0]]);
          } finally { await mode.off(on); }
        }
      }
      // [mode's side, other side] per block; the geometric mean of the two ratios.
      const ratio = Object.fromEntries(['mainUsPerRequest', 'processUsPerRequest'].map((k) => [k, Math.sqrt((pairs[0][0][k] / pairs[0][1][k]) * (pairs[1][0][k] / pairs[1][1][k]))]));
      const mainThreadBusy = pairs.flat().reduce((sum, x) => sum + x.mainThreadBusy, 0) / 4;
      rows.push({ mode: mode.name, ratio, mainThreadBusy });
      log(`${endpointName} concurrent round ${roundIndex + 1} ${mode.name.padEnd(16)} main-thread CPU/req ×${ratio.mainUsPerRequest.toFixed(3)}, process CPU/req ×${ratio.processUsPerRequest.toFixed(3)}; main threads ${Math.round(100 * mainThreadBusy)}% busy`);
    }
    return rows;
  } finally {
    for (const proc of started.reverse()) await proc.stop();
  }
}

/** Per mode: the mean ratio over rounds with its 95% interval (t on the log scale; n = rounds). */
function summarizeConcurrent(c, rounds, modes) {
  const out = {};
  const interval = (values) => {
    const e = values.length >= 2 ? c.pairedLogRatio(values.map(() => 1), values, 0.05) : undefined;
    return e ? { pct: pct(e.ratio), ci95: [pct(e.ciLow), pct(e.ciHigh)], n: values.length } : { pct: pct(values[0] ?? null), ci95: null, n: values.length };
  };
  const none = rounds.map((r) => r.find((x) => x.mode === 'none')?.ratio);
  for (const mode of modes) {
    const found = rounds.map((r) => r.find((x) => x.mode === mode.name)).filter(Boolean);
    const rows = found.map((x) => x.ratio);
    // How busy the apps' main threads were in this mode's blocks (share of a core, median over rounds).
    const mainThreadBusy = round(median(found.map((x) => x.mainThreadBusy)), 2);
    if (mode.process === 'plain') {
      // plain ÷ preloaded, turned round: what the preload and the open inspector cost.
      out.preload = { what: 'the preload and a connected inspector, nothing on, against no preload', mainUsPerRequestPct: interval(rows.map((r) => 1 / r.mainUsPerRequest)), processUsPerRequestPct: interval(rows.map((r) => 1 / r.processUsPerRequest)), mainThreadBusy };
      continue;
    }
    const entry = { what: mode.what, mainThreadBusy, mainUsPerRequestVsPreloadPct: interval(rows.map((r) => r.mainUsPerRequest)), processUsPerRequestVsPreloadPct: interval(rows.map((r) => r.processUsPerRequest)) };
    if (none.every(Boolean) && rows.length === none.length) {
      entry.mainUsPerRequestVsNonePct = interval(rows.map((r, i) => r.mainUsPerRequest / none[i].mainUsPerRequest));
      entry.processUsPerRequestVsNonePct = interval(rows.map((r, i) => r.processUsPerRequest / none[i].processUsPerRequest));
    }
    out[mode.name] = entry;
  }
  return out;
}

const pct = (ratio) => (ratio === null ? null : round(100 * (ratio - 1), 1));
const spread = (values) => ({ median: pct(median(values)), min: pct(Math.min(...values)), max: pct(Math.max(...values)) });

/** Per mode: % change against the reference (and against no profiler at all), median over rounds. */
function summarize(rounds, modes) {
  const noneByRound = rounds.map((r) => r.rows.find((x) => x.mode === 'none')?.ratios);
  const out = {};
  for (const mode of modes) {
    const rows = rounds.map((r) => r.rows.find((x) => x.mode === mode.name));
    const entry = { what: mode.what };
    for (const k of METRICS) entry[`${k}VsPreloadPct`] = spread(rows.map((x) => x.ratios[k]));
    if (mode.name !== 'none' && noneByRound.every(Boolean)) {
      for (const k of METRICS) entry[`${k}VsNonePct`] = spread(rows.map((x, i) => x.ratios[k] / noneByRound[i][k]));
    }
    const names = {};
    for (const x of rows) for (const [n, v] of Object.entries(x.measured.otherThreadsByName)) (names[n] ??= []).push(v);
    entry.otherThreadsUsPerRequest = Object.fromEntries(Object.entries(names).map(([n, v]) => [n, round(median(v), 2)]).filter(([, v]) => v >= 0.05).sort((a, b) => b[1] - a[1]));
    const profiles = rows.map((x) => x.profile).filter(Boolean);
    if (profiles.length) {
      entry.profileSamples = { median: median(profiles.map((p) => p.samples)), medianDeltaUs: round(median(profiles.map((p) => p.medianDeltaUs)), 0) };
      // CPU of V8's profiler thread per sample it took (the profile covers the settle second too: ~the same rate).
      const perSample = rows.filter((x) => x.profile?.samples).map((x) => ((x.measured.otherThreadsByName['v8:ProfEvntProc'] ?? 0) * x.measured.requests) / (x.profile.samples * x.measured.block / (x.measured.block + 1)));
      entry.profilerThreadUsPerSample = round(median(perSample), 1);
    }
    out[mode.name] = entry;
  }
  return out;
}

async function run({ log }) {
  const settings = {
    rounds: Number(process.env.HOTPATH_BENCH_OVERHEAD_ROUNDS || 3),
    block: Number(process.env.HOTPATH_BENCH_OVERHEAD_BLOCK || 2),
    warmup: Number(process.env.HOTPATH_BENCH_OVERHEAD_WARMUP || 3),
    connections: Number(process.env.HOTPATH_BENCH_OVERHEAD_CONNECTIONS || 10),
    intervals: (process.env.HOTPATH_BENCH_OVERHEAD_INTERVALS || '100,250,500,1000,2000,4000').split(',').map(Number),
    endpoints: (process.env.HOTPATH_BENCH_OVERHEAD_ENDPOINTS || 'fast,slow').split(','),
    modes: process.env.HOTPATH_BENCH_OVERHEAD_MODES ? process.env.HOTPATH_BENCH_OVERHEAD_MODES.split(',') : undefined,
    designs: (process.env.HOTPATH_BENCH_OVERHEAD_DESIGNS || 'sequential,concurrent').split(','),
    concurrentRounds: Number(process.env.HOTPATH_BENCH_OVERHEAD_CONCURRENT_ROUNDS || 12),
  };
  if (os.platform() !== 'linux') throw new Error('the overhead suite reads per-thread CPU time from /proc (Linux only)');
  log('bundling the core → bench/.build/overhead.js');
  const c = core();
  const { defaultInterval, modes } = modesFor(c, settings);
  const loadAtStart = round(os.loadavg()[0], 1);
  const endpoints = {};
  for (const name of settings.endpoints) {
    endpoints[name] = { what: ENDPOINTS[name].what };
    if (settings.designs.includes('sequential')) {
      const rounds = [];
      for (let r = 0; r < settings.rounds; r++) rounds.push(await oneRound(c, name, settings, modes, r, log));
      const refs = rounds.flatMap((x) => x.refs);
      const summary = summarize(rounds, modes);
      endpoints[name].reference = { requestsPerSecond: round(median(refs.map((x) => x.requestsPerSecond)), 0), p99Ms: round(median(refs.map((x) => x.p99Ms)), 1), processCpuUsPerRequest: round(median(refs.map((x) => x.processUsPerRequest)), 1), mainThreadCpuUsPerRequest: round(median(refs.map((x) => x.mainUsPerRequest)), 1), appCores: round(median(refs.map((x) => x.appCores)), 2) };
      endpoints[name].modes = summary;
      const d = summary.default;
      if (d?.processUsPerRequestVsNonePct) log(`${name}: the default costs ${d.mainUsPerRequestVsNonePct.median}% main-thread CPU per request, ${d.processUsPerRequestVsNonePct.median}% process CPU per request, ${d.requestsPerSecondVsNonePct.median}% req/s (against no profiler; sequential blocks)`);
    }
    if (settings.designs.includes('concurrent')) {
      const rounds = [];
      for (let r = 0; r < settings.concurrentRounds; r++) rounds.push(await concurrentRound(c, name, settings, modes, r, log));
      const summary = summarizeConcurrent(c, rounds, modes);
      endpoints[name].concurrent = summary;
      const d = summary.default;
      if (d?.mainUsPerRequestVsNonePct) log(`${name}: the default costs the app ${d.mainUsPerRequestVsNonePct.pct}% main-thread CPU per request (95% CI ${d.mainUsPerRequestVsNonePct.ci95?.join(' … ')}), ${d.processUsPerRequestVsNonePct.pct}% process CPU (against no profiler; concurrent crossover pairs, ${d.mainUsPerRequestVsNonePct.n} rounds)`);
    }
  }
  const fastDefault = endpoints.fast?.modes?.default;
  const fastConcurrent = endpoints.fast?.concurrent?.default;
  return {
    setup: `sequential: ${settings.rounds} rounds per endpoint, each with a fresh plain process and a fresh preloaded one (warmed ${settings.warmup} s each); ${settings.connections} connections; blocks of 1 s settling + ${settings.block} s measured; the reference (preload, nothing on) between every two blocks; concurrent: ${settings.concurrentRounds} rounds, two preloaded processes and a plain one, loaded two at a time (${Math.round(settings.connections / 2)} connections each), each mode on in one and then the other`,
    node: process.version,
    defaultSamplingIntervalMicros: defaultInterval,
    legend: {
      mainUsPerRequest: 'the app\'s slowdown: CPU time of its main thread per request',
      othersUsPerRequest: 'the machine\'s part: CPU time of the app\'s other threads (V8\'s profiler thread, the inspector) per request — on 2 cores it competes with the load generator',
      processUsPerRequest: 'both',
      requestsPerSecond: 'what the load generator measured on this machine: the app\'s slowdown and the competition for the cores together',
      VsPreloadPct: '% change against the preloaded process with nothing on, same round (median, min, max over rounds)',
      VsNonePct: '% change against the plain process (no preload), via the same round\'s reference',
      appCores: 'the share of a core the app used in the reference blocks: V8\'s profiler costs per sample (per second), so on a busy machine, where the app gets less of a core, each request carries more of it',
      profilerThreadUsPerSample: 'CPU of V8\'s profiler thread per sample it took: the cost of an interval is about this × samples per second',
    },
    target: {
      maxPct: TARGET_PCT,
      sequential: fastDefault ? { judgedOn: 'fast endpoint, the default against no profiler, medians of sequential blocks: main-thread and process CPU per request, and req/s', pass: fastDefault.processUsPerRequestVsNonePct.median <= TARGET_PCT && fastDefault.mainUsPerRequestVsNonePct.median <= TARGET_PCT && -fastDefault.requestsPerSecondVsNonePct.median <= TARGET_PCT } : undefined,
      concurrent: fastConcurrent?.mainUsPerRequestVsNonePct?.ci95 ? { judgedOn: 'fast endpoint, the default against no profiler, concurrent crossover pairs: the app\'s main-thread CPU per request, the whole 95% interval', pass: fastConcurrent.mainUsPerRequestVsNonePct.ci95[1] <= TARGET_PCT } : undefined,
    },
    loadAverage: { atStart: loadAtStart, atEnd: round(os.loadavg()[0], 1), cores: os.cpus().length },
    endpoints,
  };
}

module.exports = { run };
