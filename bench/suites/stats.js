'use strict';
// Calibration of Hotpath's verdicts (`npm run bench -- stats`).
//
// Three apps, each idle and under an artificial CPU competitor (bench/lib/competitor.js: processes
// burning CPU with a random duty cycle):
//   - cpu: CPU-bound, a tunable per-request cost (bench/apps/tunable-server.js, WORK units per request);
//   - io:  Express waiting on a timer and a socket (test/fixtures/npm-apps/wait-api, WAIT_MS and WORK);
//   - pg:  the pg app on a throwaway PostgreSQL (test/fixtures/npm-apps/pg-reports, 200 rows per report:
//          test/helpers/postgres.ts starts and stops the cluster).
// For each change factor k (1 = A/A, 1.1, 1.5, 2, 10; side B does 1/k of A's work and waiting) and trial:
//   - verify: K runs of A (the baseline), then K runs of B (the verify), each a fresh app with a warm-up,
//     compared as `hotpath verify` does (log-scale Welch with the drift between sessions, Bonferroni
//     over req/s, p99 and CPU/req); replayed at K = 3 (verify's default) and K = 2 (what CI ran); the
//     drift itself is estimated per app and machine state from these trials (`sessionDrift`);
//   - compare: `hotpath compare` at its default settings (interleaved pairs, adaptive to ±5% or the
//     time budget).
// Reported per app, machine state, mode and factor: the rate at which a change was called — for k = 1
// the false-verdict rate, otherwise the detection rate ("faster" for B) — with the wrong-direction
// count, the median pairs and time, and the measured ratio; the drift terms per kind of app (the largest
// over each kind's apps and states: src/core/stats/sessionDrift.ts) and a README table of every cell.
// Trials of all conditions are interleaved round by round, so the machine's state during the run
// affects every condition alike. Every trial's raw per-run values are kept, and alternative settings are
// evaluated on the same data by replaying (verify with other K, without the drift term; compare with
// other targets and budgets).
//
// Environment: HOTPATH_BENCH_STATS_TRIALS (20), HOTPATH_BENCH_STATS_FACTORS (1,1.1,1.5,2,10),
// HOTPATH_BENCH_STATS_MODES (verify,compare), HOTPATH_BENCH_STATS_APPS (cpu,io,pg),
// HOTPATH_BENCH_STATS_LOADS (idle,competitor), HOTPATH_BENCH_STATS_K (3: verify runs recorded per side),
// HOTPATH_BENCH_STATS_WORK (per-request work units of the cpu app's A), HOTPATH_BENCH_STATS_COMPETITOR
// (processes; default: the number of cores), HOTPATH_BENCH_STATS_DURATION / _WARMUP (seconds per run:
// the compare defaults), HOTPATH_BENCH_STATS_CONNECTIONS (10), HOTPATH_BENCH_STATS_BUDGET (compare's
// budget in seconds, to try the suite quickly), HOTPATH_BENCH_STATS_TRIALS_FILE (every trial is also
// appended there as a JSON line as soon as it ends), HOTPATH_BENCH_STATS_RESUME=1 (trials already in that
// file are kept and not run again: the calibration can run in parts — per app, per state — and resume;
// with every trial recorded, only the summary is computed), HOTPATH_BENCH_STATS_UPDATE=1 (writes the
// drift terms into src/core/stats/sessionDrift.ts and the table between README.md's
// `stats-calibration` markers, replaying the verdicts with the new terms first),
// HOTPATH_BENCH_STATS_SESSION_LOAD=1 (verify only: the competitor's level is drawn again before each
// block, so the machine's load changes between the baseline and the verify).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bundle, ROOT } = require('../lib/build');
const { startCompetitor } = require('../lib/competitor');

const APP = path.join(ROOT, 'bench/apps/tunable-server.js');

/** The core's statistics and workflows, bundled from src (`name`: a fresh bundle sees constants just written). */
function core(name = 'stats') {
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
    `export { appCores, runKind, SESSION_DRIFT } from ${src('src/core/stats/sessionDrift')};`,
  ].join('\n'));
  const out = bundle(path.relative(ROOT, entry), name);
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

