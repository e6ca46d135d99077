'use strict';
// Calibration of Hotpath's verdicts on a busy machine (`npm run bench -- stats`).
//
// An app whose per-request CPU cost is tunable (bench/apps/tunable-server.js, WORK units per request)
// runs while an artificial CPU competitor (bench/lib/competitor.js: processes burning CPU with a random
// duty cycle) shares the machine. For each change factor k (1 = A/A, 1.1, 1.5, 2, 10; side B does
// WORK / k) and each trial:
//   - verify: K runs of A (the baseline), then K runs of B (the verify), each a fresh app with a warm-up,
//     compared as `hotpath verify` does (log-scale Welch with the drift between sessions, Bonferroni
//     over req/s, p99 and CPU/req); the drift itself is estimated from these trials (`sessionDrift`);
//   - compare: `hotpath compare` at its default settings (interleaved pairs, adaptive to ±5% or the
//     time budget).
// Reported per mode and factor: the rate at which a change was called — for k = 1 the false-positive
// rate, otherwise the detection rate ("faster" for B) — with the wrong-direction count, the median
// pairs and time, and the measured ratio. Trials of all conditions are interleaved round by round, so
// the machine's state during the run affects every condition alike. Every trial's raw per-run values
// are kept, and alternative settings (verify with K = 2…5; compare with other targets and budgets) are
// evaluated on the same data by replaying the stopping rule on the recorded sequence.
//
// Environment: HOTPATH_BENCH_STATS_TRIALS (20), HOTPATH_BENCH_STATS_FACTORS (1,1.1,1.5,2,10),
// HOTPATH_BENCH_STATS_MODES (verify,compare), HOTPATH_BENCH_STATS_K (5: verify runs recorded per side),
// HOTPATH_BENCH_STATS_WORK (per-request work units of A), HOTPATH_BENCH_STATS_COMPETITOR (processes;
// default: the number of cores), HOTPATH_BENCH_STATS_DURATION / _WARMUP (seconds per run: the compare
// defaults), HOTPATH_BENCH_STATS_CONNECTIONS (10), HOTPATH_BENCH_STATS_TRIALS_FILE (every trial is also
// appended there as a JSON line as soon as it ends, so a long run can be looked at while it goes on),
// HOTPATH_BENCH_STATS_RESUME=1 (trials already in that file are kept and not run again: a calibration
// that takes hours can be run in parts; with every trial recorded, only the summary is computed),
// HOTPATH_BENCH_STATS_SESSION_LOAD=1 (verify only: the competitor's level is drawn again before each
// block, so the machine's load changes between the baseline and the verify).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bundle, ROOT } = require('../lib/build');
const { startCompetitor } = require('../lib/competitor');

const APP = path.join(ROOT, 'bench/apps/tunable-server.js');

function core() {
  const entry = path.join(ROOT, 'bench/.build/stats-entry.js');
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const src = (p) => JSON.stringify(path.join(ROOT, p));
  fs.writeFileSync(entry, [
    `export { compareVariants, COMPARE_LOAD_DEFAULTS } from ${src('src/core/workflow/compare')};`,
    `export { measureRuns } from ${src('src/core/workflow/measureRuns')};`,
    `export { compareRuns } from ${src('src/core/stats/compare')};`,
    `export { summarizeRun } from ${src('src/core/stats/runSummary')};`,
    `export { analyse, DEFAULT_INTERLEAVE } from ${src('src/core/workflow/interleave')};`,
    `export { HTTP_METRICS } from ${src('src/core/stats/metrics')};`,
  ].join('\n'));
  const out = bundle(path.relative(ROOT, entry), 'stats');
  // The launcher looks for its preloads next to the running bundle.
  for (const f of fs.readdirSync(path.join(ROOT, 'dist')).filter((name) => /preload\.js$/.test(name))) fs.copyFileSync(path.join(ROOT, 'dist', f), path.join(path.dirname(out), f));
  return require(out);
}

const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
const list = (name, fallback) => (process.env[name] ? process.env[name].split(',').map((s) => s.trim()).filter(Boolean) : fallback);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null; };
const round = (x, d = 3) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);

