'use strict';
// The CLI as a whole process: `hotpath report --json` against reading the same profile and JSON.parse,
// and how long the CLI takes to start (`--help`, `report` of a small profile) against a bare `node`.
//
// Every measurement is a fresh process, the contenders alternate pair by pair (A B, B A, …) so drift on
// this shared machine hits both alike, and the ratio is taken pair by pair (median reported). Wall time
// is measured from outside (spawn to exit); CPU time (all threads) by a preload at exit
// (bench/lib/cpu-at-exit.js: from the preload on, so Node's own ~20 ms bootstrap is in neither side).
//
//   report       `hotpath report --json P`, the code cache warm (what every run after the first gets)
//   reportCold   the same with HOTPATH_CODE_CACHE=off (a first run: V8 compiles the bundle)
//   json         `JSON.parse(fs.readFileSync(P, 'utf8'))` in a bare node (bench/lib/measure.js json)
// Target: report ≤ 1.4× json. Start: `--help` and `report` of a 2 KB profile against `node -e 0`.
//
// Which packages each command runs (deterministic, not timed): V8's precise coverage of the bundle
// (NODE_V8_COVERAGE), each executed function placed in the package whose code esbuild put there.
//
// Environment: HOTPATH_BENCH_CLI_SIZES (5,24,50 MB), HOTPATH_BENCH_CLI_RUNS (7 pairs),
// HOTPATH_BENCH_CLI_BEFORE=<another build's dist/cli.js>: that build is measured in the same
// interleaving (before/after of a change).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../lib/build');
const { cachedProfile } = require('../lib/generate');
const { median, round } = require('../lib/pairs');

const TARGET = 1.4;
const CLI = path.join(ROOT, 'dist', 'cli.js');
const BUNDLE = path.join(ROOT, 'dist', 'hotpath-cli.js');
const CPU_AT_EXIT = path.join(__dirname, '../lib/cpu-at-exit.js');
const MEASURE = path.join(__dirname, '../lib/measure.js');
const SMALL_PROFILE = path.join(ROOT, 'test', 'fixtures', 'profiles', 'cpu-hot.cpuprofile');
/** Packages only the commands that load an app need: `--help` and `report` must not run them. */
const LOAD_ONLY = ['autocannon', 'hdr-histogram-js', 'pako', 'chrome-remote-interface', 'ws', 'cli-progress', 'pidtree', 'mime-db', 'semver'];