/** The apps the calibration runs: how to start each, and its side for a change factor k. */
function appsFor({ work, cwdTmp, postgres }) {
  const fixtures = path.join(ROOT, 'test/fixtures/npm-apps');
  return {
    cpu: { label: 'CPU-bound (bench/apps/tunable-server.js)', command: ['node', APP], cwd: cwdTmp, env: (k) => ({ WORK: String(Math.round(work / k)) }) },
    io: {
      label: 'Express waiting on a timer and a socket (test/fixtures/npm-apps/wait-api)', command: ['node', 'server.js'], cwd: path.join(fixtures, 'wait-api'),
      env: (k) => ({ NODE_ENV: 'production', WAIT_MS: String(20 / k), WORK: String(Math.round(2000 / k)) }),
    },
    pg: {
      label: 'pg on PostgreSQL (test/fixtures/npm-apps/pg-reports)', command: ['node', 'server.js'], cwd: path.join(fixtures, 'pg-reports'),
      env: (k) => ({ NODE_ENV: 'production', DATABASE_URL: postgres().url, ROWS: String(Math.max(1, Math.round(200 / k))) }),
    },
  };
}

/** Old trial files (before apps and machine states were kept) hold the CPU-bound app under the competitor. */
const trialKey = (t) => `${t.app ?? 'cpu'} ${t.load ?? 'competitor'} ${t.mode} ${t.trial} ${t.factor}`;

/**
 * The kind of an app, from all its verify trials: the kind at least half its runs were told as (a busy
 * machine leaves runs unknown: sessionDrift.runKind), else null — and then its drift counts for both
 * kinds. With its median app cores per state, and how its runs were told.
 */
function kindOf(c, trials) {
  const runs = trials.flatMap((t) => [...t.baselineRuns, ...t.currentRuns]);
  const cores = runs.map((r) => c.appCores(r)).filter((x) => x !== undefined);
  const counts = {};
  for (const r of runs) { const k = c.runKind(r, os.cpus().length) ?? 'unknown'; counts[k] = (counts[k] ?? 0) + 1; }
  const known = Object.entries(counts).filter(([k, n]) => k !== 'unknown' && n >= runs.length / 2);
  return { kind: known.length ? known[0][0] : null, appCores: cores.length ? round(median(cores), 2) : null, runKinds: counts };
}

/**
 * Per kind and metric, the largest drift estimate over that kind's apps and states (floored at 0.01); an
 * app whose kind could not be told counts for both kinds. A kind without any estimate keeps its term.
 */
function termsByKind(conditions, current) {
  const out = {};
  for (const metric of Object.keys(RUN_KEYS)) {
    out[metric] = { ...current[metric] };
    for (const kind of ['cpu', 'io']) {
      const estimates = conditions.filter((x) => (x.kind === kind || x.kind === null) && x.sessionDrift?.[metric]?.estimate !== null && x.sessionDrift?.[metric]?.estimate !== undefined).map((x) => x.sessionDrift[metric].estimate);
      if (estimates.length) out[metric][kind] = Math.max(0.01, round(Math.max(...estimates), 3));
    }
  }
  return out;
}

/** The generated block of src/core/stats/sessionDrift.ts. */
function sessionDriftBlock(terms, note) {
  const line = (m) => `  ${m}: { cpu: ${terms[m].cpu}, io: ${terms[m].io} },`;
  return [
    '// <calibration:start>',
    `/** ${note} */`,
    "export const SESSION_DRIFT: Record<'requestsPerSecond' | 'p99LatencyMs' | 'cpuMsPerRequest' | 'p50LatencyMs', Record<AppKind, number>> = {",
    ...Object.keys(RUN_KEYS).map(line),
    '};',
    '// <calibration:end>',
  ].join('\n');
}

/** "3/20" for a rate over trials, or "—" without trials. */
const cell = (summary) => {
  if (!summary || !summary.trials) return '—';
  const rate = summary.falsePositiveRate ?? summary.detectionRate;
  const n = Math.round(rate * summary.trials);
  return `${n}/${summary.trials}${summary.wrongDirection ? ` (${summary.wrongDirection} wrong way)` : ''}`;
};