/** The load of every measured run (HOTPATH_BENCH_STATS_DURATION / _WARMUP / _CONNECTIONS; also the load-sensitivity suite's). */
const loadSettings = (c) => ({
  durationSeconds: num('HOTPATH_BENCH_STATS_DURATION', c.COMPARE_LOAD_DEFAULTS.durationSeconds),
  warmupSeconds: num('HOTPATH_BENCH_STATS_WARMUP', c.COMPARE_LOAD_DEFAULTS.warmupSeconds),
  connections: num('HOTPATH_BENCH_STATS_CONNECTIONS', 10),
});

/** What a verdict means for this condition: a false positive (k = 1), a detection, or a wrong direction. */
function outcome(factor, verdict) {
  if (verdict === 'no-significant-change') return 'none';
  if (factor === 1) return 'false-positive';
  return verdict === 'faster' ? 'detected' : 'wrong-direction';
}

function summarize(trials, factor) {
  const mine = trials.filter((t) => t.factor === factor);
  const called = mine.filter((t) => t.verdict !== 'no-significant-change').length;
  const detected = mine.filter((t) => outcome(factor, t.verdict) === 'detected').length;
  const wrong = mine.filter((t) => outcome(factor, t.verdict) === 'wrong-direction').length;
  return {
    factor, trials: mine.length,
    ...(factor === 1 ? { falsePositiveRate: round(called / Math.max(1, mine.length)) } : { detectionRate: round(detected / Math.max(1, mine.length)), wrongDirection: wrong }),
    medianRatio: round(median(mine.map((t) => t.ratio))),
    medianHalfWidthPct: round(median(mine.map((t) => t.halfWidthPct).filter((x) => x !== null)), 1),
    medianPairsOrRuns: median(mine.map((t) => t.pairs ?? t.k)),
    medianSeconds: round(median(mine.map((t) => t.seconds)), 1),
  };
}

/**
 * Verify with fewer runs per side: the first k of the K recorded on each side, as a k-run verify would
 * have them. `options.ignoreSessionDrift`: as verify was before its intervals carried the drift between
 * sessions (the "before" of that change, on the same trials).
 */
function replayVerify(c, trials, k, options = {}) {
  return trials.map((t) => {
    const cmp = c.compareRuns(t.baselineRuns.slice(0, k), t.currentRuns.slice(0, k), options);
    return { factor: t.factor, verdict: cmp.verdict, ratio: cmp.metrics.requestsPerSecond.ratio, halfWidthPct: cmp.metrics.requestsPerSecond.halfWidthPct, k, seconds: (t.seconds * k) / t.k };
  });
}

/** HTTP_METRICS names → the RunSummary field that holds each (also the load-sensitivity suite's). */
const RUN_KEYS = { requestsPerSecond: 'requestsPerSecond', p99LatencyMs: 'p99Ms', cpuMsPerRequest: 'cpuMsPerRequest', p50LatencyMs: 'p50Ms' };

/**
 * The drift between two sessions of runs, per metric (log-scale SD), from the verify trials: across the
 * trials of one factor, the variance of the baseline-then-verify log ratio is the runs' own part
 * (s²/K on each side, averaged) plus 2·drift² (method of moments; negative estimates count as 0). Pooled
 * over the factors up to 2× (root mean square): at 10× the load generator, not the app, sets the pace.
 * This is where HTTP_METRICS.sessionDrift comes from; `calibrated` shows the values in use.
 */
