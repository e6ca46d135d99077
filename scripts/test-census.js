#!/usr/bin/env node
'use strict';
// The flake census: the whole suite N times, each on a fresh clone of one commit, as CI runs it
// (`.ci/run`: npm ci, typecheck, `npm test`), optionally with an artificial CPU competitor beside some
// runs; then each test's failures and retries, and each run's time, passes and retries, as JSON and as a
// Markdown table.
//
//   node scripts/test-census.js --runs 5 --competitor 5            # HEAD of this repository; run 5 beside a competitor
//   node scripts/test-census.js --commit abc1234 --runs 5 --competitor 3 --competitor-processes 2
//   node scripts/test-census.js --runs 2 --test-args "--only unit,browser"   # a quick check of the census itself
//
// Options:
//   --repo PATH|URL         repository to clone (default: the one this script is in)
//   --commit REV            commit to test (default HEAD of --repo), resolved once: every run tests the same one
//   --runs N                runs, one after another (default 5)
//   --competitor K[,K2]     1-based runs that get the competitor (default none)
//   --competitor-processes P  burner processes (default 1: about half a core on average, bursts to a whole
//                           one; bench/lib/competitor.js, the one the compare tests and `npm run bench` use)
//   --out DIR               where the logs and tables go (default test-results/census-<time>)
//   --test-args "ARGS"      passed to `npm test` by .ci/run (HOTPATH_TEST_ARGS), e.g. "--only unit"
//   --keep                  keep the clones
//
// Every run sets CI=true, as the CI does (real-VS-Code tests may then be retried once). The toolchain
// cache (~/.cache/hotpath: code-server, Node versions, Chromium from Debian) is shared between runs as it
// is between CI runs on one machine; everything else is installed by each run.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { fmt } = require('./test/summary');
const HERE = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = { repo: HERE, commit: 'HEAD', runs: 5, competitor: [], competitorProcesses: 1, out: null, testArgs: '', keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => { const x = argv[++i]; if (x === undefined) throw new Error(`${a} needs a value`); return x; };
    if (a === '--repo') o.repo = v();
    else if (a === '--commit') o.commit = v();
    else if (a === '--runs') o.runs = Math.max(1, Number(v()) || 1);
    else if (a === '--competitor') o.competitor = v().split(',').map(Number).filter((n) => n >= 1);
    else if (a === '--competitor-processes') o.competitorProcesses = Math.max(1, Number(v()) || 1);
    else if (a === '--out') o.out = path.resolve(v());
    else if (a === '--test-args') o.testArgs = v();
    else if (a === '--keep') o.keep = true;
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Runs `.ci/run` in `dir`, its output to `logFile` (and a line per finished file to the console). */
function ciRun(dir, logFile, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const log = fs.createWriteStream(logFile);
    const child = spawn('bash', ['.ci/run'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    let tail = '';
    child.stdout.on('data', (d) => {
      tail = (tail + d).slice(-20_000);
      for (const line of String(d).split('\n')) if (/^── |^== /.test(line)) process.stdout.write(`      ${line.trim()}\n`);
    });
    child.on('close', (code, signal) => {
      log.end();
      resolve({ code, signal, wallMs: Date.now() - started, tail });
    });
    // Ctrl-C on the census stops the run's whole process group (.ci/run, npm, mocha, apps, code-server).
    const stop = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ } };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.once('close', () => { process.off('SIGINT', stop); process.off('SIGTERM', stop); });
  });
}

/**
 * A run's tests: from test-results/test-run.json (scripts/test/run.js writes it), or, for a commit
 * older than that runner, from mocha's spec output (passing/pending/failing counts and failure titles).
 */
