#!/usr/bin/env node
'use strict';
// Runs every bench/suites/*.js in turn and prints ONE JSON document on stdout:
//   { "machine": {...}, "suites": { "<name>": <suite result> } }
// Progress goes to stderr, so `npm run bench > bench.json` keeps a clean result.
//
// A suite is a CommonJS module exporting `async run({ log })` that returns a JSON-serialisable result.
// Suites build what they need themselves (into bench/.build/) and keep temporary data under
// os.tmpdir(). `node bench/run.js model` runs only the suites whose file name contains "model" (or only
// the suite of that exact name, when there is one).
// A suite that exports `onlyWhenNamed: true` (the hours-long stats calibration) runs only when named.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function main() {
  const filters = process.argv.slice(2);
  const dir = path.join(__dirname, 'suites');
  const all = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  // A filter that names a suite exactly selects that suite alone (`overhead` is not also `v8-overhead`);
  // any other filter selects every suite whose file name contains it.
  const exact = new Set(filters.filter((x) => all.includes(`${x}.js`)));
  const files = all.filter((f) => filters.length === 0 || exact.has(path.basename(f, '.js')) || filters.some((x) => !exact.has(x) && f.includes(x)));
  const cpus = os.cpus();
  const doc = {
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0] ? cpus[0].model : 'unknown',
      totalMemoryMB: Math.round(os.totalmem() / 1048576),
      platform: `${os.platform()} ${os.release()}`,
      arch: os.arch(),
      node: process.version,
      v8: process.versions.v8,
    },
    suites: {},
  };
  let failed = false;
  for (const file of files) {
    const name = path.basename(file, '.js');
    const log = (message) => process.stderr.write(`[${name}] ${message}\n`);
    const suite = require(path.join(dir, file));
    if (suite.onlyWhenNamed && filters.length === 0) {
      log(`skipped: runs only when named (npm run bench -- ${name})`);
      continue;
    }
    const started = Date.now();
    log('starting');
    try {
      doc.suites[name] = await suite.run({ log });
    } catch (err) {
      failed = true;
      doc.suites[name] = { error: err instanceof Error ? err.message : String(err) };
      log(`failed: ${err instanceof Error ? err.stack : err}`);
    }
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  if (failed) process.exitCode = 1;
}

main();