function sessionDrift(c, trials, k) {
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = (xs) => { const m = mean(xs); return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1); };
  const factors = [...new Set(trials.map((t) => t.factor))].filter((f) => f <= 2);
  const out = {};
  for (const [metric, key] of Object.entries(RUN_KEYS)) {
    const perFactor = factors.map((f) => {
      const mine = trials.filter((t) => t.factor === f && t.baselineRuns.length >= k && t.currentRuns.length >= k && t.baselineRuns.every((r) => r[key] > 0) && t.currentRuns.every((r) => r[key] > 0));
      if (mine.length < 3) return null;
      const logs = (runs) => runs.slice(0, k).map((r) => Math.log(r[key]));
      const diffs = mine.map((t) => mean(logs(t.currentRuns)) - mean(logs(t.baselineRuns)));
      const runPart = mean(mine.map((t) => variance(logs(t.baselineRuns)) / k + variance(logs(t.currentRuns)) / k));
      return Math.max(0, (variance(diffs) - runPart) / 2);
    }).filter((x) => x !== null);
    out[metric] = { estimate: perFactor.length ? round(Math.sqrt(mean(perFactor))) : null, calibrated: c.HTTP_METRICS[metric].sessionDrift ?? 0, factors: perFactor.length };
  }
  return out;
}

/** The adaptive rule with another target / budget, replayed on a recorded pair sequence. */
function replayCompare(c, trials, target, budgetMs) {
  const d = c.DEFAULT_INTERLEAVE;
  return trials.map((t) => {
    let elapsed = 0;
    let chosen = 2;
    const pairMs = [];
    for (let p = 0; p < t.pairs; p++) {
      if (p >= d.minPairs) {
        const set = c.analyse(c.HTTP_METRICS, t.runs.filter((r) => r.pair < p), d.alpha);
        if (set.metrics.requestsPerSecond.halfWidthPct <= target) break;
        const avg = pairMs.reduce((a, b) => a + b, 0) / pairMs.length;
        if (elapsed + avg > budgetMs) break;
      }
      const ms = t.runs.filter((r) => r.pair === p).reduce((a, r) => a + r.durationMs, 0);
      pairMs.push(ms);
      elapsed += ms;
      chosen = p + 1;
    }
    const set = c.analyse(c.HTTP_METRICS, t.runs.filter((r) => r.pair < chosen), d.alpha);
    return { factor: t.factor, verdict: set.verdict, ratio: set.metrics.requestsPerSecond.ratio, halfWidthPct: set.metrics.requestsPerSecond.halfWidthPct, pairs: chosen, seconds: elapsed / 1000 };
  });
}

/** The competitor levels a session can get (HOTPATH_BENCH_STATS_SESSION_LOAD; the load-sensitivity suite's levels). */
const SESSION_LEVELS = (cores) => [
  { name: 'idle', processes: 0, duty: [0, 0] },
  { name: 'one core burnt', processes: 1, duty: [1, 1] },
  { name: 'random duty', processes: cores, duty: [0, 1] },
  { name: 'every core burnt', processes: cores, duty: [1, 1] },
];

/** Restarts the competitor at a random level per session; deterministic sequence (seeded). */
function sessionLoadSwitcher(cores) {
  let current = null;
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  return {
    async next() {
      if (current) await current.stop();
      const level = SESSION_LEVELS(cores)[Math.floor(rand() * 4)];
      current = level.processes ? startCompetitor({ processes: level.processes, duty: level.duty, seed: Math.floor(rand() * 1e6) }) : null;
      return level.name;
    },
    async stop() { if (current) await current.stop(); current = null; },
  };
}