function testsOf(dir, logText) {
  const record = path.join(dir, 'test-results', 'test-run.json');
  if (fs.existsSync(record)) {
    const doc = JSON.parse(fs.readFileSync(record, 'utf8'));
    return { source: 'test-run.json', counts: doc.counts, tests: doc.tests.map((t) => ({ file: t.file, title: t.title, state: t.state, retries: t.earlierFailures.length, firstError: (t.earlierFailures[0]?.error || t.error || '').split('\n')[0].slice(0, 300) })), files: doc.files };
  }
  const num = (re) => Number((re.exec(logText) ?? [])[1] ?? 0);
  const counts = { passed: num(/^\s+(\d+) passing/m), pending: num(/^\s+(\d+) pending/m), failed: num(/^\s+(\d+) failing/m), passedOnRetry: 0 };
  const tests = [];
  const failures = logText.split(/\n(?=\s+\d+\) )/).slice(1);
  for (const block of failures) {
    const lines = block.split('\n');
    const title = [lines[0].replace(/^\s+\d+\) /, '').trim(), ...lines.slice(1).filter((l) => /^\s{5,}\S.*:?$/.test(l)).slice(0, 3).map((l) => l.trim().replace(/:$/, ''))].join(' ');
    const err = lines.find((l) => /Error|assert/i.test(l)) ?? '';
    tests.push({ file: '?', title, state: 'failed', retries: 0, firstError: err.trim().slice(0, 300) });
  }
  return { source: 'mocha output', counts, tests, files: [] };
}

