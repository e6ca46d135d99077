#!/usr/bin/env node
// The pg integration test (test/integration/pg.test.ts) runs the real `pg` driver against a real
// PostgreSQL server: a throwaway cluster the test creates with initdb, starts on 127.0.0.1 and stops.
// On a fresh machine, install the server from Debian's packages, the way ensure-chromium.js installs
// Chromium: once, then reuse. Not root or no apt → say exactly what to install.
//
//   node scripts/ensure-postgres.js
// HOTPATH_POSTGRES_BIN names a directory holding initdb, pg_ctl and postgres (skips the search).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { installDebianPackages } = require('./lib/debianPackages');

const TOOLS = ['initdb', 'pg_ctl', 'postgres', 'psql'];
const hasTools = (dir) => TOOLS.every((t) => fs.existsSync(path.join(dir, t)));

/**
 * The directory holding PostgreSQL's server binaries: HOTPATH_POSTGRES_BIN, else the newest
 * /usr/lib/postgresql/<major>/bin (Debian puts them there, not on PATH), else initdb's directory on
 * PATH; null when there is none.
 */
function findPostgresBin() {
  if (process.env.HOTPATH_POSTGRES_BIN) return hasTools(process.env.HOTPATH_POSTGRES_BIN) ? process.env.HOTPATH_POSTGRES_BIN : null;
  const debian = '/usr/lib/postgresql';
  let majors = [];
  try { majors = fs.readdirSync(debian).filter((d) => /^\d+(\.\d+)?$/.test(d)); } catch { /* not Debian's layout */ }
  majors.sort((a, b) => parseFloat(b) - parseFloat(a));
  for (const major of majors) {
    const dir = path.join(debian, major, 'bin');
    if (hasTools(dir)) return dir;
  }
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (dir && hasTools(dir)) return dir;
  }
  return null;
}

function main() {
  if (findPostgresBin()) return;
  if (process.env.HOTPATH_POSTGRES_BIN) {
    console.error(`hotpath tests: HOTPATH_POSTGRES_BIN=${process.env.HOTPATH_POSTGRES_BIN} does not hold ${TOOLS.join(', ')}. Point it at PostgreSQL's bin directory, or unset it.`);
    process.exit(1);
  }
  installDebianPackages(['postgresql'], {
    missing: 'PostgreSQL is missing (no initdb, pg_ctl, postgres and psql in /usr/lib/postgresql/*/bin or on PATH); or set HOTPATH_POSTGRES_BIN to the directory holding them.',
  });
  if (!findPostgresBin()) {
    console.error('hotpath tests: apt-get installed postgresql, but initdb, pg_ctl, postgres and psql are still not found in /usr/lib/postgresql/*/bin.');
    process.exit(1);
  }
}

if (require.main === module) main();

module.exports = { findPostgresBin };