/** The README's table: every app, machine state and test, A/A false verdicts and detections per factor. */
function readmeTable(conditions, factors, K, terms) {
  const head = ['app', 'machine', 'test', ...factors.map((f) => (f === 1 ? 'A/A: false verdicts' : `${f}× found`)), 'median pairs or runs, s'];
  const rows = [];
  for (const x of conditions) {
    const what = [
      ...(x.verify ? [[`verify, ${3} runs a side`, x.verify['K=3']], [`verify, 2 runs a side`, x.verify['K=2']]] : []),
      ...(x.compare ? [['compare (defaults)', x.compare]] : []),
    ];
    for (const [name, summaries] of what) {
      if (!summaries) continue;
      const byFactor = factors.map((f) => summaries.find((s) => s.factor === f));
      const s = byFactor.find((y) => y && y.trials);
      rows.push([x.app, x.load, name, ...byFactor.map(cell), s ? `${s.medianPairsOrRuns}, ${s.medianSeconds} s` : '—']);
    }
  }
  const table = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  const driftHead = ['app', 'machine', 'kind (app cores)', ...Object.keys(RUN_KEYS)];
  const driftRows = conditions.filter((x) => x.sessionDrift).map((x) => [x.app, x.load, `${x.kind ?? '?'} (${x.appCores ?? '?'})`, ...Object.keys(RUN_KEYS).map((m) => String(x.sessionDrift[m].estimate ?? '—'))]);
  const kinds = ['cpu', 'io'].map((k) => ['**term per kind**', '', k, ...Object.keys(RUN_KEYS).map((m) => String(terms[m][k]))]);
  const drift = [`| ${driftHead.join(' | ')} |`, `|${driftHead.map(() => '---').join('|')}|`, ...[...driftRows, ...kinds].map((r) => `| ${r.join(' | ')} |`)].join('\n');
  return `${table}\n\nDrift between sessions (log-scale SD per metric, estimated from the verify trials with K = ${K} runs a side; the term per kind: the largest over the kind's apps — an app whose kind the runs could not tell counts for both — at least 0.01, as HOTPATH_BENCH_STATS_UPDATE=1 writes it):\n\n${drift}`;
}

