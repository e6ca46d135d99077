#!/usr/bin/env node
'use strict';
// `npm test` and `npm run test:quick`: runs the test files of scripts/test/plan.js in their lanes, then
// prints the time of each file (hooks included) and the slowest tests, and the retries of the run.
//
//   npm test                          everything: unit, integration (Node 20/22/24/26), browser, real VS Code
//   npm test -- --grep 'verify'       only tests whose full title matches (mocha's --grep), in every group
//   npm test -- test/integration/compare.test.ts   only these files (their lanes still apply)
//   npm run test:quick                unit tests and the core integration files (no pretest)
//
// Options: --grep/-g PATTERN, --invert, --only unit,integration,browser,e2e, --quick, --jobs N|auto (mocha
// processes of the shared lane at a time; default auto: three times the machine's idle cores plus one, 1 to 7),
// --e2e-jobs N|auto (processes the real-VS-Code files are spread over, each with its code-server; default
// auto: 2 when the shared lane runs 4 or more files at a time, else 1),
// --retries N (real-VS-Code tests; default 1 when CI is set, else 0), --bail, --list (print the plan and
// exit). HOTPATH_TEST_ARGS (space-separated, no quoting) adds options from the environment.
//
// Each mocha process writes its output to test-results/test-logs/<job>.log; a job of the shared lane is
// printed whole when it ends (so parallel jobs do not interleave), the others as they run. The run's
// record: test-results/test-run.json (every test, every file's time, retries) and test-results/timings.json
// (file → seconds, which orders the next run's shared lane longest first).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { plan, ROOT } = require('./plan');
const { summarize, fmt } = require('./summary');
const { measureOtherBusy } = require('./busy');

const RESULTS = path.join(ROOT, 'test-results');
const LOGS = path.join(RESULTS, 'test-logs');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const REPORTER = path.join(__dirname, 'reporter.js');
const TIMINGS = path.join(RESULTS, 'timings.json');
// Seconds per file from a full run on the 2-core machine the suite is sized for (refresh it by copying
// test-results/timings.json after one). A clean clone has no record of its own, and the guesses below
// ordered CI's shared lane badly: ci-gate (2.6 min, guessed 40 s) started last. Replaying 06b72da's file
// times put the lane ~100 s longer in guessed order; measured on clean clones, 12m 56s → 12m 13s.
const RECORDED_TIMINGS = path.join(__dirname, 'timings.json');

function parseArgs(argv) {
  const o = { grep: null, invert: false, only: null, quick: false, jobs: 'auto', e2eJobs: 'auto', retries: process.env.CI ? 1 : 0, bail: false, list: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--grep' || a === '-g') o.grep = value();
    else if (a.startsWith('--grep=')) o.grep = a.slice(7);
    else if (a === '--invert' || a === '-i') o.invert = true;
    else if (a === '--only') o.only = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--quick') o.quick = true;
    else if (a === '--jobs' || a === '-j') { const v = value(); o.jobs = v === 'auto' ? 'auto' : Math.max(1, Number(v) || 1); }
    else if (a === '--retries') o.retries = Math.max(0, Number(value()) || 0);
    else if (a === '--e2e-jobs') { const v = value(); o.e2eJobs = v === 'auto' ? 'auto' : Math.max(1, Number(v) || 1); }
    else if (a === '--bail' || a === '-b') o.bail = true;
    else if (a === '--list') o.list = true;
    else if (a === '--help' || a === '-h') { o.help = true; }
    else if (a.startsWith('-')) throw new Error(`unknown option ${a} (see scripts/test/run.js)`);
    else o.files.push(path.relative(ROOT, path.resolve(a)));
  }
  return o;
}

/** This checkout's last run's seconds per file over the recorded ones (a file either lacks falls back to GUESS). */
function readTimings() {
  const read = (file) => { try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return {}; } };
  return { ...read(RECORDED_TIMINGS), ...read(TIMINGS) };
}

/** Rough seconds a file takes when no earlier run recorded it: only orders the shared lane. */
const GUESS = { unit: 1, browser: 20, integration: 40, e2e: 120 };

