'use strict';
// How much a change in the machine's other load moves each HTTP metric (`npm run bench -- load-sensitivity`).
//
// `verify` compares a baseline session with a session now; if other programs used more CPU in one of
// them, req/s, latency and even the app's CPU per request move without any change to the code. Each run
// records other programs' CPU use (RunSummary.otherCpuCores), and verify widens its interval by
// loadSensitivity × the change between sessions (stats/metrics.ts). This suite measures that
// sensitivity: the tunable app (bench/apps/tunable-server.js) runs K fresh runs at each level of an
// artificial competitor — none, one core burnt, the calibration's random duty on every core, every core
// burnt — in shuffled order per round; per metric, the least-squares slope of log(value) on the
// measured other-CPU cores, with its standard error.
//
// Environment: HOTPATH_BENCH_LOAD_ROUNDS (4), HOTPATH_BENCH_LOAD_RUNS (3 per level and round),
// HOTPATH_BENCH_LOAD_APP (a server script relative to the repository instead of the tunable app, e.g.
// examples/shop/server.js: apps differ in how much a busy sibling core slows their own CPU time),
// HOTPATH_BENCH_STATS_WORK (200000), _DURATION / _WARMUP / _CONNECTIONS as in the stats suite.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../lib/build');
const { startCompetitor } = require('../lib/competitor');
const { core, num, round, loadSettings, RUN_KEYS, SESSION_LEVELS } = require('./stats');

const APP = path.join(ROOT, process.env.HOTPATH_BENCH_LOAD_APP || 'bench/apps/tunable-server.js');

/** Least squares y = a + b·x: slope b and its standard error. */
function slope(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const b = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / sxx;
  const resid = ys.reduce((a, y, i) => a + (y - my - b * (xs[i] - mx)) ** 2, 0);
  return { perCore: b, se: Math.sqrt(resid / (n - 2) / sxx) };
}

async function run({ log }) {
  const c = core();
  const cores = os.cpus().length;
  const rounds = num('HOTPATH_BENCH_LOAD_ROUNDS', 4);
  const runsPer = num('HOTPATH_BENCH_LOAD_RUNS', 3);
  const load = loadSettings(c);
  const env = { WORK: String(num('HOTPATH_BENCH_STATS_WORK', 200000)) };
  const levels = SESSION_LEVELS(cores);
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-load-'));
  const runs = [];
  let competitor = null;
  const onSignal = () => { void (competitor ? competitor.stop() : Promise.resolve()).finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (let r = 0; r < rounds; r++) {
      // A different order each round (rotation), so a trend of the machine does not line up with a level.
      const order = levels.map((_, i) => levels[(i + r) % levels.length]);
      for (const level of order) {
        competitor = level.processes ? startCompetitor({ processes: level.processes, duty: level.duty, seed: 1 + r }) : null;
        const m = await c.measureRuns({ command: ['node', APP], cwd, env }, load, runsPer);
        if (competitor) await competitor.stop();
        competitor = null;
        const summaries = m.results.map((res, i) => c.summarizeRun(res, m.appCpuMs[i], m.otherCpuCores[i]));
        for (const s of summaries) runs.push({ round: r, level: level.name, otherCpuCores: s.otherCpuCores ?? null, requestsPerSecond: s.requestsPerSecond, p99Ms: s.p99Ms, p50Ms: s.p50Ms, cpuMsPerRequest: s.cpuMsPerRequest ?? null });
        log(`round ${r + 1}/${rounds} ${level.name}: other CPU ${summaries.map((s) => s.otherCpuCores).join(', ')} cores; req/s ${summaries.map((s) => Math.round(s.requestsPerSecond)).join(', ')}; CPU/req ${summaries.map((s) => s.cpuMsPerRequest).join(', ')} ms`);
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (competitor) await competitor.stop();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  const sensitivity = {};
  for (const [metric, key] of Object.entries(RUN_KEYS)) {
    const ok = runs.filter((x) => x.otherCpuCores !== null && x[key] > 0);
    const fit = slope(ok.map((x) => x.otherCpuCores), ok.map((x) => Math.log(x[key])));
    sensitivity[metric] = { perCore: round(fit.perCore), se: round(fit.se), runs: ok.length, calibrated: c.HTTP_METRICS[metric].loadSensitivity ?? null };
  }
  const byLevel = levels.map((l) => {
    const mine = runs.filter((x) => x.level === l.name);
    const gm = (key) => round(Math.exp(mine.reduce((a, x) => a + Math.log(x[key]), 0) / mine.length));
    return { level: l.name, runs: mine.length, otherCpuCores: round(mine.reduce((a, x) => a + (x.otherCpuCores ?? 0), 0) / mine.length), requestsPerSecond: gm('requestsPerSecond'), p99Ms: gm('p99Ms'), p50Ms: gm('p50Ms'), cpuMsPerRequest: gm('cpuMsPerRequest') };
  });
  return { settings: { app: path.relative(ROOT, APP), rounds, runsPerLevel: runsPer, load, work: Number(env.WORK), cores }, byLevel, sensitivity, note: 'perCore: change of log(metric) per core of other programs\' CPU use (0.1 ≈ +10.5%)', runs };
}

// Minutes of machine time: `npm run bench` leaves it out unless it is named.
module.exports = { run, onlyWhenNamed: true };
