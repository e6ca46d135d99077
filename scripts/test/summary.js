'use strict';
// The end of `npm test`: what each test file cost (wall time, hooks included), the slowest tests, every
// failure, and the tests that passed only on retry — `2 tests passed on retry: …` — so a flake is seen
// and fixed, not hidden. Writes test-results/test-run.json (read by scripts/test-census.js) and merges
// each file's seconds into test-results/timings.json (the next run starts the longest files first).
const fs = require('node:fs');
const path = require('node:path');
const { plan } = require('./plan');

// Whole seconds first, so 12m 59.6s reads 13m 00s, not 12m 60s.
const fmt = (ms) => (ms >= 60_000 ? `${Math.floor(Math.round(ms / 1000) / 60)}m ${String(Math.round(ms / 1000) % 60).padStart(2, '0')}s` : `${(ms / 1000).toFixed(1)} s`);
const pad = (s, n) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s, n) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

function readRecord(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; }
}

/** @returns {boolean} whether every job left a record and no test failed */
function summarize({ results, wallMs, resultsDir, timingsFile, options }) {
  const lanes = new Map(plan().map((e) => [e.file, e]));
  const files = [];
  const tests = [];
  const jobs = [];
  let ok = true;
  for (const r of results) {
    const rec = readRecord(r.record);
    jobs.push({ name: r.job.name, lane: r.job.lane, files: r.job.files, wallMs: r.wallMs, cpuMs: r.cpuMs ?? null, exitCode: r.code, signal: r.signal ?? null, log: path.relative(path.dirname(resultsDir), r.logFile) });
    if (!rec) {
      ok = false;
      tests.push({ file: r.job.files.join(' '), title: `(mocha process "${r.job.name}" exited ${r.code ?? r.signal} without a result: see ${path.relative(process.cwd(), r.logFile)})`, state: 'failed', durationMs: null, retries: 0, earlierFailures: [] });
      continue;
    }
    for (const f of rec.files) {
      const own = rec.tests.filter((t) => t.file === f.file);
      const e = lanes.get(f.file);
      files.push({
        file: f.file, group: e?.group ?? '?', lane: e?.lane ?? r.job.lane, wallMs: f.wallMs, job: r.job.name,
        // A file alone in its mocha process (each integration file): that process's CPU time is the file's.
        cpuMs: r.job.files.length === 1 ? r.cpuMs ?? null : null,
        passed: own.filter((t) => t.state === 'passed').length,
        failed: own.filter((t) => t.state === 'failed').length,
        pending: own.filter((t) => t.state === 'pending').length,
        retried: own.filter((t) => t.retries > 0 || t.earlierFailures.length > 0).length,
      });
    }
    tests.push(...rec.tests);
  }

  const passed = tests.filter((t) => t.state === 'passed');
  const failed = tests.filter((t) => t.state === 'failed');
  const pending = tests.filter((t) => t.state === 'pending');
  const passedOnRetry = passed.filter((t) => t.earlierFailures.length > 0);
  if (failed.length) ok = false;

  const out = [];
  const line = (s = '') => out.push(s);
  line();
  line('== Time per test file (wall, hooks included; the shared lane runs several at once)');
  const groups = ['unit', 'integration', 'browser', 'e2e'];
  const laneOrder = { shared: 0, measured: 1, editor: 2 };
  files.sort((a, b) => groups.indexOf(a.group) - groups.indexOf(b.group) || laneOrder[a.lane] - laneOrder[b.lane] || b.wallMs - a.wallMs);
  line(`  ${pad('file', 46)} ${pad('lane', 9)} ${lpad('time', 8)} ${lpad('CPU', 8)} ${lpad('tests', 6)}`);
  for (const g of groups) {
    const inGroup = files.filter((f) => f.group === g);
    if (!inGroup.length) continue;
    for (const f of inGroup) {
      const n = f.passed + f.failed + f.pending;
      const marks = [f.failed ? `${f.failed} failed` : '', f.retried ? `${f.retried} retried` : ''].filter(Boolean).join(', ');
      line(`  ${pad(f.file, 46)} ${pad(f.lane, 9)} ${lpad(fmt(f.wallMs), 8)} ${lpad(f.cpuMs == null ? '' : fmt(f.cpuMs), 8)} ${lpad(String(n), 6)}${marks ? `  ${marks}` : ''}`);
    }
    line(`  ${pad(`${g}: ${inGroup.length} files`, 46)} ${pad('', 9)} ${lpad(fmt(inGroup.reduce((s, f) => s + f.wallMs, 0)), 8)} ${lpad('', 8)} ${lpad(String(inGroup.reduce((s, f) => s + f.passed + f.failed + f.pending, 0)), 6)}  (sum of file times)`);
  }
  line();
  line('== Mocha processes: wall time / CPU time of the process and all it waited for (CPU is what a busy machine does not inflate)');
  for (const lane of ['shared', 'measured', 'editor']) {
    const js = jobs.filter((j) => j.lane === lane);
    if (!js.length) continue;
    line(`  ${lane}: ${js.map((j) => `${j.name} ${fmt(j.wallMs)} / ${j.cpuMs == null ? '?' : fmt(j.cpuMs)}${j.exitCode ? ` (exit ${j.exitCode})` : ''}`).join(', ')}`);
  }
  const cpu = jobs.reduce((s, j) => s + (j.cpuMs ?? 0), 0);
  line(`  all: ${fmt(cpu)} of CPU in ${fmt(wallMs)} of wall time (${(cpu / wallMs).toFixed(2)} cores busy on average)`);
  line();
  const slow = [...tests].filter((t) => t.durationMs != null).sort((a, b) => b.durationMs - a.durationMs).slice(0, 15);
  line('== Slowest tests');
  for (const t of slow) line(`  ${lpad(fmt(t.durationMs), 8)}  ${t.file}: ${t.title}`);
  if (failed.length) {
    line();
    line(`== ${failed.length} failed`);
    for (const t of failed) line(`  ✗ ${t.file}: ${t.title}\n      ${(t.error ?? '').split('\n').slice(0, 3).join('\n      ')}`);
  }
  line();
  if (passedOnRetry.length) {
    line(`${passedOnRetry.length} test${passedOnRetry.length === 1 ? '' : 's'} passed on retry: ${passedOnRetry.map((t) => `"${t.title}" (${t.file}; first failure: ${(t.earlierFailures[0].error || '').split('\n')[0].slice(0, 160)})`).join('; ')}`);
  } else {
    line(`0 tests passed on retry${options.retries ? '' : ' (retries are off: CI is not set)'}.`);
  }
  line(`== ${passed.length} passing, ${pending.length} pending, ${failed.length} failing; ${fmt(wallMs)} in all`);
  process.stdout.write(`${out.join('\n')}\n`);

  fs.mkdirSync(resultsDir, { recursive: true });
  const doc = {
    finishedAt: new Date().toISOString(), wallMs, options: { grep: options.grep, quick: options.quick, jobs: options.jobs, retries: options.retries, only: options.only },
    counts: { passed: passed.length, pending: pending.length, failed: failed.length, passedOnRetry: passedOnRetry.length },
    jobs, files, tests,
  };
  fs.writeFileSync(path.join(resultsDir, 'test-run.json'), JSON.stringify(doc, null, 1));
  if (!options.grep) {
    let timings = {};
    try { timings = JSON.parse(fs.readFileSync(timingsFile, 'utf8')); } catch { /* first run */ }
    for (const f of files) timings[f.file] = Math.round(f.wallMs / 100) / 10;
    fs.writeFileSync(timingsFile, JSON.stringify(timings, null, 1));
  }
  return ok;
}

module.exports = { summarize, fmt };