/**
 * Jobs (one mocha process each): every unit file in one (they are many and short), the browser files in
 * another, each integration file in its own, and the real-VS-Code files in `e2eJobs` processes (the files
 * of one process share its code-server), a file tagged `own` or `measured` in its own.
 */
function jobsOf(entries, timings, e2eJobs) {
  const jobs = [];
  // A file that runs its tests on every Node version (NODE_MATRIX) takes about four times as long.
  const guess = (f, group) => GUESS[group] * (/NODE_MATRIX/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')) ? 4 : 1);
  const estimateOf = (files, group) => files.reduce((s, f) => s + (timings[f] ?? guess(f, group)), 0);
  const add = (name, lane, files, group) => {
    if (files.length) jobs.push({ name, lane, files, group, estimate: estimateOf(files, group) });
  };
  const by = (pred) => entries.filter(pred).map((e) => e.file);
  const base = (f) => path.basename(f).replace(/\.test\.\w+$/, '');
  add('unit', 'shared', by((e) => e.group === 'unit'), 'unit');
  add('browser', 'shared', by((e) => e.group === 'browser'), 'browser');
  for (const e of entries.filter((x) => x.group === 'integration')) add(base(e.file), e.lane, [e.file], 'integration');
  const e2e = entries.filter((x) => x.group === 'e2e');
  for (const e of e2e.filter((x) => x.own || x.lane === 'measured')) add(`e2e-${base(e.file)}`, e.lane, [e.file], 'e2e');
  // The rest, longest first, each to the least loaded of e2eJobs processes.
  const bins = Array.from({ length: Math.max(1, e2eJobs) }, () => ({ files: [], estimate: 0 }));
  for (const f of by((x) => x.group === 'e2e' && !x.own && x.lane !== 'measured').sort((a, b) => estimateOf([b], 'e2e') - estimateOf([a], 'e2e'))) {
    const bin = bins.reduce((m, x) => (x.estimate < m.estimate ? x : m));
    bin.files.push(f);
    bin.estimate += estimateOf([f], 'e2e');
  }
  bins.filter((b) => b.files.length).forEach((b, i, all) => add(all.length > 1 ? `e2e-${i + 1}` : 'e2e', 'shared', b.files.sort(), 'e2e'));
  return jobs;
}

function mochaArgs(job, o) {
  // Colours only when npm test itself writes to a terminal (mocha would see a pipe, or colour a CI log).
  const args = [MOCHA, '--reporter', REPORTER, process.stdout.isTTY ? '--color' : '--no-color'];
  if (o.grep) args.push('--grep', o.grep);
  if (o.invert) args.push('--invert');
  if (o.bail) args.push('--bail');
  // Only real-VS-Code tests may be retried, and only where the CI sets CI (.ci/run does).
  if (job.group === 'e2e' && o.retries > 0) args.push('--retries', String(o.retries));
  args.push(...job.files);
  return args;
}


/**
 * How many mocha processes the shared lane runs at once: three times the machine's idle cores plus one,
 * measured over 2 s before the lane starts (nothing of ours runs then), at least 1 and at most 7. On an idle
 * 2-core machine that is 7; with a core kept busy by other programs, 4; on a busy one, 1 — parallel files
 * would only starve each other's apps there (seen at load average 20 with 3 at once: V8 inlined
 * differently and shares moved).
 * Why more files than cores: the shared lane's files mostly wait on fixed windows (a 2–4 s load, a UI
 * state), and a load window's work stretches to the CPU it gets rather than taking longer. Measured on
 * this 2-core machine, integration/memory: alone 130 s wall for 125 s of CPU, beside 2 other files 151 s
 * for 75 s, beside 4 others 203 s for 58 s; the whole suite: 15m 03s with 3 at once, 12m 53s with 5 (and
 * the real-VS-Code files in 2 processes), every test passing in both. On clean clones of one commit, 5 at
 * once took 12m 01s and 7 at once 11m 26s (the shared lane ~7m 50s → ~7m 15s; 14m 32s → 13m 49s of CPU,
 * the fixed windows doing less of it), all 1045 tests passing in both.
 */
async function autoJobs() {
  const { cores, busyCores } = await measureOtherBusy(2000);
  return { jobs: Math.max(1, Math.min(7, Math.round(3 * (cores - busyCores)) + 1)), busyCores, cores };
}

/**
 * With --grep: only the files that have a matching test (mocha --dry-run over all of them, a few seconds),
 * so no mocha process starts — and no code-server — for a file with nothing to run.
 */
function matching(entries, o) {
  return new Promise((resolve) => {
    const args = [MOCHA, '--dry-run', '--reporter', 'json', '--grep', o.grep, ...(o.invert ? ['--invert'] : []), ...entries.map((e) => e.file)];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.resume();
    child.on('close', () => {
      try {
        const files = new Set(JSON.parse(out).tests.map((t) => path.relative(ROOT, t.file)));
        resolve(entries.filter((e) => files.has(e.file)));
      } catch {
        resolve(entries); // could not tell: run them all, each mocha applies --grep itself
      }
    });
  });
}

/** CPU ms (user + system) of a job's processes, from bash's `times` (its second line: the children's). */
function cpuOf(timesFile) {
  try {
    const line = fs.readFileSync(timesFile, 'utf8').trim().split('\n')[1] ?? '';
    const ms = [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
    return Number.isFinite(ms) ? Math.round(ms) : null;
  } catch { return null; }
}

/**
 * The extension packaged once for every real-VS-Code process of the run (HOTPATH_E2E_VSIX, read by
 * test/e2e/session.ts); started at once, awaited by those processes only. A failure is theirs to report
 * (each then packages for itself and says why).
 */
const VSIX_DIR = path.join(RESULTS, 'vsix');
function packageOnce() {
  if (process.env.HOTPATH_E2E === 'skip') return Promise.resolve('');
  fs.mkdirSync(VSIX_DIR, { recursive: true });
  const out = path.join(VSIX_DIR, 'hotpath.vsix');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'e2e', 'package.js'), out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => { text += d; });
    child.stderr.on('data', (d) => { text += d; });
    child.on('close', (code) => {
      process.stdout.write(`[vsix for the real-VS-Code tests] ${code === 0 ? text.trim().split('\n').pop() : `packaging failed (exit ${code}); each process will try itself:\n${text}`}\n`);
      resolve(code === 0 ? out : '');
    });
  });
}

