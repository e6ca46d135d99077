#!/usr/bin/env node
'use strict';
// The fixture apps under test/fixtures/npm-apps are real npm projects (Express, lodash, Pug, NestJS
// compiled by tsc). Tests run them the way users do, so each needs its own node_modules, installed
// from its own package-lock.json with `npm ci` (registry packages only, no binaries from elsewhere),
// and its build (tsc) run. Installs are skipped while the lock file is unchanged (a stamp in
// node_modules holds its hash); builds while the output is newer than every source.
//
//   node scripts/ensure-fixture-apps.js
const { execFileSync } = require('node:child_process');
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

function ensureApp(dir) {
  const name = path.basename(dir);
  const lock = path.join(dir, 'package-lock.json');
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (fs.existsSync(lock)) {
    const hash = crypto.createHash('sha1').update(fs.readFileSync(lock)).digest('hex');
    const stamp = path.join(dir, 'node_modules', STAMP);
    if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== hash) {
      const t = Date.now();
      execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
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
      execFileSync(npm, ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      log(`${name}: built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
}

function main() {
  for (const entry of fs.readdirSync(ROOT, { withFileTypes: true })) {
    if (entry.isDirectory() && fs.existsSync(path.join(ROOT, entry.name, 'package.json'))) ensureApp(path.join(ROOT, entry.name));
  }
}

if (require.main === module) {
  try { main(); } catch (err) { log(err instanceof Error ? err.message : String(err)); process.exit(1); }
}

module.exports = { ROOT };