/** One whole process: wall from outside, CPU (user + system, all threads) at its exit. */
function timed(args, env = {}) {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, ['-r', CPU_AT_EXIT, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 256 << 20 });
  const wallMs = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed (${run.status}): ${run.stderr.slice(-500)}`);
  const line = run.stderr.split('\n').find((l) => l.startsWith('@@hotpath-bench '));
  return { wallMs, cpuMs: JSON.parse(line.slice('@@hotpath-bench '.length)).cpuMs };
}

/** `runs` rounds of every contender, the order rotating round by round; ratios to `reference` per round. */
function interleaved(contenders, reference, runs, log, label) {
  const names = Object.keys(contenders);
  const rows = [];
  for (let r = 0; r < runs; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    if (r % 2) order.reverse();
    const row = {};
    for (const name of order) row[name] = contenders[name]();
    rows.push(row);
    log(`${label} round ${r + 1}: ${names.map((n) => `${n} ${row[n].wallMs.toFixed(0)} ms (CPU ${row[n].cpuMs.toFixed(0)})`).join(', ')}`);
  }
  const out = {};
  for (const name of names) {
    out[name] = { wallMs: round(median(rows.map((x) => x[name].wallMs)), 0), cpuMs: round(median(rows.map((x) => x[name].cpuMs)), 0) };
    if (name !== reference) {
      out[name].wallRatio = round(median(rows.map((x) => x[name].wallMs / x[reference].wallMs)), 2);
      out[name].cpuRatio = round(median(rows.map((x) => x[name].cpuMs / x[reference].cpuMs)), 2);
      out[name].extraWallMs = round(median(rows.map((x) => x[name].wallMs - x[reference].wallMs)), 0);
      out[name].extraCpuMs = round(median(rows.map((x) => x[name].cpuMs - x[reference].cpuMs)), 0);
    }
  }
  return out;
}

/** Packages whose code ran in one run of the CLI (V8 precise coverage of the bundle). */
function packagesRun(cliPath, args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-coverage-'));
  try {
    const run = spawnSync(process.execPath, [cliPath, ...args], { env: { ...process.env, NODE_V8_COVERAGE: dir, HOTPATH_CODE_CACHE: 'off' }, encoding: 'utf8', maxBuffer: 256 << 20 });
    if (run.status !== 0) throw new Error(`${cliPath} ${args.join(' ')} failed: ${run.stderr.slice(-300)}`);
    // The bundle: hotpath-cli.js beside the entry, or (an older build) the entry itself.
    const bundle = fs.existsSync(path.join(path.dirname(cliPath), 'hotpath-cli.js')) ? path.join(path.dirname(cliPath), 'hotpath-cli.js') : cliPath;
    const text = fs.readFileSync(bundle, 'utf8');
    // esbuild marks each module's code with a `// node_modules/<package>/<file>` (or `// src/…`) comment.
    const marks = [];
    const re = /^[ \t]*\/\/ (\S+\.(?:[cm]?js|[cm]?ts|json))$/gm;
    for (let m; (m = re.exec(text));) marks.push({ at: m.index, pkg: /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m[1])?.[1] ?? null });
    // Compiled by entry.ts through vm.Script inside Node's CommonJS wrapper: offsets count the wrapper too.
    const shift = bundle === cliPath ? 0 : require('node:module').wrapper[0].length;
    const ran = new Set();
    for (const f of fs.readdirSync(dir)) {
      for (const script of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).result) {
        if (script.url !== bundle && script.url !== `file://${bundle}`) continue;
        for (const fn of script.functions) {
          if (!fn.ranges[0] || fn.ranges[0].count === 0 || fn.ranges[0].startOffset === 0) continue;
          const at = fn.ranges[0].startOffset - shift;
          let lo = 0;
          let hi = marks.length - 1;
          let found = -1;
          while (lo <= hi) { const mid = (lo + hi) >> 1; if (marks[mid].at <= at) { found = mid; lo = mid + 1; } else hi = mid - 1; }
          if (found >= 0 && marks[found].pkg) ran.add(marks[found].pkg);
        }
      }
    }
    return [...ran].sort();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function run({ log }) {
  if (!fs.existsSync(CLI) || !fs.existsSync(BUNDLE)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does).');
  const runs = Number(process.env.HOTPATH_BENCH_CLI_RUNS || 7);
  const sizes = (process.env.HOTPATH_BENCH_CLI_SIZES || '5,24,50').split(',').map(Number);
  const before = process.env.HOTPATH_BENCH_CLI_BEFORE ? path.resolve(process.env.HOTPATH_BENCH_CLI_BEFORE) : null;
  // A code cache of this bench's own, so the user's is neither used nor changed.
  const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bench-cli-'));
  const warm = { HOTPATH_CACHE: cacheRoot };
  const cold = { HOTPATH_CACHE: cacheRoot, HOTPATH_CODE_CACHE: 'off' };
  try {
    const report = [];
    for (const size of sizes) {
      const file = cachedProfile(size, log);
      const contenders = {
        json: () => timed([MEASURE, 'json', file]),
        report: () => timed([CLI, 'report', '--json', file], warm),
        reportCold: () => timed([CLI, 'report', '--json', file], cold),
        ...(before ? { before: () => timed([before, 'report', '--json', file], cold) } : {}),
      };
      timed([CLI, 'report', '--json', file], warm); // writes the code cache (and warms the page cache)
      const r = interleaved(contenders, 'json', runs, log, `${size} MB`);
      report.push({ sizeMB: round(fs.statSync(file).size / 1048576, 1), ...r, meetsTarget: r.report.wallRatio <= TARGET && r.report.cpuRatio <= TARGET });
    }
    const startContenders = {
      node: () => timed(['-e', '0']),
      help: () => timed([CLI, '--help'], warm),
      helpCold: () => timed([CLI, '--help'], cold),
      reportSmall: () => timed([CLI, 'report', '--json', SMALL_PROFILE], warm),
      ...(before ? { helpBefore: () => timed([before, '--help']), reportSmallBefore: () => timed([before, 'report', '--json', SMALL_PROFILE]) } : {}),
    };
    timed([CLI, '--help'], warm);
    timed([CLI, 'report', '--json', SMALL_PROFILE], warm);
    const start = interleaved(startContenders, 'node', runs, log, 'start');
    log('which packages each command runs (V8 coverage)…');
    const loaded = {
      help: packagesRun(CLI, ['--help']),
      report: packagesRun(CLI, ['report', '--json', SMALL_PROFILE]),
      ...(before ? { helpBefore: packagesRun(before, ['--help']), reportBefore: packagesRun(before, ['report', '--json', SMALL_PROFILE]) } : {}),
    };
    const loadOnly = (list) => list.filter((p) => LOAD_ONLY.includes(p));
    return {
      target: { maxRatio: TARGET, judgedOn: 'report (warm code cache) ÷ json, wall and CPU, per pair' },
      runsPerMeasurement: runs,
      note: 'whole processes, alternating; CPU from a preload at exit (Node\'s bootstrap before it is in neither side); cold = HOTPATH_CODE_CACHE=off',
      report,
      start: { ...start, smallProfile: path.relative(ROOT, SMALL_PROFILE) },
      packagesRun: loaded,
      loadOnlyPackagesRun: { help: loadOnly(loaded.help), report: loadOnly(loaded.report), ...(before ? { helpBefore: loadOnly(loaded.helpBefore), reportBefore: loadOnly(loaded.reportBefore) } : {}) },
      loadAverage: round(os.loadavg()[0], 1),
    };
  } finally {
    fs.rmSync(cacheRoot, { recursive: true, force: true });
  }
}

module.exports = { run };