/** Runs one mocha process; resolves with its exit code and the path of its JSON record. */
async function runJob(job, o, live, vsix) {
  const vsixFile = vsix ? await vsix : '';
  fs.mkdirSync(LOGS, { recursive: true });
  const record = path.join(LOGS, `${job.name}.json`);
  const logFile = path.join(LOGS, `${job.name}.log`);
  fs.rmSync(record, { force: true });
  const started = Date.now();
  const timesFile = path.join(LOGS, `${job.name}.times`);
  fs.rmSync(timesFile, { force: true });
  return new Promise((resolve) => {
    // Through bash for its `times`: the CPU time of mocha and every process it waited for (the CLI runs,
    // the apps they started, code-server), which a busy machine does not inflate the way it does wall time.
    const child = spawn('bash', ['-c', '"$@"; rc=$?; times > "$HOTPATH_TEST_TIMES"; exit $rc', 'bash', process.execPath, ...mochaArgs(job, o)], {
      cwd: ROOT,
      env: { ...process.env, HOTPATH_TEST_RESULTS: record, HOTPATH_TEST_LANE: job.lane, HOTPATH_TEST_TIMES: timesFile, ...(vsixFile ? { HOTPATH_E2E_VSIX: vsixFile } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = fs.createWriteStream(logFile);
    const chunks = [];
    const onData = (stream) => (d) => {
      log.write(d);
      if (live) stream.write(d); else chunks.push(d);
    };
    child.stdout.on('data', onData(process.stdout));
    child.stderr.on('data', onData(process.stderr));
    child.on('close', (code, signal) => {
      log.end();
      const wallMs = Date.now() - started;
      if (!live) {
        process.stdout.write(`\n── ${job.name} (${job.files.length} file${job.files.length === 1 ? '' : 's'}, ${job.lane} lane): ${fmt(wallMs)}, exit ${code ?? signal} ──\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      resolve({ job, code: code ?? 1, signal, wallMs, cpuMs: cpuOf(timesFile), record, logFile });
    });
  });
}

async function main() {
  let o;
  // HOTPATH_TEST_ARGS: options from the environment (the census passes them through .ci/run's `npm test`).
  const fromEnv = (process.env.HOTPATH_TEST_ARGS ?? '').split(/\s+/).filter(Boolean);
  try { o = parseArgs([...fromEnv, ...process.argv.slice(2)]); } catch (err) { console.error(`scripts/test/run.js: ${err.message}`); process.exit(2); }
  if (o.help) { console.log(fs.readFileSync(__filename, 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n')); return; }

  let entries = plan({ only: o.only ?? undefined });
  if (o.quick) entries = entries.filter((e) => e.quick);
  if (o.files.length) {
    const wanted = new Set(o.files);
    const unknown = o.files.filter((f) => !entries.some((e) => e.file === f));
    if (unknown.length) { console.error(`scripts/test/run.js: not test files of the plan: ${unknown.join(', ')}`); process.exit(2); }
    entries = entries.filter((e) => wanted.has(e.file));
  }
  const t0 = Date.now();
  if (o.grep) entries = await matching(entries, o);
  if (o.jobs === 'auto' && !o.list) {
    const m = await autoJobs();
    o.jobs = m.jobs;
    console.log(`== ${m.cores} cores, ${m.busyCores.toFixed(1)} kept busy by other programs: the shared lane runs ${o.jobs} file${o.jobs === 1 ? '' : 's'} at a time (--jobs N to choose)`);
  }
  // Two code-servers once the lane runs 4 files or more: one process with every real-VS-Code file (6.5
  // minutes) would otherwise be the lane's longest job.
  if (o.e2eJobs === 'auto') o.e2eJobs = o.jobs === 'auto' || o.jobs >= 4 ? 2 : 1;
  const timings = readTimings();
  const jobs = jobsOf(entries, timings, o.e2eJobs);
  if (o.list) {
    for (const j of jobs) console.log(`${j.lane.padEnd(8)} ${j.name.padEnd(20)} ~${Math.round(j.estimate)} s  ${j.files.join(' ')}`);
    return;
  }

  console.log(`== npm test: ${entries.length} files in ${jobs.length} mocha processes: the shared lane ${o.jobs} at a time, then the measured files one by one${o.retries ? `; real-VS-Code tests retried up to ${o.retries}× (CI)` : ''}${o.grep ? `; --grep ${JSON.stringify(o.grep)}${o.invert ? ' --invert' : ''}` : ''}`);
  const results = [];
  let stop = false;
  const vsix = jobs.some((j) => j.group === 'e2e') ? packageOnce() : null;

  // Shared lane: longest first, `jobs` at a time; printed whole as each ends (unless one at a time).
  const shared = jobs.filter((j) => j.lane === 'shared').sort((a, b) => b.estimate - a.estimate);
  await new Promise((resolve) => {
    let running = 0;
    const next = () => {
      while (!stop && running < o.jobs && shared.length) {
        const job = shared.shift();
        running++;
        runJob(job, o, o.jobs === 1, job.group === 'e2e' ? vsix : null).then((r) => {
          results.push(r);
          running--;
          if (r.code !== 0 && o.bail) stop = true;
          next();
        });
      }
      if (running === 0 && (stop || !shared.length)) resolve();
    };
    next();
  });

  // Measured files, each alone, printed as they run.
  for (const job of jobs.filter((j) => j.lane === 'measured')) {
    if (stop) break;
    process.stdout.write(`\n── ${job.name} (${job.files.length} file${job.files.length === 1 ? '' : 's'}, measured: alone) ──\n`);
    const r = await runJob(job, o, true, job.group === 'e2e' ? vsix : null);
    results.push(r);
    if (r.code !== 0 && o.bail) stop = true;
  }
  if (vsix) fs.rmSync(path.dirname(await vsix.catch(() => VSIX_DIR)), { recursive: true, force: true });

  const failedJobs = results.filter((r) => r.code !== 0);
  const ok = summarize({ results, wallMs: Date.now() - t0, resultsDir: RESULTS, timingsFile: TIMINGS, options: o });
  process.exitCode = failedJobs.length || !ok ? 1 : 0;
}

main().catch((err) => { console.error(err); process.exit(1); });
