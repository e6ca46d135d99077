#!/usr/bin/env node
// The pprof integration test (test/integration/pprof.test.ts) checks Hotpath's pprof export with the real
// consumer, `go tool pprof`. On a fresh machine, install Debian's golang-go (its `go` has `tool pprof`),
// the way ensure-chromium.js installs Chromium: once, then reuse. Not root or no apt → say what to install.
//
//   node scripts/ensure-go.js
// HOTPATH_GO names a `go` binary to use instead (skips the search).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { installDebianPackages } = require('./lib/debianPackages');

/** The `go` binary: HOTPATH_GO, else `go` on PATH, else Debian's /usr/lib/go/bin/go; null when there is none. */
function findGo() {
  if (process.env.HOTPATH_GO) return fs.existsSync(process.env.HOTPATH_GO) ? process.env.HOTPATH_GO : null;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const go = dir && path.join(dir, 'go');
    if (go && fs.existsSync(go)) return go;
  }
  return fs.existsSync('/usr/lib/go/bin/go') ? '/usr/lib/go/bin/go' : null;
}

function main() {
  if (findGo()) return;
  if (process.env.HOTPATH_GO) {
    console.error(`hotpath tests: HOTPATH_GO=${process.env.HOTPATH_GO} does not exist. Point it at a go binary, or unset it.`);
    process.exit(1);
  }
  installDebianPackages(['golang-go'], { missing: '`go` is missing (for `go tool pprof`); or set HOTPATH_GO to a go binary.' });
  if (!findGo()) {
    console.error('hotpath tests: apt-get installed golang-go, but `go` is still not found.');
    process.exit(1);
  }
}

if (require.main === module) main();

module.exports = { findGo };
