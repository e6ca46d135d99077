#!/usr/bin/env node
'use strict';
// The fixture apps under test/fixtures/npm-apps are real npm projects (Express, lodash, Pug, NestJS
// compiled by tsc). Tests run them the way users do, so each needs its own node_modules, installed
// from its own package-lock.json with `npm ci` (registry packages only, no binaries from elsewhere),
// and its build (tsc) run. Installs are skipped while the lock file is unchanged (a stamp in
// node_modules holds its hash); builds while the output is newer than every source. Three apps are
// installed at a time (npm's cache takes concurrent installs): one by one, a clean clone's twelve took
// ~48 s, most of it waiting on the registry and the disk rather than the CPU. `--prefer-offline`: a
// package already in npm's cache is taken from it without asking the registry whether it changed (a lock
// file pins it by integrity anyway) and the largest first: 12–19 s → 13–14 s for the thirteen here.
//
//   node scripts/ensure-fixture-apps.js
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', 'test', 'fixtures', 'npm-apps');
const STAMP = '.hotpath-lock-sha1';
const log = (m) => process.stderr.write(`[ensure-fixture-apps] ${m}\n`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Runs npm in `dir`; rejects with npm's exit status (its stderr is passed through). */
function runNpm(dir, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(npm, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`npm ${args[0] === 'run' ? 'run build' : args[0]} in ${path.basename(dir)} failed (${signal ?? `exit ${code}`})`))));
  });
}

async function ensureApp(dir) {
  const name = path.basename(dir);
  const lock = path.join(dir, 'package-lock.json');
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (fs.existsSync(lock)) {
    const hash = crypto.createHash('sha1').update(fs.readFileSync(lock)).digest('hex');
    const stamp = path.join(dir, 'node_modules', STAMP);
    if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== hash) {
      const t = Date.now();
      await runNpm(dir, ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
      fs.writeFileSync(stamp, hash);
      log(`${name}: npm ci in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  if (pkg.scripts && pkg.scripts.build) {
    const src = path.join(dir, 'src');
    const out = path.join(dir, 'dist');
    const stale = !fs.existsSync(out) || (fs.existsSync(src) && newestMtime(src) > newestMtime(out));
    if (stale) {
      const t = Date.now();
      await runNpm(dir, ['run', 'build', '--silent']);
      log(`${name}: built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
}

const lockBytes = (dir) => { try { return fs.statSync(path.join(dir, 'package-lock.json')).size; } catch { return 0; } };

/** Every app, three at a time; the first failure is reported once the others have finished. */
async function main(jobs = 3) {
  const apps = fs.readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(ROOT, entry.name, 'package.json')))
    .map((entry) => path.join(ROOT, entry.name))
    // The largest lock file first (NestJS: its install and tsc build took as long as three others), so
    // the slowest app does not start last.
    .sort((a, b) => lockBytes(b) - lockBytes(a));
  const t = Date.now();
  let next = 0;
  const failures = [];
  const worker = async () => {
    while (next < apps.length) {
      const dir = apps[next++];
      try { await ensureApp(dir); } catch (err) { failures.push(err); }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, apps.length) }, worker));
  if (failures.length) throw failures[0];
  log(`${apps.length} apps ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

if (require.main === module) {
  main().catch((err) => { log(err instanceof Error ? err.message : String(err)); process.exit(1); });
}

module.exports = { ROOT };