function markdown(doc) {
  const out = [];
  out.push(`# Flake census: ${doc.commit.slice(0, 12)}, ${doc.runs.length} clean-clone runs of \`.ci/run\``);
  out.push('');
  out.push(`Repository ${doc.repo}; machine ${doc.machine.cpus} cores (${doc.machine.model}), load average at start ${doc.machine.loadAverage.join(' ')}; ${doc.startedAt}.`);
  out.push('');
  out.push('| run | competitor | exit | `.ci/run` | `npm test` | passing | pending | failing | passed on retry |');
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of doc.runs) {
    out.push(`| ${r.run} | ${r.competitor ? `${r.competitor} burner${r.competitor > 1 ? 's' : ''}` : '—'} | ${r.exitCode} | ${fmt(r.wallMs)} | ${r.npmTestMs ? fmt(r.npmTestMs) : '?'} | ${r.counts?.passed ?? '?'} | ${r.counts?.pending ?? '?'} | ${r.counts?.failed ?? '?'} | ${r.counts?.passedOnRetry ?? '?'} |`);
  }
  out.push('');
  const flaky = doc.tests.filter((t) => t.failures || t.retries);
  if (!flaky.length) {
    out.push(`No test failed or needed a retry in ${doc.runs.length} runs (${doc.testCount} tests a run).`);
  } else {
    out.push('| test | file | failed | passed on retry | runs | first error |');
    out.push('| --- | --- | --- | --- | --- | --- |');
    for (const t of flaky) out.push(`| ${t.title.replace(/\|/g, '\\|')} | ${t.file} | ${t.failures} | ${t.retries} | ${t.runs.join(', ')} | ${(t.firstError || '').replace(/\|/g, '\\|').slice(0, 160)} |`);
  }
  const files = doc.fileTimes;
  if (files.length) {
    out.push('');
    out.push('Time per file, the 25 longest (median over runs, wall, hooks included; all in census.json):');
    out.push('');
    out.push('| file | lane | median | min | max |');
    out.push('| --- | --- | --- | --- | --- |');
    for (const f of files.slice(0, 25)) out.push(`| ${f.file} | ${f.lane} | ${(f.medianMs / 1000).toFixed(1)} s | ${(f.minMs / 1000).toFixed(1)} s | ${(f.maxMs / 1000).toFixed(1)} s |`);
  }
  return `${out.join('\n')}\n`;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.help) { console.log(fs.readFileSync(__filename, 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n')); return; }
  const commit = /^[0-9a-f]{40}$/.test(o.commit) ? o.commit : git(fs.existsSync(o.repo) ? o.repo : HERE, 'rev-parse', o.commit);
  const out = o.out ?? path.join(HERE, 'test-results', `census-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(out, { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startCompetitor } = require(path.join(HERE, 'bench', 'lib', 'competitor.js'));
  const cpus = os.cpus();
  const doc = {
    repo: o.repo, commit, startedAt: new Date().toISOString(), options: { runs: o.runs, competitor: o.competitor, competitorProcesses: o.competitorProcesses, testArgs: o.testArgs },
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? '?', loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100) },
    runs: [], tests: [], testCount: 0, fileTimes: [],
  };
  console.log(`census of ${commit.slice(0, 12)}: ${o.runs} clean-clone runs of .ci/run${o.competitor.length ? `, competitor (${o.competitorProcesses} burner${o.competitorProcesses > 1 ? 's' : ''}) in run ${o.competitor.join(', ')}` : ''}; logs in ${out}`);

  const byTest = new Map();
  const fileTimes = new Map();
  for (let run = 1; run <= o.runs; run++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-census-${run}-`));
    execFileSync('git', ['clone', '--quiet', '--no-checkout', o.repo, dir], { stdio: 'inherit' });
    execFileSync('git', ['checkout', '--quiet', commit], { cwd: dir, stdio: 'inherit' });
    const competitor = o.competitor.includes(run) ? startCompetitor({ processes: o.competitorProcesses, seed: 1000 + run }) : null;
    const logFile = path.join(out, `run-${run}.log`);
    console.log(`run ${run}/${o.runs}${competitor ? ' (with the CPU competitor)' : ''}: ${dir}`);
    const env = { ...process.env, CI: 'true', HOTPATH_TEST_ARGS: o.testArgs };
    const r = await ciRun(dir, logFile, env).finally(() => competitor?.stop());
    const logText = fs.readFileSync(logFile, 'utf8');
    const t = testsOf(dir, logText);
    if (fs.existsSync(path.join(dir, 'test-results', 'test-run.json'))) fs.copyFileSync(path.join(dir, 'test-results', 'test-run.json'), path.join(out, `run-${run}.test-run.json`));
    const npmTest = /^== npm test \(the README's test command, set-up included\): (\d+) s/m.exec(logText);
    const entry = { run, competitor: competitor ? o.competitorProcesses : 0, exitCode: r.code ?? r.signal, wallMs: r.wallMs, npmTestMs: npmTest ? Number(npmTest[1]) * 1000 : null, counts: t.counts, source: t.source, log: path.relative(out, logFile) };
    doc.runs.push(entry);
    console.log(`run ${run}: exit ${entry.exitCode} in ${fmt(r.wallMs)}; ${t.counts.passed} passing, ${t.counts.pending} pending, ${t.counts.failed} failing, ${t.counts.passedOnRetry} passed on retry`);
    doc.testCount = Math.max(doc.testCount, t.counts.passed + t.counts.failed + t.counts.pending);
    for (const test of t.tests) {
      const key = `${test.file}\u0000${test.title}`;
      const e = byTest.get(key) ?? { file: test.file, title: test.title, failures: 0, retries: 0, runs: [], firstError: '' };
      if (test.state === 'failed') e.failures++;
      if (test.retries) e.retries++;
      if (test.state === 'failed' || test.retries) { e.runs.push(run); e.firstError ||= test.firstError; }
      byTest.set(key, e);
    }
    for (const f of t.files) {
      const e = fileTimes.get(f.file) ?? { file: f.file, lane: f.lane, times: [] };
      e.times.push(f.wallMs);
      fileTimes.set(f.file, e);
    }
    // A run that failed or retried keeps what says why (screenshots, code-server logs, each mocha log)
    // before its clone goes.
    if ((entry.exitCode !== 0 || t.counts.passedOnRetry) && fs.existsSync(path.join(dir, 'test-results'))) {
      fs.cpSync(path.join(dir, 'test-results'), path.join(out, `run-${run}.test-results`), { recursive: true, filter: (src) => !src.includes(`${path.sep}vsix`) });
      console.log(`run ${run}: its test-results kept in ${path.join(out, `run-${run}.test-results`)}`);
    }
    if (!o.keep) fs.rmSync(dir, { recursive: true, force: true });
    doc.tests = [...byTest.values()].filter((x) => x.failures || x.retries).sort((a, b) => b.failures - a.failures || b.retries - a.retries);
    doc.fileTimes = [...fileTimes.values()].map((f) => {
      const s = [...f.times].sort((a, b) => a - b);
      return { file: f.file, lane: f.lane, medianMs: s[Math.floor((s.length - 1) / 2)], minMs: s[0], maxMs: s[s.length - 1] };
    }).sort((a, b) => b.medianMs - a.medianMs);
    fs.writeFileSync(path.join(out, 'census.json'), JSON.stringify(doc, null, 1));
    fs.writeFileSync(path.join(out, 'census.md'), markdown(doc));
  }
  process.stdout.write(`\n${markdown(doc)}`);
  console.log(`(${path.join(out, 'census.md')}, ${path.join(out, 'census.json')})`);
  process.exitCode = doc.runs.every((r) => r.exitCode === 0) ? 0 : 1;
}

main().catch((err) => { console.error(err.message ?? err); process.exit(2); });