async function run({ log }) {
  const c = core();
  const trialsPer = num('HOTPATH_BENCH_STATS_TRIALS', 20);
  const factors = list('HOTPATH_BENCH_STATS_FACTORS', ['1', '1.1', '1.5', '2', '10']).map(Number);
  const modes = list('HOTPATH_BENCH_STATS_MODES', ['verify', 'compare']);
  const K = num('HOTPATH_BENCH_STATS_K', 5);
  const work = num('HOTPATH_BENCH_STATS_WORK', 200000);
  const competitorProcs = num('HOTPATH_BENCH_STATS_COMPETITOR', os.cpus().length);
  const load = loadSettings(c);
  // Only to try the suite quickly; the calibration itself runs at the default budget.
  const budgetMs = process.env.HOTPATH_BENCH_STATS_BUDGET ? Number(process.env.HOTPATH_BENCH_STATS_BUDGET) * 1000 : undefined;
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-stats-'));
  const env = (k) => ({ WORK: String(Math.round(work / k)) });
  const trials = { verify: [], compare: [] };
  const trialsFile = process.env.HOTPATH_BENCH_STATS_TRIALS_FILE;
  const recorded = new Set();
  if (process.env.HOTPATH_BENCH_STATS_RESUME === '1' && trialsFile && fs.existsSync(trialsFile)) {
    for (const line of fs.readFileSync(trialsFile, 'utf8').split('\n').filter(Boolean)) {
      const { mode, ...trial } = JSON.parse(line);
      if (trial.trial >= trialsPer || !factors.includes(trial.factor) || !modes.includes(mode)) continue;
      trials[mode].push(trial);
      recorded.add(`${mode} ${trial.trial} ${trial.factor}`);
    }
    log(`resuming: ${recorded.size} trials already in ${trialsFile}`);
  }
  const pending = (mode, t, factor) => modes.includes(mode) && !recorded.has(`${mode} ${t} ${factor}`);
  const toRun = modes.length * trialsPer * factors.length - recorded.size;
  // HOTPATH_BENCH_STATS_SESSION_LOAD=1: the other load changes between sessions — before each verify
  // block the competitor restarts at a level drawn at random (none, one core burnt, random duty on every
  // core, every core burnt), as when a build starts or a browser goes idle between a baseline and a
  // verify. Verify trials only (compare's pairs are seconds apart).
  const sessionLoad = process.env.HOTPATH_BENCH_STATS_SESSION_LOAD === '1' ? sessionLoadSwitcher(competitorProcs) : null;
  if (sessionLoad && modes.includes('compare')) throw new Error('HOTPATH_BENCH_STATS_SESSION_LOAD=1 is for verify trials: set HOTPATH_BENCH_STATS_MODES=verify');
  const competitor = toRun > 0 && !sessionLoad ? startCompetitor({ processes: competitorProcs }) : { pids: [], stop: async () => undefined };
  // Ctrl-C or a kill: stop the competitor before going (it also exits by itself once we are gone).
  const onSignal = () => { void Promise.all([competitor.stop(), sessionLoad?.stop()]).finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (toRun > 0 && sessionLoad) log(`competitor: a level drawn at random before each verify block (${SESSION_LEVELS(competitorProcs).map((l) => l.name).join(' / ')})`);
  else if (toRun > 0) log(`competitor: ${competitorProcs} processes (pids ${competitor.pids.join(', ')}), random duty 0–100% per 250 ms`);
  const keep = (mode, trial) => {
    trials[mode].push(trial);
    if (trialsFile) fs.appendFileSync(trialsFile, `${JSON.stringify({ mode, ...trial })}\n`);
  };
  const movedText = (set) => Object.entries(set.metrics).filter(([, m]) => m.significant).map(([n, m]) => `${n} ${round(m.ratio)}`).join(', ') || 'none';
  const started = Date.now();
  try {
    for (let t = 0; t < trialsPer; t++) {
      for (const factor of factors) {
        if (pending('verify', t, factor)) {
          const t0 = Date.now();
          const levels = [];
          const block = async (workFactor) => {
            if (sessionLoad) levels.push(await sessionLoad.next());
            const m = await c.measureRuns({ command: ['node', APP], cwd, env: env(workFactor) }, load, K);
            return m.results.map((r, i) => c.summarizeRun(r, m.appCpuMs[i], m.otherCpuCores[i]));
          };
          const baselineRuns = await block(1);
          const currentRuns = await block(factor);
          const seconds = (Date.now() - t0) / 1000;
          keep('verify', { trial: t, factor, k: K, seconds, ...(sessionLoad ? { sessionLoad: levels } : {}), baselineRuns: baselineRuns.map(({ perSecond, ...r }) => r), currentRuns: currentRuns.map(({ perSecond, ...r }) => r) });
          const k3 = c.compareRuns(baselineRuns.slice(0, 3), currentRuns.slice(0, 3));
          log(`trial ${t + 1}/${trialsPer} verify ${factor}×: ${k3.verdict} (K=3; significant: ${movedText(k3)}; req/s ratio ${round(k3.metrics.requestsPerSecond.ratio)}) in ${seconds.toFixed(0)} s`);
        }
        if (pending('compare', t, factor)) {
          const t0 = Date.now();
          const r = await c.compareVariants({ command: ['node', APP], cwd, sides: [{ env: env(1) }, { env: env(factor) }], mode: 'http', load, profile: false, name: 'calibration', interleave: budgetMs ? { budgetMs } : {} });
          const m = r.comparison.metrics.requestsPerSecond;
          const seconds = (Date.now() - t0) / 1000;
          keep('compare', {
            trial: t, factor, verdict: r.comparison.verdict, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh, halfWidthPct: m.halfWidthPct,
            p99Ratio: r.comparison.metrics.p99LatencyMs.ratio, pairs: r.comparison.pairs, stopReason: r.comparison.stopReason, seconds, runs: r.runs,
          });
          log(`trial ${t + 1}/${trialsPer} compare ${factor}×: ${r.comparison.verdict} (significant: ${movedText(r.comparison)}; req/s ratio ${round(m.ratio)} ±${round(m.halfWidthPct, 1)}%, ${r.comparison.pairs} pairs, ${r.comparison.stopReason}) in ${seconds.toFixed(0)} s`);
        }
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await competitor.stop();
    if (sessionLoad) await sessionLoad.stop();
    fs.rmSync(cwd, { recursive: true, force: true });
  }

  const d = c.DEFAULT_INTERLEAVE;
  const verifyAt = (k) => factors.map((f) => summarize(replayVerify(c, trials.verify, k), f));
  const compareAt = (target, budgetMs) => factors.map((f) => summarize(replayCompare(c, trials.compare, target, budgetMs), f));
  const alternatives = { verify: {}, compare: {} };
  for (let k = 2; k <= K; k++) if (trials.verify.length) alternatives.verify[`K=${k}`] = verifyAt(k);
  for (let k = 3; k <= K; k++) if (trials.verify.length) alternatives.verify[`K=${k}, run-to-run noise only (no session drift)`] = factors.map((f) => summarize(replayVerify(c, trials.verify, k, { ignoreSessionDrift: true }), f));
  // Only trials that recorded other programs' CPU use can be widened for a change of it.
  if (trials.verify.some((t) => t.baselineRuns.every((r) => typeof r.otherCpuCores === 'number'))) {
    alternatives.verify['K=3, session drift without the load-change term'] = factors.map((f) => summarize(replayVerify(c, trials.verify, 3, { loadChangeCores: 0 }), f));
  }
  if (trials.compare.length) {
    for (const target of [5, 10]) for (const budget of [60_000, 120_000, d.budgetMs]) {
      if (budget <= d.budgetMs) alternatives.compare[`target ±${target}%, budget ${budget / 1000} s`] = compareAt(target, budget);
    }
  }
  return {
    settings: {
      trialsPerCondition: trialsPer, factors, load, workPerRequest: work, verifyRunsRecordedPerSide: K,
      competitor: { processes: competitorProcs, dutyCycle: 'uniform 0–100% per 250 ms slice' },
      compareDefaults: { ...d, budgetSeconds: d.budgetMs / 1000 },
      compareBudgetSeconds: (budgetMs ?? d.budgetMs) / 1000,
      verifyDefaultRuns: 3,
      minutes: round((Date.now() - started) / 60000, 1),
      resumedTrials: recorded.size,
    },
    verify: trials.verify.length ? verifyAt(3) : null,
    sessionDrift: trials.verify.length ? sessionDrift(c, trials.verify, K) : null,
    compare: trials.compare.length ? factors.map((f) => summarize(trials.compare, f)) : null,
    alternatives,
    targets: { falsePositiveRateMax: 0.05, detectionRateMin2xAnd10x: 0.95 },
    trials,
  };
}

// Hours at the default 20 trials: `npm run bench` leaves it out unless it is named.
module.exports = { run, onlyWhenNamed: true, core, num, round, loadSettings, RUN_KEYS, SESSION_LEVELS };
