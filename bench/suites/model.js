'use strict';
// Profile model build vs readFileSync + JSON.parse, on generated profiles of about 5, 50 and 200 MB.
//
// Each measurement runs in a fresh child process (peak RSS is per measurement); the two contenders
// alternate, 3 runs each, and we report medians. Targets: model time ≤ 1.4× JSON.parse's, peak RSS
// < 3× the file size. A bare process's own RSS (~40 MB) is reported as `floorRssMB`; it dominates the
// ratio for small files, so the memory target is judged on the ≥ 50 MB sizes.
//
// Environment: HOTPATH_BENCH_SIZES=5,50 to pick sizes; HOTPATH_BENCH_CPU_PROF=<dir> to record a
// --cpu-prof of every model run (to profile the parser itself).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { bundle } = require('../lib/build');
const { cachedProfile } = require('../lib/generate');

const TARGET_RATIO = 1.4;
const TARGET_RSS_TO_FILE = 3;
const RUNS = 3;

function measure(mode, file, bundlePath) {
  const flags = [];
  if (mode === 'model' && process.env.HOTPATH_BENCH_CPU_PROF) flags.push('--cpu-prof', `--cpu-prof-dir=${process.env.HOTPATH_BENCH_CPU_PROF}`);
  const out = execFileSync(process.execPath, [...flags, path.join(__dirname, '../lib/measure.js'), mode, file, bundlePath], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop());
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (v, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

async function run({ log }) {
  const sizes = (process.env.HOTPATH_BENCH_SIZES || '5,50,200').split(',').map(Number);
  log('bundling src/core/profile → bench/.build/profile.js');
  const bundlePath = bundle('src/core/profile/index.ts', 'profile');
  const floor = measure('noop', '-', bundlePath).maxRssMB;
  const results = [];
  for (const size of sizes) {
    const file = cachedProfile(size, log);
    const sizeMB = fs.statSync(file).size / 1048576;
    const json = [];
    const model = [];
    for (let r = 0; r < RUNS; r++) {
      // Alternate which goes first, so slow drift (page cache, thermal) does not favour one side.
      const order = r % 2 === 0 ? ['json', 'model'] : ['model', 'json'];
      for (const mode of order) {
        const m = measure(mode, file, bundlePath);
        (mode === 'json' ? json : model).push(m);
        log(`${size} MB ${mode.padEnd(5)} run ${r + 1}: ${m.ms.toFixed(0)} ms, peak RSS ${m.maxRssMB.toFixed(0)} MB`);
      }
    }
    if (model[0].samples !== json[0].samples || model[0].nodes !== json[0].nodes) {
      throw new Error(`model and JSON.parse disagree on ${file}: ${JSON.stringify({ model: model[0], json: json[0] })}`);
    }
    const jsonParseMs = median(json.map((m) => m.ms));
    const modelMs = median(model.map((m) => m.ms));
    const jsonParsePeakRssMB = median(json.map((m) => m.maxRssMB));
    const modelPeakRssMB = median(model.map((m) => m.maxRssMB));
    results.push({
      sizeMB: round(sizeMB),
      nodes: model[0].nodes,
      samples: model[0].samples,
      jsonParseMs: round(jsonParseMs, 0),
      modelMs: round(modelMs, 0),
      ratio: round(modelMs / jsonParseMs, 2),
      jsonParsePeakRssMB: round(jsonParsePeakRssMB, 0),
      modelPeakRssMB: round(modelPeakRssMB, 0),
      rssToFileRatio: round(modelPeakRssMB / sizeMB, 2),
      rssAboveFloorToFileRatio: round((modelPeakRssMB - floor) / sizeMB, 2),
      meetsTimeTarget: modelMs / jsonParseMs <= TARGET_RATIO,
      meetsMemoryTarget: modelPeakRssMB / sizeMB < TARGET_RSS_TO_FILE,
      runs: { jsonParseMs: json.map((m) => round(m.ms, 0)), modelMs: model.map((m) => round(m.ms, 0)) },
    });
  }
  return {
    targets: { maxRatio: TARGET_RATIO, maxRssToFileRatio: TARGET_RSS_TO_FILE, note: 'memory target judged on sizes ≥ 50 MB; small files are dominated by floorRssMB' },
    runsPerMeasurement: RUNS,
    floorRssMB: round(floor, 0),
    results,
    allTargetsMet: results.every((r) => r.meetsTimeTarget && (r.sizeMB < 50 || r.meetsMemoryTarget)),
  };
}

module.exports = { run };