/** Replaces the text between `start` and `end` markers in a file. */
function replaceBetween(file, start, end, body) {
  const text = fs.readFileSync(file, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file} has no ${start} … ${end} markers`);
  fs.writeFileSync(file, `${text.slice(0, i)}${body}${text.slice(j + end.length)}`);
}

async function run({ log }) {
  let c = core();
  const trialsPer = num('HOTPATH_BENCH_STATS_TRIALS', 20);
  const factors = list('HOTPATH_BENCH_STATS_FACTORS', ['1', '1.1', '1.5', '2', '10']).map(Number);
  const modes = list('HOTPATH_BENCH_STATS_MODES', ['verify', 'compare']);
  const appNames = list('HOTPATH_BENCH_STATS_APPS', ['cpu', 'io', 'pg']);
  const sessionLoadMode = process.env.HOTPATH_BENCH_STATS_SESSION_LOAD === '1';
  const loads = sessionLoadMode ? ['session-load'] : list('HOTPATH_BENCH_STATS_LOADS', ['idle', 'competitor']);
  const K = num('HOTPATH_BENCH_STATS_K', 3);
  const work = num('HOTPATH_BENCH_STATS_WORK', 200000);
  const competitorProcs = num('HOTPATH_BENCH_STATS_COMPETITOR', os.cpus().length);
  const load = loadSettings(c);
  // Only to try the suite quickly; the calibration itself runs at the default budget.
  const budgetMs = process.env.HOTPATH_BENCH_STATS_BUDGET ? Number(process.env.HOTPATH_BENCH_STATS_BUDGET) * 1000 : undefined;
  const cwdTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-stats-'));
  let cluster = null;
  const apps = appsFor({ work, cwdTmp, postgres: () => cluster });
  for (const a of appNames) if (!apps[a]) throw new Error(`HOTPATH_BENCH_STATS_APPS: no app '${a}' (cpu, io, pg)`);
  for (const l of loads) if (!['idle', 'competitor', 'session-load'].includes(l)) throw new Error(`HOTPATH_BENCH_STATS_LOADS: no machine state '${l}' (idle, competitor)`);
  if (sessionLoadMode && modes.includes('compare')) throw new Error('HOTPATH_BENCH_STATS_SESSION_LOAD=1 is for verify trials: set HOTPATH_BENCH_STATS_MODES=verify');
  const trials = [];
  const trialsFile = process.env.HOTPATH_BENCH_STATS_TRIALS_FILE;
  const recorded = new Set();
  if (process.env.HOTPATH_BENCH_STATS_RESUME === '1' && trialsFile && fs.existsSync(trialsFile)) {
    for (const line of fs.readFileSync(trialsFile, 'utf8').split('\n').filter(Boolean)) {
      const t = JSON.parse(line);
      t.app = t.app ?? 'cpu';
      t.load = t.load ?? 'competitor';
      if (t.trial >= trialsPer || !factors.includes(t.factor) || !modes.includes(t.mode) || !appNames.includes(t.app) || !loads.includes(t.load)) continue;
      trials.push(t);
      recorded.add(trialKey(t));
    }
    log(`resuming: ${recorded.size} trials already in ${trialsFile}`);
  }
  const pending = (app, ld, mode, t, factor) => modes.includes(mode) && !recorded.has(trialKey({ app, load: ld, mode, trial: t, factor }));
  const toRun = appNames.length * loads.length * modes.length * trialsPer * factors.length - recorded.size;
  const keep = (trial) => {
    trials.push(trial);
    if (trialsFile) fs.appendFileSync(trialsFile, `${JSON.stringify(trial)}\n`);
  };
  const movedText = (set) => Object.entries(set.metrics).filter(([, m]) => m.significant).map(([n, m]) => `${n} ${round(m.ratio)}`).join(', ') || 'none';
  // Machine states: none, the random-duty competitor, or (SESSION_LOAD) a level drawn per verify block.
  let competitor = null;
  const sessionLoad = sessionLoadMode ? sessionLoadSwitcher(competitorProcs) : null;
  const stopAll = async () => { if (competitor) await competitor.stop(); competitor = null; if (sessionLoad) await sessionLoad.stop(); if (cluster) await cluster.stop(); };
  const onSignal = () => { void stopAll().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = Date.now();
  log(`${toRun} trials to run (${appNames.join(', ')} × ${loads.join(', ')} × ${modes.join(', ')} × factors ${factors.join(', ')} × ${trialsPer} trials)`);
  try {
    const pgPending = appNames.includes('pg') && Array.from({ length: trialsPer }, (_, t) => t).some((t) => loads.some((ld) => factors.some((f) => pending('pg', ld, 'verify', t, f) || pending('pg', ld, 'compare', t, f))));
    if (pgPending) {
      require('tsx/cjs');
      const { startPostgres } = require(path.join(ROOT, 'test/helpers/postgres.ts'));
      cluster = await startPostgres();
      log(`PostgreSQL for the pg app on 127.0.0.1:${cluster.port}`);
    }
    for (let t = 0; t < trialsPer; t++) {
      for (const appName of appNames) {
        const app = apps[appName];
        for (const ld of loads) {
          if (!factors.some((f) => pending(appName, ld, 'verify', t, f) || pending(appName, ld, 'compare', t, f))) continue;
          if (ld === 'competitor') competitor = startCompetitor({ processes: competitorProcs, seed: 1 + t });
          try {
            for (const factor of factors) {
              if (pending(appName, ld, 'verify', t, factor)) {
                const t0 = Date.now();
                const levels = [];
                const block = async (k) => {
                  if (sessionLoad) levels.push(await sessionLoad.next());
                  const m = await c.measureRuns({ command: app.command, cwd: app.cwd, env: app.env(k) }, load, K);
                  return m.results.map((r, i) => c.summarizeRun(r, m.appCpuMs[i], m.otherCpuCores[i]));
                };
                const baselineRuns = await block(1);
                const currentRuns = await block(factor);
                const seconds = (Date.now() - t0) / 1000;
                keep({ mode: 'verify', app: appName, load: ld, trial: t, factor, k: K, seconds, ...(sessionLoad ? { sessionLoad: levels } : {}), baselineRuns: baselineRuns.map(({ perSecond, ...r }) => r), currentRuns: currentRuns.map(({ perSecond, ...r }) => r) });
                const k3 = c.compareRuns(baselineRuns.slice(0, 3), currentRuns.slice(0, 3));
                log(`trial ${t + 1}/${trialsPer} ${appName} ${ld} verify ${factor}×: ${k3.verdict} (K=3; significant: ${movedText(k3)}; req/s ratio ${round(k3.metrics.requestsPerSecond.ratio)}) in ${seconds.toFixed(0)} s`);
              }
              if (pending(appName, ld, 'compare', t, factor)) {
                const t0 = Date.now();
                const r = await c.compareVariants({ command: app.command, cwd: app.cwd, sides: [{ env: app.env(1) }, { env: app.env(factor) }], mode: 'http', load, profile: false, name: 'calibration', interleave: budgetMs ? { budgetMs } : {} });
                const m = r.comparison.metrics.requestsPerSecond;
                const seconds = (Date.now() - t0) / 1000;
                keep({
                  mode: 'compare', app: appName, load: ld, trial: t, factor, verdict: r.comparison.verdict, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh, halfWidthPct: m.halfWidthPct,
                  p99Ratio: r.comparison.metrics.p99LatencyMs.ratio, pairs: r.comparison.pairs, stopReason: r.comparison.stopReason, seconds, runs: r.runs,
                });
                log(`trial ${t + 1}/${trialsPer} ${appName} ${ld} compare ${factor}×: ${r.comparison.verdict} (significant: ${movedText(r.comparison)}; req/s ratio ${round(m.ratio)} ±${round(m.halfWidthPct, 1)}%, ${r.comparison.pairs} pairs, ${r.comparison.stopReason}) in ${seconds.toFixed(0)} s`);
              }
            }
          } finally {
            if (competitor) await competitor.stop();
            competitor = null;
          }
        }
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopAll();
    fs.rmSync(cwdTmp, { recursive: true, force: true });
  }

  const d = c.DEFAULT_INTERLEAVE;
  const summarizeCondition = (cc, appName, ld) => {
    const verifyTrials = trials.filter((t) => t.mode === 'verify' && t.app === appName && t.load === ld);
    const compareTrials = trials.filter((t) => t.mode === 'compare' && t.app === appName && t.load === ld);
    const verifyAt = (k, options) => factors.map((f) => summarize(replayVerify(cc, verifyTrials, k, options), f));
    const appKind = kindOf(cc, trials.filter((t) => t.mode === 'verify' && t.app === appName)).kind;
    const mine = verifyTrials.length ? kindOf(cc, verifyTrials) : { appCores: null, runKinds: {} };
    const kind = { kind: appKind, appCores: mine.appCores, runKinds: mine.runKinds };
    const alternatives = { verify: {}, compare: {} };
    if (verifyTrials.length) {
      for (let k = 4; k <= K; k++) alternatives.verify[`K=${k}`] = verifyAt(k);
      alternatives.verify['K=3, run-to-run noise only (no session drift)'] = verifyAt(3, { ignoreSessionDrift: true });
    }
    if (compareTrials.length) {
      for (const target of [5, 10]) for (const budget of [60_000, d.budgetMs]) alternatives.compare[`target ±${target}%, budget ${budget / 1000} s`] = factors.map((f) => summarize(replayCompare(cc, compareTrials, target, budget), f));
    }
    return {
      app: appName, load: ld, label: apps[appName].label, ...kind,
      verify: verifyTrials.length ? { 'K=3': verifyAt(Math.min(3, K)), 'K=2': verifyAt(2) } : null,
      sessionDrift: verifyTrials.length ? sessionDrift(cc, verifyTrials, K) : null,
      compare: compareTrials.length ? factors.map((f) => summarize(compareTrials, f)) : null,
      alternatives,
    };
  };
  const summarizeAll = (cc) => appNames.flatMap((a) => loads.map((l) => summarizeCondition(cc, a, l))).filter((x) => x.verify || x.compare);
  let conditions = summarizeAll(c);
  const terms = termsByKind(conditions, c.SESSION_DRIFT);
  let updated = null;
  if (process.env.HOTPATH_BENCH_STATS_UPDATE === '1') {
    const note = `Calibrated ${new Date().toISOString().slice(0, 10)} by \`npm run bench -- stats\` (${trialsPer} trials per condition; apps ${appNames.join(', ')}; machine ${loads.join(', ')}; ${os.cpus().length} cores).`;
    replaceBetween(path.join(ROOT, 'src/core/stats/sessionDrift.ts'), '// <calibration:start>', '// <calibration:end>', sessionDriftBlock(terms, note));
    // The verdicts again, with the terms just written.
    c = core('stats-calibrated');
    conditions = summarizeAll(c);
    replaceBetween(path.join(ROOT, 'README.md'), '<!-- stats-calibration:start -->', '<!-- stats-calibration:end -->', `<!-- stats-calibration:start -->\n${readmeTable(conditions, factors, K, terms)}\n<!-- stats-calibration:end -->`);
    updated = ['src/core/stats/sessionDrift.ts', 'README.md'];
    log('wrote the drift terms to src/core/stats/sessionDrift.ts and the table to README.md (run `npm run build` before using the CLI)');
  }
  return {
    settings: {
      trialsPerCondition: trialsPer, factors, apps: appNames, machine: loads, load, workPerRequest: work, verifyRunsRecordedPerSide: K,
      competitor: { processes: competitorProcs, dutyCycle: 'uniform 0–100% per 250 ms slice' },
      compareDefaults: { ...d, budgetSeconds: d.budgetMs / 1000 },
      compareBudgetSeconds: (budgetMs ?? d.budgetMs) / 1000,
      verifyDefaultRuns: 3,
      minutes: round((Date.now() - started) / 60000, 1),
      resumedTrials: recorded.size,
    },
    conditions,
    sessionDriftTerms: { inUse: c.SESSION_DRIFT, calibrated: terms, updated },
    readmeTable: readmeTable(conditions, factors, K, terms),
    targets: { falsePositiveRateMax: 0.05, detectionRateMin2xAnd10x: 0.95 },
    trials,
  };
}

// Hours at the default 20 trials: `npm run bench` leaves it out unless it is named.
module.exports = { run, onlyWhenNamed: true, core, num, round, loadSettings, RUN_KEYS, SESSION_LEVELS };
